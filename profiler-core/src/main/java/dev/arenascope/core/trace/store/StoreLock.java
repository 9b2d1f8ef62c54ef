package dev.arenascope.core.trace.store;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The store's read-write lock as try-with-resources guards, so every access reads
 * {@code try (var held = lock.read()) { ... }} instead of a lock / try / finally / unlock block:
 * <pre>
 *   try (var held = lock.write()) {
 *       memories.put(id, info);
 *   }
 * </pre>
 * The guards are allocated once, with the lock: taking and releasing it allocates nothing, so the
 * store's hot paths (the drain's {@code onEvents}, a view's {@code gauges} every frame) stay
 * allocation-free. Reentrant like {@link ReentrantReadWriteLock} (a reader may read again; the writer
 * may read); a guard must be closed by the thread that took it.
 */
final class StoreLock {
    /** A held lock; closing it releases the lock. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private final ReentrantReadWriteLock.ReadLock readLock = rw.readLock();
    private final ReentrantReadWriteLock.WriteLock writeLock = rw.writeLock();
    private final Held readHeld = readLock::unlock;
    private final Held writeHeld = writeLock::unlock;

    /** Takes the read lock (shared with other readers); close the result to release it. */
    Held read() {
        readLock.lock();
        return readHeld;
    }

    /** Takes the write lock (exclusive); close the result to release it. */
    Held write() {
        writeLock.lock();
        return writeHeld;
    }
}
