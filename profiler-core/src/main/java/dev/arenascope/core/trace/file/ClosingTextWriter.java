package dev.arenascope.core.trace.file;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.SinkAttachment;
import dev.arenascope.core.trace.SinkOwner;

/**
 * The part the text exporters share as sinks a user closes: events handed after the file closed are
 * counted rather than written to a closed stream, {@link #close()} first has an attached session deliver
 * what it buffers (so either close order keeps every event), and the file is finished once. A subclass
 * writes a batch ({@link #write}) and ends its file ({@link #finish}). One writer thread ({@link EventSink}
 * contract).
 */
abstract sealed class ClosingTextWriter implements EventSink, AutoCloseable permits CsvWriter, JsonlWriter {
    private final SinkAttachment attachment = new SinkAttachment();
    private boolean closed;
    private long lostAfterClose;

    /** Writes {@code b}'s events; called only while the file is open. */
    abstract void write(EventBatch b);

    /** Ends the file and closes its stream; called once. */
    abstract void finish();

    @Override
    public final void onEvents(EventBatch b) {
        if (closed) {
            lostAfterClose += b.size(); // handed after close: counted, never written to a closed file
            return;
        }
        write(b);
    }

    @Override
    public final void onClose() {
        if (closed) {
            return;
        }
        closed = true;
        finish();
    }

    @Override
    public final void onAttach(SinkOwner owner) {
        attachment.attach(owner);
    }

    /** Events handed to this writer after it closed (not in the file). */
    public final long lostEvents() {
        return lostAfterClose;
    }

    /**
     * Closes the file: when still attached to a session, the session first delivers what it buffers and
     * detaches this writer ({@link SinkOwner#detach()}), so either close order keeps every event.
     */
    @Override
    public final void close() {
        attachment.detach(); // delivers, then calls onClose
        onClose();
    }
}
