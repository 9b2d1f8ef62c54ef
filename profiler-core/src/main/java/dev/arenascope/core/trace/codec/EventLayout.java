package dev.arenascope.core.trace.codec;

/**
 * The event layouts a chunk payload may use; the number equals the {@code .astrace} format version
 * (and the live protocol's chunk layout). Every layout stores events as varint columns, one column a
 * field, in this order:
 * <pre>
 *   time                      zigzag delta from the previous event's time (0 before the first)
 *   identity columns          how the event's kind+flags, memory and thread are stored (per layout)
 *   a b c used aux ref ref2   zigzag, against the {@link Predictor}'s predictions
 *   trailing columns          per layout (none in 1 and 2)
 * </pre>
 * <ul>
 * <li>{@link #V1}: three identity columns: kind+flags (plain varint), memory slot and thread (zigzag
 *     deltas). Eleven columns; read only.</li>
 * <li>{@link #V2}: a table of the chunk's distinct (kind+flags, memory, thread) "shapes" before the
 *     column lengths, and one identity column: each event's shape index. Nine columns.</li>
 * <li>{@link #V3}: layout 2, then a varint after the shape table saying whether the chunk carries
 *     the two trailing <em>site</em> columns (0 or 2): each event's allocation site (stack node id)
 *     and category (string id), zigzag, -1 for none. A chunk in which no event has a site leaves
 *     them out and costs what a layout-2 chunk does. Frames and stack nodes travel as metadata
 *     records (tags 5 and 6, {@link MetaCodec}) ahead of the events that name them.</li>
 * </ul>
 *
 * <p><b>Adding a layout</b>: add a constant here
 * with its column counts, make {@link #CURRENT} point at it if writers should use it, teach
 * {@link EventDecoder#decode} its identity step (a case in {@code identities}) and its trailing
 * columns (read after {@code ref2}, into the batch's new columns), and {@link EventEncoder} its
 * columns. The shared columns, their predictions and the frame stay as they are; older layouts keep
 * decoding through the same loop. {@code docs/astrace-format.md} lists the layouts.
 */
public enum EventLayout {
    V1(1, 3, 0, false),
    V2(2, 1, 0, true),
    V3(3, 1, 2, true);

    /** The layout writers produce. */
    public static final EventLayout CURRENT = V3;

    private final int version;
    private final int identityColumns;
    private final int trailingColumns;
    private final boolean shapeTable;

    EventLayout(int version, int identityColumns, int trailingColumns, boolean shapeTable) {
        this.version = version;
        this.identityColumns = identityColumns;
        this.trailingColumns = trailingColumns;
        this.shapeTable = shapeTable;
    }

    /** The layout's number (the format version that introduced it). */
    public int version() {
        return version;
    }

    /** Columns after {@code ref2} when present (a chunk of a layout with site columns may leave them out). */
    int trailingColumns() {
        return trailingColumns;
    }

    /** Whether a chunk says after its shape table whether it carries the trailing site columns. */
    boolean hasOptionalSites() {
        return trailingColumns > 0;
    }

    /** Whether a shape table precedes the column lengths. */
    boolean hasShapeTable() {
        return shapeTable;
    }

    /** All columns a chunk may have: time, the identity columns, the seven value columns, the trailing columns. */
    int columns() {
        return 1 + identityColumns + 7 + trailingColumns;
    }

    /** The column index of value column {@code v} (0 = a .. 6 = ref2). */
    int valueColumn(int v) {
        return 1 + identityColumns + v;
    }

    /**
     * The layout numbered {@code version}.
     *
     * @throws IllegalArgumentException for a number this build does not know
     */
    public static EventLayout of(int version) {
        for (EventLayout l : values()) {
            if (l.version == version) {
                return l;
            }
        }
        throw new IllegalArgumentException("event layout version " + version + " (this build knows 1 to " + CURRENT.version + ")");
    }
}
