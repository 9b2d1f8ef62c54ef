package dev.arenascope.app.ui.events;

import java.util.Locale;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * One line of the events table: an event and its index in the trace, with its fields described in
 * words (what {@code a}, {@code b}, {@code c} and the refs mean depends on the kind).
 */
public record EventRow(long index, Event event) {

    public static String kindName(EventKind k) {
        return k.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    public static String memoryName(TraceView t, int memory) {
        if (memory < 0) {
            return "";
        }
        var ms = t.memories();
        return memory < ms.size() ? ms.get(memory).name() : "#" + memory;
    }

    private static String str(TraceView t, int id) {
        if (id < 0) {
            return "";
        }
        String s = t.string(id);
        return s == null ? "#" + id : s;
    }

    /** What the event did, in words, e.g. {@code float32[1024,3] at +0x4000 (backward)}. */
    public static String detail(TraceView t, Event e) {
        boolean bwd = e.has(Event.FLAG_BACKWARD);
        return switch (e.kind()) {
            case MEMORY_CREATED -> "created, capacity " + Bytes.format(e.b()) + " " + str(t, e.ref());
            case MEMORY_CLOSED -> "closed";
            case ALLOC -> (beforeRecording(t, e) ? Event.BEFORE_RECORDING + ": " : "")
                    + (e.ref() >= 0 ? str(t, e.ref()) + " " : e.site() >= 0 ? t.siteLabel(e.site()) + " " : "") + "at " + hex(e.a()) + (bwd ? " (backward)" : "")
                    + (e.c() > 0 && e.c() != e.b() ? ", requested " + Bytes.format(e.c()) : "");
            case FREE -> "at " + hex(e.a());
            case FREE_REQUESTED -> "free requested at " + hex(e.a()) + " (pending: in use until its free)";
            case POINTER_RESTORE -> (bwd ? "backward" : "forward") + " pointer to " + hex(e.a());
            case RESET -> "reset";
            case SCOPE_ENTER -> "enter " + str(t, e.ref()) + " (scope " + e.ref2() + ")";
            case SCOPE_EXIT -> "exit " + str(t, e.ref()) + " (scope " + e.ref2() + ")";
            case SCOPE_PARAM -> str(t, e.ref()) + " = " + e.a() + " (scope " + e.ref2() + ")";
            case OUT_OF_MEMORY -> "out of memory: requested " + Bytes.format(e.b()) + ", " + Bytes.format(e.c()) + " left"
                    + (e.ref() >= 0 ? " — " + str(t, e.ref()) : "");
            case POOL_REQUEST -> (e.has(Event.FLAG_HIT) ? "hit" : "miss") + " bin " + e.ref() + " at " + hex(e.a())
                    + ", requested " + Bytes.format(e.c());
            case POOL_HOLD -> "held in bin " + e.ref() + " at " + hex(e.a());
            case POOL_RELEASE -> "released from bin " + e.ref() + " at " + hex(e.a());
            case RESERVE -> "reserved at " + hex(e.a());
            case UNRESERVE -> "unreserved at " + hex(e.a());
            case PLAN_LOADED -> "plan " + str(t, e.ref()) + ": " + Counts.of(e.a(), "tensor") + ", " + Counts.of(e.b(), "step");
            case PLAN_BIND -> str(t, e.ref()) + " bound at " + hex(e.a()) + " (" + roleName((int) e.c()) + ")";
            case PLAN_HYDRATE -> "hydrated from memory " + e.ref();
            case PLAN_STEP -> "step " + e.a();
            case TENSOR_LIVE -> str(t, e.ref()) + " live at step " + e.c();
            case TENSOR_DEAD -> str(t, e.ref()) + " dead after step " + e.c();
            case MARKER -> str(t, e.ref());
            case LOSS -> Counts.of(e.a(), "event") + " lost";
        };
    }

    /** Whether {@code e} is an allocation already live when recording began (its importer's category says so). */
    public static boolean beforeRecording(TraceView t, Event e) {
        return e.kind() == EventKind.ALLOC && e.category() >= 0 && Event.BEFORE_RECORDING.equals(t.string(e.category()));
    }

    /**
     * The Time column's text: the instant on the trace's axis ({@code 3.27 ms}, or {@code entry 3,697}
     * where it has no timestamps), {@code before recording} for an allocation older than the recording.
     */
    public static String time(TraceView t, TimeAxis axis, Event e) {
        return beforeRecording(t, e) ? "before recording" : axis.at(e.timeNs());
    }

    private static String roleName(int r) {
        return switch (r) {
            case 0 -> "scratch";
            case 1 -> "persistent";
            case 2 -> "constant cold";
            case 3 -> "constant staged";
            default -> "role " + r;
        };
    }

    static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    /** The bytes this event concerns, or "" when none. */
    public static String bytes(Event e) {
        return showsBytes(e.kind()) ? Bytes.format(e.b()) : "";
    }

    /** Whether the Bytes column shows a byte count for events of {@code kind} (their {@code b} field). */
    public static boolean showsBytes(EventKind kind) {
        return switch (kind) {
            case ALLOC, FREE, POINTER_RESTORE, RESET, OUT_OF_MEMORY, POOL_REQUEST, POOL_HOLD, POOL_RELEASE, RESERVE,
                 UNRESERVE, PLAN_BIND, PLAN_HYDRATE, TENSOR_LIVE, TENSOR_DEAD, MEMORY_CREATED, MEMORY_CLOSED -> true;
            default -> false;
        };
    }

    /** The Bytes column's sort key: the byte field where the column shows it, else -1 (sorted first). */
    public static long bytesKey(Event e) {
        return showsBytes(e.kind()) ? e.b() : -1;
    }

    /** The memory's capacity, for "used" percentages; 0 when unknown. */
    public static long capacity(TraceView t, int memory) {
        var ms = t.memories();
        if (memory < 0 || memory >= ms.size()) {
            return 0;
        }
        MemoryInfo m = ms.get(memory);
        return m.capacity();
    }
}
