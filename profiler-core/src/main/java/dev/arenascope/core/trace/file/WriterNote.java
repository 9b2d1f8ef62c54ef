package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The note an {@link AstraceWriter} leaves beside the file it writes, {@code FILE.writing}: two lines,
 * {@code pid N} and {@code started ISO-INSTANT} (the writing process's start, to tell a reused process id
 * apart). It is written when the writer opens the file and removed when the writer closes it, so a
 * reader can tell a file that is still being written (the note names a process that is running) from
 * one whose recording was cut short (no note, or a note whose process is gone: a crash).
 *
 * <p>Processes are looked up on this machine: a file on a shared disk written from another machine reads
 * as cut short while it grows. A note that cannot be written is not an error (the recording goes on;
 * readers then take the file for one cut short). Thread-safe: it is a file.
 */
public final class WriterNote {
    /** The note's name beside {@code FILE}: {@code FILE.writing}. */
    public static final String SUFFIX = ".writing";

    private final Path note;

    private WriterNote(Path note) {
        this.note = note;
    }

    /** What a reader finds beside a trace. */
    public enum State {
        /** No note: the file was closed, or was never written by a writer that leaves one. */
        NONE,
        /** The note names a process that is running: the file is still being written. */
        WRITING,
        /** The note names a process that is gone: its recording ended without closing the file. */
        ABANDONED
    }

    /** The note beside {@code trace}. */
    public static Path noteFor(Path trace) {
        return trace.resolveSibling(trace.getFileName() + SUFFIX);
    }

    /** Writes the note for {@code trace} naming this process; null when it cannot be written (logged once). */
    static WriterNote create(Path trace) {
        Path note = noteFor(trace);
        ProcessHandle me = ProcessHandle.current();
        String text = "pid " + me.pid() + "\nstarted " + me.info().startInstant().map(Instant::toString).orElse("unknown") + "\n";
        try {
            Files.writeString(note, text, StandardCharsets.UTF_8);
            return new WriterNote(note);
        } catch (IOException | SecurityException e) {
            Logger.getLogger(WriterNote.class.getName()).fine("cannot write " + note + ": " + e);
            return null;
        }
    }

    void remove() {
        try {
            Files.deleteIfExists(note);
        } catch (IOException | SecurityException e) {
            Logger.getLogger(WriterNote.class.getName()).fine("cannot remove " + note + ": " + e);
        }
    }

    /** Whether {@code trace} is being written now, per its note. Reads at most a small file. */
    public static State check(Path trace) {
        Path note = noteFor(trace);
        String text;
        try {
            if (!Files.isRegularFile(note) || Files.size(note) > 4096) {
                return State.NONE;
            }
            text = Files.readString(note, StandardCharsets.UTF_8);
        } catch (IOException | SecurityException | java.io.UncheckedIOException e) {
            return State.NONE;
        }
        long pid = -1;
        String started = null;
        for (String line : text.split("\n")) {
            if (line.startsWith("pid ")) {
                try {
                    pid = Long.parseLong(line.substring(4).trim());
                } catch (NumberFormatException e) {
                    return State.ABANDONED;
                }
            } else if (line.startsWith("started ")) {
                started = line.substring(8).trim();
            }
        }
        if (pid <= 0) {
            return State.ABANDONED;
        }
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) {
            return State.ABANDONED;
        }
        String s = started;
        boolean sameStart = s == null || s.equals("unknown")
                || p.get().info().startInstant().map(i -> i.toString().equals(s)).orElse(true);
        return sameStart ? State.WRITING : State.ABANDONED;
    }
}
