package dev.arenascope.app.ui.events;

import java.util.List;
import java.util.Locale;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;

/**
 * The events table's detail pane text for one event: every field in words, the allocation's category
 * and its whole call stack one frame a line (innermost first, internal frames marked), and for a free
 * the allocation it freed with that allocation's stack. Plain text, so it can be selected and copied.
 * Stateless; safe on any thread (reads the trace only).
 */
public final class EventDetail {
    /** How far back a free looks for the allocation it freed (events). */
    static final int LOOK_BACK = 250_000;

    private EventDetail() {}

    /** The text for the event at {@code index} of {@code t}. */
    public static String of(TraceView t, long index) {
        Event e = t.event(index);
        TimeAxis axis = TimeAxis.of(t.session() == null ? null : t.session().attributes());
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "#%,d  %s  %s", index, EventRow.time(t, axis, e), EventRow.kindName(e.kind())));
        String mem = EventRow.memoryName(t, e.memory());
        if (!mem.isEmpty()) {
            sb.append("  ").append(mem);
        }
        sb.append('\n');
        String bytes = EventRow.bytes(e);
        if (!bytes.isEmpty()) {
            sb.append("bytes: ").append(bytes).append(String.format(Locale.ROOT, " (%,d)", e.b()));
            if (e.memory() >= 0) {
                sb.append(", in use after: ").append(Bytes.format(e.used()));
            }
            sb.append('\n');
        }
        sb.append("detail: ").append(EventRow.detail(t, e)).append('\n');
        if (e.category() >= 0) {
            String c = t.string(e.category());
            sb.append("category: ").append(c == null ? "#" + e.category() : c).append('\n');
        }
        if (e.site() >= 0) {
            stack(sb, "stack", t.stack(e.site()));
        } else if (isAllocation(e.kind())) {
            sb.append("stack: not recorded for this allocation\n");
        }
        if (isFree(e.kind())) {
            long a = allocationFreedBy(t, index, e);
            if (a >= 0) {
                Event ae = t.event(a);
                sb.append(EventRow.beforeRecording(t, ae)
                        ? String.format(Locale.ROOT, "frees the allocation of #%,d, %s (%s)%n", a, Event.BEFORE_RECORDING, Bytes.format(ae.b()))
                        : String.format(Locale.ROOT, "frees the allocation of #%,d at %s (%s, lived %s)%n", a,
                        axis.at(ae.timeNs()), Bytes.format(ae.b()), axis.span(Math.max(0, e.timeNs() - ae.timeNs()))));
                if (ae.site() >= 0) {
                    stack(sb, "allocated at", t.stack(ae.site()));
                }
            }
        }
        return sb.toString();
    }

    private static void stack(StringBuilder sb, String title, List<StackFrame> frames) {
        sb.append(title).append(" (innermost first, ").append(frames.size()).append(frames.size() == 1 ? " frame" : " frames").append("):\n");
        for (StackFrame f : frames) {
            sb.append("    ").append(f.label());
            if (f.internal()) {
                sb.append("    [internal]");
            }
            sb.append('\n');
        }
    }

    private static boolean isAllocation(EventKind k) {
        return k == EventKind.ALLOC || k == EventKind.POOL_REQUEST || k == EventKind.TENSOR_LIVE;
    }

    private static boolean isFree(EventKind k) {
        return k == EventKind.FREE || k == EventKind.POOL_HOLD || k == EventKind.POOL_RELEASE;
    }

    /** The allocation at the same memory and address that {@code free} released: the latest before it, or -1. */
    static long allocationFreedBy(TraceView t, long index, Event free) {
        long stop = Math.max(0, index - LOOK_BACK);
        for (long i = index - 1; i >= stop; i--) {
            Event e = t.event(i);
            if (e.memory() == free.memory() && e.a() == free.a()) {
                if (isAllocation(e.kind())) {
                    return i;
                }
                if (isFree(e.kind())) {
                    return -1; // freed before: this free has no allocation of its own
                }
            }
        }
        return -1;
    }
}
