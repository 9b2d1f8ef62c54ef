package dev.arenascope.core.trace.store;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a spilled {@link EventStore} keeps its sealed blocks: one append-only file of packed blocks,
 * each found again by its byte offset and length. The file is made in a directory the caller names
 * and removed from it at once (the open channel keeps it readable; the system frees its space when
 * the channel closes or the process ends), so a session that ends in any way leaves nothing behind;
 * where the system refuses to remove an open file it is removed at exit instead.
 *
 * <p>Thread-safety: one writer ({@link #append}, the store's writer under its write lock) and any
 * number of readers; each read and append holds the file for its seek and transfer. The file is a
 * {@link RandomAccessFile}, not a {@code FileChannel}: a channel is closed for every thread when one
 * thread is interrupted in the middle of a read (a cancelled window task is), which would end the store.
 */
final class SpillFile implements AutoCloseable {
    private final RandomAccessFile file;
    private final Path path;
    private volatile long size;

    private SpillFile(RandomAccessFile file, Path path) {
        this.file = file;
        this.path = path;
    }

    /**
     * A new, empty spill file in {@code dir}.
     *
     * @throws IOException when the directory does not exist or a file cannot be made in it
     */
    static SpillFile create(Path dir, String storeName) throws IOException {
        Path p = Files.createTempFile(dir, "arenascope-spill-", ".blocks");
        RandomAccessFile ch = new RandomAccessFile(p.toFile(), "rw");
        try {
            Files.delete(p);
        } catch (IOException refused) { // a system that keeps open files' names: remove it at exit
            p.toFile().deleteOnExit();
        }
        return new SpillFile(ch, p);
    }

    /**
     * Appends {@code bytes}; returns the offset they start at.
     *
     * @throws IOException when the file cannot take them (a full disk)
     */
    long append(byte[] bytes) throws IOException {
        synchronized (file) {
            long at = size;
            file.seek(at);
            file.write(bytes);
            size = at + bytes.length;
            return at;
        }
    }

    /**
     * The {@code length} bytes at {@code offset}.
     *
     * @throws UncheckedIOException when they cannot be read, naming the file and the offset
     */
    byte[] read(long offset, int length) {
        byte[] out = new byte[length];
        try {
            synchronized (file) {
                file.seek(offset);
                int done = 0;
                while (done < length) {
                    int n = file.read(out, done, length - done);
                    if (n < 0) {
                        throw new IOException("the file ends at byte " + (offset + done));
                    }
                    done += n;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("spill file " + path + ": cannot read " + length + " bytes at byte " + offset + ": " + e.getMessage(), e);
        }
        return out;
    }

    /** Bytes written so far. */
    long size() {
        return size;
    }

    /** Where the file was made (its name is gone from the directory already where the system allows it). */
    Path path() {
        return path;
    }

    @Override
    public void close() throws IOException {
        synchronized (file) {
            file.close();
        }
    }
}
