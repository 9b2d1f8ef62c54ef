package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How ArenaScope creates the files it writes, so that two runs never write the same file and a cut run
 * never leaves a file that looks complete.
 *
 * <ul>
 * <li>{@link #createNew}: a name the program made up (record's {@code WORKLOAD-DATE-TIME.astrace},
 * listen's {@code SESSION-pPID-cN.astrace}) is created exclusively ({@code O_CREAT|O_EXCL}); when it
 * exists (an earlier run, or another process that started in the same second) {@code -1}, {@code -2},
 * ... goes before the extension until a name is free. What exists is never opened, let alone truncated.</li>
 * <li>{@link #temporaryFor} and {@link #commit}: a file the user named is written under a hidden
 * temporary name beside it and moved over the name only once complete, so a run killed half-way
 * leaves the old file (or none), never a cut one under the final name.</li>
 * </ul>
 * Stateless; safe from any thread and any number of processes at once.
 */
public final class OutputFiles {
    /** Numbered names tried before giving up (a directory with this many runs of the same name is full of them). */
    static final int MAX_NUMBER = 100_000;

    private OutputFiles() {}

    /**
     * Creates {@code wanted}, empty, or when it exists the first of {@code NAME-1.EXT}, {@code NAME-2.EXT}, ...
     * that does not; returns the file created (the caller owns it: nobody else gets the same name).
     *
     * @throws IOException when the directory cannot be written, or every numbered name is taken
     */
    public static Path createNew(Path wanted) throws IOException {
        for (int k = 0; k <= MAX_NUMBER; k++) {
            Path p = k == 0 ? wanted : numbered(wanted, k);
            try {
                return Files.createFile(p);
            } catch (FileAlreadyExistsException taken) {
                // an earlier run's file, or another process's: try the next number
            }
        }
        throw new IOException(wanted + ": this name and " + MAX_NUMBER + " numbered ones are all taken");
    }

    /** {@code dir/NAME-k.EXT} for {@code dir/NAME.EXT} (the extension is what follows the last dot, if any). */
    public static Path numbered(Path wanted, int k) {
        String name = wanted.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String stem = dot <= 0 ? name : name.substring(0, dot);
        String ext = dot <= 0 ? "" : name.substring(dot);
        return wanted.resolveSibling(stem + "-" + k + ext);
    }

    /**
     * A new, empty, hidden file beside {@code target} ({@code .NAME.RANDOM.part}) to write it through; it
     * is deleted when the JVM exits (a run killed by SIGTERM leaves nothing), unless {@link #commit}
     * moved it first.
     */
    public static Path temporaryFor(Path target) throws IOException {
        Path abs = target.toAbsolutePath();
        while (true) {
            Path tmp = abs.resolveSibling("." + abs.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16) + ".part");
            try {
                Files.createFile(tmp);
            } catch (FileAlreadyExistsException taken) {
                continue;
            }
            tmp.toFile().deleteOnExit();
            return tmp;
        }
    }

    /** Moves the finished {@code tmp} over {@code target} (atomically where the file system can). */
    public static void commit(Path tmp, Path target) throws IOException {
        commit(tmp, target, true);
    }

    /**
     * Moves the finished {@code tmp} to {@code target}. With {@code replace}, over whatever is there
     * (atomically where the file system can: readers see the old file or the new one, never a mix).
     * Without, only where nothing is: the new file is linked under the name ({@code link(2)} fails on an
     * existing name, so a file that appeared since the command checked is not replaced either) and
     * {@code tmp} removed.
     *
     * @throws FileAlreadyExistsException without {@code replace}, when {@code target} exists ({@code tmp} is left as it was)
     */
    public static void commit(Path tmp, Path target, boolean replace) throws IOException {
        if (!replace) {
            try {
                Files.createLink(target, tmp);
                Files.delete(tmp);
                return;
            } catch (UnsupportedOperationException | FileSystemException e) {
                if (e instanceof FileAlreadyExistsException taken) {
                    throw taken;
                }
                // no hard links here (some file systems): a move that refuses an existing name
            }
            Files.move(tmp, target);
            return;
        }
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Writes a file's content to the path it is given. */
    @FunctionalInterface
    public interface Content {
        void writeTo(Path file) throws IOException;
    }

    /**
     * Writes {@code target} through a {@linkplain #temporaryFor temporary file} and {@linkplain #commit
     * commits} it: a run stopped half-way, or a {@code content} that throws, leaves {@code target} as it was.
     */
    public static void write(Path target, boolean replace, Content content) throws IOException {
        Path tmp = temporaryFor(target);
        try {
            content.writeTo(tmp);
            commit(tmp, target, replace);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Whether anything is at {@code path}, a broken symbolic link included. */
    public static boolean taken(Path path) {
        return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
    }

    /** Whether {@code a} and {@code b} both exist and are the same file (links and relative names resolved). */
    public static boolean sameFile(Path a, Path b) {
        try {
            return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }
}
