package dev.arenascope.core.live;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;

/**
 * A connection's sink, opened from the {@link LiveSinkFactory} only when the first record after the
 * session arrives: a connection that says hello and then nothing (or only goodbye) creates no trace
 * file and holds no sink. The session is kept and delivered first when the sink opens.
 *
 * <p>Called from the connection's thread only. A factory that fails or returns null fails the first
 * delivery ({@link IllegalStateException} naming the peer), which ends the connection.
 */
final class LazySink implements EventSink {
    private final LiveSinkFactory factory;
    private final PeerInfo peer;
    private SessionInfo session;
    private EventSink sink;

    LazySink(LiveSinkFactory factory, PeerInfo peer) {
        this.factory = factory;
        this.peer = peer;
    }

    /** Whether the real sink was opened. */
    boolean opened() {
        return sink != null;
    }

    private EventSink sink() {
        if (sink == null) {
            EventSink s;
            try {
                s = factory.open(peer);
            } catch (Exception e) {
                throw new IllegalStateException("cannot open a sink for connection " + peer.connection() + ": " + why(e), e);
            }
            if (s == null) {
                throw new IllegalStateException("no sink for connection " + peer.connection());
            }
            sink = s;
            if (session != null) {
                s.onSession(session);
            }
        }
        return sink;
    }

    /** What went wrong, in words: a file system error's file and reason (a missing directory says so, not just the path). */
    static String why(Exception e) {
        if (e instanceof NoSuchFileException n) {
            return n.getFile() + ": no such file or directory";
        }
        if (e instanceof AccessDeniedException a) {
            return a.getFile() + ": permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getFile() + ": " + f.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    @Override
    public void onSession(SessionInfo s) {
        if (sink == null) {
            session = s;
        } else {
            sink.onSession(s);
        }
    }

    @Override
    public void onMemory(MemoryInfo m) {
        sink().onMemory(m);
    }

    @Override
    public void onString(int id, String value) {
        sink().onString(id, value);
    }

    @Override
    public void onThread(int id, String name) {
        sink().onThread(id, name);
    }

    @Override
    public void onFrame(StackFrame frame) {
        sink().onFrame(frame);
    }

    @Override
    public void onStack(StackNode node) {
        sink().onStack(node);
    }

    @Override
    public void onLoss(long count) {
        sink().onLoss(count);
    }

    @Override
    public void onEvents(EventBatch batch) {
        sink().onEvents(batch);
    }

    @Override
    public void onClose() {
        if (sink != null) {
            sink.onClose();
        }
    }
}
