package dev.arenascope.app.ui;

import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.arenascope.core.format.Counts;
import dev.arenascope.core.trace.TraceView;

/**
 * Nothing the user made or opened is thrown away without a question. Before an action that replaces
 * or ends what the window shows (Start or New Live Session over an opened file, Open over a live
 * session, Quit, closing the window), the window asks {@link #check}: what is at stake, if anything, and
 * whether it can be saved. A live session's events are at stake until saved (or while events arrived
 * since the last save); an opened file is at stake only when a live session would replace it (it is still
 * on disk, but the user chose to look at it). The user answers save, discard or cancel; the window's
 * menus, toolbar, keys and close request all go through here, while the window's programmatic calls
 * (tests, {@code arenascope open FILE}) do not ask. FX thread only.
 */
final class SessionGuard {
    /** What the user decided. */
    enum Answer { SAVE, DISCARD, CANCEL }

    /** What would be lost: the question's text, and whether saving first is possible. */
    record Stake(String what, boolean canSave) {}

    /** Why the action replaces what is shown. */
    enum Action {
        /** A new live session (Start, New Live Session…) replaces the shown session. */
        START_LIVE,
        /** A file replaces the shown session. */
        OPEN_FILE,
        /** The window closes. */
        QUIT
    }

    /** Puts the question to the user; {@code answer} hears the choice (on the FX thread, perhaps later). */
    @FunctionalInterface
    interface Asker {
        void ask(String doing, Stake stake, Consumer<Answer> answer);
    }

    private final Supplier<TraceView> shown;
    private final Supplier<String> title;
    private final Supplier<TraceView> liveStore;
    private final Asker asker;
    private final Consumer<Runnable> saveThen;
    private TraceView savedStore;
    private long savedEvents = -1;

    /**
     * @param shown     the session shown now
     * @param title     its title (the file's name, or the workload's)
     * @param liveStore the live session's store, or null when no live session was started
     * @param asker     the question (a dialog in the window)
     * @param saveThen  saves the shown session (the user picks the file) and runs its argument once saved
     */
    SessionGuard(Supplier<TraceView> shown, Supplier<String> title, Supplier<TraceView> liveStore, Asker asker,
                 Consumer<Runnable> saveThen) {
        this.shown = shown;
        this.title = title;
        this.liveStore = liveStore;
        this.asker = asker;
        this.saveThen = saveThen;
    }

    /**
     * Runs {@code go} ({@code doing} names it for the question, e.g. "Quit") at once when nothing is at
     * stake; else asks, and runs it after a save, after a discard, or not at all on cancel.
     */
    void then(Action action, String doing, Runnable go) {
        Stake stake = check(action);
        if (stake == null) {
            go.run();
            return;
        }
        asker.ask(doing, stake, answer -> {
            switch (answer) {
                case SAVE -> saveThen.accept(go);
                case DISCARD -> go.run();
                case CANCEL -> { }
            }
        });
    }

    /** {@code store} was saved with {@code events} events in it: only events after those are at stake. */
    void saved(TraceView store, long events) {
        savedStore = store;
        savedEvents = events;
    }

    /** What {@code action} would discard, or null when nothing is at stake. */
    Stake check(Action action) {
        TraceView t = shown.get();
        if (t == null) {
            return null;
        }
        TraceView live = liveStore.get();
        if (live != null && live == t) {
            long unsaved = savedStore == t ? t.eventCount() - savedEvents : t.eventCount();
            if (unsaved <= 0) {
                return null;
            }
            return new Stake(String.format(Locale.ROOT, "The live session %s has %s%s not saved.", title.get(), Counts.of(unsaved, "event"),
                    savedStore == t ? " recorded since the last save" : ""), true);
        }
        if (action == Action.START_LIVE) {
            return new Stake("A new live session replaces " + title.get() + " (the file stays as it is on disk).", false);
        }
        return null;
    }
}
