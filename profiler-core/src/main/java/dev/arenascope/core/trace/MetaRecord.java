package dev.arenascope.core.trace;

/**
 * Session metadata as it travels inside trace chunks (files and the live wire): what an
 * {@link EventSink} hears besides events, one record per call.
 */
public sealed interface MetaRecord {

    /** Replays this record to {@code sink}. */
    void deliverTo(EventSink sink);

    /** A memory was registered ({@link EventSink#onMemory}). */
    record Memory(MemoryInfo info) implements MetaRecord {
        @Override
        public void deliverTo(EventSink sink) {
            sink.onMemory(info);
        }
    }

    /** A string-table entry ({@link EventSink#onString}). */
    record Str(int id, String value) implements MetaRecord {
        @Override
        public void deliverTo(EventSink sink) {
            sink.onString(id, value);
        }
    }

    /** A recording thread ({@link EventSink#onThread}). */
    record Thread(int id, String name) implements MetaRecord {
        @Override
        public void deliverTo(EventSink sink) {
            sink.onThread(id, name);
        }
    }

    /** Events lost upstream ({@link EventSink#onLoss}). */
    record Loss(long count) implements MetaRecord {
        @Override
        public void deliverTo(EventSink sink) {
            sink.onLoss(count);
        }
    }

    /** An allocation-site frame ({@link EventSink#onFrame}); chunks of event layout 3 and later. */
    record Frame(StackFrame frame) implements MetaRecord {
        @Override
        public void deliverTo(EventSink sink) {
            sink.onFrame(frame);
        }
    }

    /** An allocation-site stack node ({@link EventSink#onStack}); chunks of event layout 3 and later. */
    record Stack(StackNode node) implements MetaRecord {
        @Override
        public void deliverTo(EventSink sink) {
            sink.onStack(node);
        }
    }
}
