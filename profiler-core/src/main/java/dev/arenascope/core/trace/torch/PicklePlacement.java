package dev.arenascope.core.trace.torch;

/**
 * What a consumer of {@link PickleReader} (the snapshot reader) sees while a pickle is read: each dict
 * or list as it is placed into its container, and each fresh dict's items, and may put something
 * compact in its place (and in the memo), so it holds only what it keeps. Called on the reading thread.
 */
interface PicklePlacement {
    /** Sees each value as it is placed into a container; returns what to store instead (or the value). */
    /**
     * Called for lists and dicts only (atoms are never replaced).
     *
     * @param value     the value being placed
     * @param container the list or dict receiving it
     * @param key       the dict key, or null for a list
     * @param offset    the byte offset of the opcode placing it
     */
    Object placed(Object value, Object container, Object key, long offset) throws PickleFormatException;

    /**
     * A fresh, empty dict is about to receive its first items (keys and values alternating, the
     * values already {@link #placed}). Returns what stands for the dict instead (the items are then
     * not stored), or null to fill the dict as usual; {@code d} is null when the dict was read on
     * the fast path for dicts of atoms (it is built only if this returns null). {@code items} is
     * valid during the call only.
     */
    default Object dict(PyDict d, Items items, long offset) throws PickleFormatException {
        return null;
    }

    /**
     * A number for {@code standIn}, returned by {@link #dict}, when it is what any dict with the same
     * items gets, the call having had no other effect; else -1. The reader may then give
     * {@link #reused reused(number)} to a later dict of the same bytes (the same items, its strings from
     * the same unchanged memo slots) without calling {@link #dict}.
     */
    default int reusable(Object standIn) {
        return -1;
    }

    /**
     * {@code list}, its APPENDS just done, holds {@code n} stand-ins (and nothing before them), whose
     * {@link #reusable} numbers are {@code numbers[0..n)} in order; {@code numbers} is valid during the
     * call only. A consumer that reads the list later may use the numbers instead of the elements while
     * the list keeps that size (no pickle opcode replaces or removes a list's element).
     */
    default void listOfReusables(PyList list, int[] numbers, int n) {}

    /** The stand-in {@link #reusable} numbered {@code number}. */
    default Object reused(int number) {
        throw new IllegalStateException("no reusable stand-ins");
    }

    /** The instance to use for a decoded short string (lets a consumer compare its keys by identity). */
    default String canonical(String s) {
        return s;
    }

    /**
     * The items of a dict being read: keys at even indices, values at odd ones. A value the reader
     * kept unboxed is {@link PickleReader#LONG}, its value {@link #longAt}; keys are always boxed.
     */
    interface Items {
        int size();

        Object at(int i);

        long longAt(int i);

        /**
         * The memo slot the string item {@code i} was fetched from (BINGET, LONG_BINGET), or -1 when it
         * was not (a fresh string, not a string, or items read the ordinary way). While
         * {@link #memoEpoch()} is unchanged, the slot holds that same string.
         */
        default int memoSlot(int i) {
            return -1;
        }

        /** The memo's count of overwritten slots ({@link PickleMemo#overwrites()}): slots keep their strings while it stays the same. */
        default long memoEpoch() {
            return -1;
        }
    }

    /**
     * A consumer's compact stand-in for a dict or list it took whole (what a {@link PicklePlacement} puts in
     * its place): messages name it by the Python type it stands for and what it was read as, the same
     * whether the reader met the dict itself or, after the fast path, only its stand-in.
     */
    interface StandIn {
        /** The Python type it stands for: {@code dict} or {@code list}. */
        String pythonType();

        /** What the consumer read it as, e.g. {@code stack frame}. */
        String what();
    }
}
