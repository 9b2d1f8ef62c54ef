package dev.arenascope.core.trace.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where a spilled {@link EventStore} keeps its sealed blocks: one append-only file of packed blocks,
 * each found again by its byte offset and length. The file is made in a directory the caller names
 * and removed from it at once (the open channel keeps it readable; the system frees its space when
 * the channel closes or the process ends), so a session that ends in any way leaves nothing behind;
 * where the system refuses to remove an open file it is removed at exit instead.
 *
 * <p>Thread-safety: one writer ({@link #append}, the store's writer under its write lock) and any
 * number of readers at once ({@link #read} uses positional reads, which do not share a position).
 */
final class SpillFile implements AutoCloseable {
    private final FileChannel channel;
    private final Path path;
    private volatile long size;

    private SpillFile(FileChannel channel, Path path) {
        this.channel = channel;
        this.path = path;
    }

    /**
     * A new, empty spill file in {@code dir}.
     *
     * @throws IOException when the directory does not exist or a file cannot be made in it
     */
    static SpillFile create(Path dir, String storeName) throws IOException {
        Path p = Files.createTempFile(dir, "arenascope-spill-", ".blocks");
        FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
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
        long at = size;
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long pos = at;
        while (b.hasRemaining()) {
            pos += channel.write(b, pos);
        }
        size = pos;
        return at;
    }

    /**
     * The {@code length} bytes at {@code offset}.
     *
     * @throws UncheckedIOException when they cannot be read, naming the file and the offset
     */
    byte[] read(long offset, int length) {
        byte[] out = new byte[length];
        ByteBuffer b = ByteBuffer.wrap(out);
        try {
            long pos = offset;
            while (b.hasRemaining()) {
                int n = channel.read(b, pos);
                if (n < 0) {
                    throw new IOException("the file ends at byte " + pos);
                }
                pos += n;
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
        channel.close();
    }
}
