package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.Saturating;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackBounds;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.file.JsonlChunkParser.Bad;
import dev.arenascope.core.trace.file.JsonlChunkParser.Meta;
import dev.arenascope.core.trace.file.JsonlChunkParser.Parsed;
import dev.arenascope.core.trace.file.JsonlChunkParser.Run;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Reads JSON Lines written by {@link JsonlWriter} (or by hand: fixtures) with Jackson's streaming
 * parser, delivering to any {@link EventSink} in file order.
 *
 * <p>The file is cut into chunks of {@value #CHUNK} bytes, each holding the lines that start in it;
 * on a machine with more than one core the chunks are parsed on worker threads
 * ({@link JsonlChunkParser}, one Jackson parser per chunk) and by the calling thread while it waits,
 * and the calling thread delivers the parsed chunks in order, so the sink sees exactly what a single
 * pass would give it (on the calling thread), and every problem names its exact line.
 *
 * <p>Bad input: a line that is not JSON, not an object, or not an event or metadata record (unknown
 * kind, a value out of range, a missing {@code t} or {@code kind}, a value that goes on past its
 * line), an event on a memory no {@code "memory"} line declared before it, or one whose {@code ref}
 * names a string no {@code "string"} line declared before it (for the kinds whose {@code ref} is a
 * string id, {@link EventKind#refIsString()}), whose {@code site} names a {@code "stack"} not declared
 * before it or whose {@code cat} names an undeclared string, a {@code "frame"} or {@code "stack"} line
 * whose id skips ahead or repeats another with different contents, is skipped and recorded in the {@link ReadReport} as
 * {@code file:LINE: what}; every sound line is kept. A line with a syntax error is parsed again on its
 * own (for its sound values and Jackson's message) and parsing resumes at the next line, so one broken
 * line never hides the rest. Jackson's stream limits bound string and number lengths and nesting, a
 * line longer than {@value #MAX_LINE} bytes is skipped as a problem, and at most {@value #READ_AHEAD}
 * chunks are in memory at once, so no file can exhaust memory.
 *
 * <p>Thread-safety: each call reads on its own; the sink is only called from the calling thread.
 */
public final class JsonlReader {
    /** Bytes of file a chunk covers (it parses the lines that start in them, the last one to its end). */
    static final int CHUNK = 1 << 19;
    /** The longest line read; a longer one is a problem on its line. */
    static final int MAX_LINE = 1 << 24;
    private static final int MAX_PROBLEMS = 8;
    /** Chunks parsed ahead of the one being delivered (so a thread preempted on a busy machine does not stall the rest). */
    static final int READ_AHEAD = 16;
    /** Below this size the file is parsed on the calling thread alone. */
    private static final long PARALLEL_FROM = 4L * CHUNK;
    /**
     * The deepest stack a {@code "stack"} line may declare, in frames: a chain K deep costs every
     * consumer of whole stacks (folded output, CSV cells, the site tree) K frames per site, so a forged
     * chain must not be allowed to square the input's size. Real stacks (Python's default recursion
     * limit is 1000) fit.
     */
    public static final int MAX_STACK_DEPTH = StackBounds.MAX_STACK_DEPTH;
    /** Declared string ids below this are kept in a bit set, the rest (forged ones) in a hash set. */
    private static final int DENSE_STRING_IDS = 1 << 20;

    private final String source;
    /** The session's name when the input has no session line (the file's name). */
    private final String defaultName;
    private final EventSink sink;
    private final List<String> problems = new ArrayList<>();
    /** Chunk buffers and event runs handed back for the next chunks (the reader allocates per chunk in flight, not per chunk). */
    private final Queue<byte[]> buffers = new ConcurrentLinkedQueue<>();
    private final Queue<Run> runs = new ConcurrentLinkedQueue<>();
    private final boolean[] memoryDeclared = new boolean[EventBatch.MAX_MEMORY_ID + 1];
    /** Per declared memory, its kind's ordinal (a memory declared again must keep its kind). */
    private final byte[] memoryKinds = new byte[EventBatch.MAX_MEMORY_ID + 1];
    /** Per declared stack node, its depth in frames (so a chain's bound is checked in constant time a node). */
    private int[] stackDepths = new int[64];
    private int stackDepthCount;
    private final BitSet stringDeclared = new BitSet();
    /** Frames and stacks declared so far, checked as the store checks them (dense ids, in order). */
    private final SiteTable declaredSites = new SiteTable();
    private final Set<Integer> otherStringsDeclared = new HashSet<>();
    private int problemCount;
    private long events;
    private long lines;       // sound lines
    private long lineBase;    // lines before the chunk being delivered
    private long lost;
    private boolean sessionDelivered;

    private JsonlReader(Path path, EventSink sink) {
        this(path.toString(), path.getFileName().toString(), sink);
    }

    /** A reader fed blocks of whole lines by {@link JsonlStreamReader} (a stream, not a file). */
    JsonlReader(String source, String defaultName, EventSink sink) {
        this.source = source;
        this.defaultName = defaultName;
        this.sink = sink;
    }

    /** Parses and delivers {@code buf[from, to)}, whole lines, following the lines delivered before. */
    void deliverLines(byte[] buf, int from, int to) {
        deliver(new JsonlChunkParser(buf, from, to, runs).parse());
    }

    /** Delivers the default session when the input had none; returns the read's report (no {@code onClose}). */
    ReadReport finishStream(long bytes) {
        if (!sessionDelivered) {
            deliverDefaultSession();
        }
        return new ReadReport(source, events, lines, "lines", bytes, -1, lost, problemCount, problems);
    }

    long eventsDelivered() {
        return events;
    }

    long lostReported() {
        return lost;
    }

    List<String> finishStreamProblems() {
        return List.copyOf(problems);
    }

    /** Reads a whole file into {@code sink} (ending with {@code onClose}). */
    public static ReadReport read(Path path, EventSink sink) throws IOException {
        return read(path, sink, CHUNK, -1);
    }

    /**
     * Reads a whole file in chunks of {@code chunkBytes} on {@code workers} threads (0: the calling thread
     * alone; -1: as many as suit the file and the machine). The result does not depend on either.
     */
    static ReadReport read(Path path, EventSink sink, int chunkBytes, int workers) throws IOException {
        JsonlReader r = new JsonlReader(path, sink);
        long size;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            size = ch.size();
            r.run(ch, size, chunkBytes, workers < 0 ? workers(size) : workers);
        }
        if (!r.sessionDelivered) {
            r.deliverDefaultSession();
        }
        sink.onClose();
        return new ReadReport(r.source, r.events, r.lines, "lines", size, -1, r.lost, r.problemCount, r.problems);
    }

    /** Reads a whole file into a new store. */
    public static LoadedTrace load(Path path) throws IOException {
        EventStore store = new EventStore(path.getFileName().toString());
        return new LoadedTrace(store, read(path, store));
    }

    /**
     * Worker threads for a file of this size: none for small files or a single core, else one fewer
     * than the cores (the calling thread parses too while it waits), at most three.
     */
    private static int workers(long size) {
        int cores = Runtime.getRuntime().availableProcessors();
        return size < PARALLEL_FROM || cores < 2 ? 0 : Math.min(cores - 1, 3);
    }

    private void run(FileChannel ch, long size, int chunkBytes, int workers) throws IOException {
        long chunks = (size + chunkBytes - 1) / chunkBytes;
        if (workers == 0) {
            for (long k = 0; k < chunks; k++) {
                deliver(chunk(ch, size, chunkBytes, k));
            }
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(workers, task -> {
            Thread t = new Thread(task, "arenascope-jsonl-parse");
            t.setDaemon(true);
            return t;
        });
        try {
            ArrayDeque<FutureTask<Parsed>> inFlight = new ArrayDeque<>();
            int window = READ_AHEAD;
            long next = 0;
            while (next < chunks || !inFlight.isEmpty()) {
                while (next < chunks && inFlight.size() < window) {
                    long k = next++;
                    FutureTask<Parsed> task = new FutureTask<>(() -> chunk(ch, size, chunkBytes, k));
                    inFlight.add(task);
                    pool.execute(task);
                }
                FutureTask<Parsed> head = inFlight.poll();
                // while the next chunk in order is not parsed, parse the first one nobody has started (run()
                // does nothing to a task another thread runs or ran), so no thread of ours idles on a busy machine
                for (var it = inFlight.iterator(); !head.isDone(); ) {
                    head.run();
                    if (head.isDone() || !it.hasNext()) {
                        break;
                    }
                    it.next().run();
                }
                deliver(await(head));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Parsed await(Future<Parsed> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading JSON lines");
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case IOException io -> throw io;
                case RuntimeException re -> throw re;
                case Error err -> throw err;
                default -> throw new IOException(e.getCause());
            }
        }
    }

    /**
     * Reads and parses chunk {@code k}: the lines that start in bytes {@code [k*chunk, (k+1)*chunk)} of
     * the file, the last of them read on to its newline. Every line starts in exactly one chunk, so the
     * chunks' line counts add up to the file's. Thread-safe (positional reads only).
     */
    private Parsed chunk(FileChannel ch, long size, int chunk, long k) throws IOException {
        long from = k * chunk;
        long to = Math.min(size, from + chunk);
        long base = from == 0 ? 0 : from - 1;   // from the byte before, to see whether a line starts at from
        int n = (int) (to - base);
        if (size <= chunk) {
            return chunk(ch, size, chunk, new byte[n], from, to, base, n);  // a small file: one exact buffer
        }
        int standard = chunk + 1 + (1 << 14);   // the chunk, the byte before it, room to read on to a newline
        byte[] buf = buffers.poll();
        if (buf == null) {
            buf = new byte[standard];
        }
        try {
            return chunk(ch, size, chunk, buf, from, to, base, n);
        } finally {
            buffers.offer(buf); // a buffer grown for a long line is a new array, left to the collector
        }
    }

    private Parsed chunk(FileChannel ch, long size, int chunk, byte[] buf, long from, long to, long base, int n) throws IOException {
        n = readAt(ch, buf, 0, n, base);
        int start = 0;
        if (from > 0) {
            start = indexOf(buf, 0, n) + 1;
            if (start == 0) {
                return new Parsed(); // inside a line that started before
            }
        }
        int end = n;
        if (n > 0 && base + n < size && buf[n - 1] != '\n') {
            // the chunk's last line goes on past it: read on to its newline
            int tail = Math.max(start, lastIndexOf(buf, start, n) + 1);
            boolean whole = false;
            while (!whole && end - tail <= MAX_LINE) {
                if (end == buf.length) {
                    buf = Arrays.copyOf(buf, (int) Math.min((long) buf.length * 2, tail + MAX_LINE + 2L)); // room for a line one byte too long
                }
                int got = readAt(ch, buf, end, buf.length - end, base + end);
                if (got == 0) {
                    break; // the file ends: its last line has no newline
                }
                int nl = indexOf(buf, end, end + got);
                end = nl >= 0 ? nl + 1 : end + got;
                whole = nl >= 0;
            }
            if (end - tail > MAX_LINE) {
                Parsed p = new JsonlChunkParser(buf, start, tail, runs).parse();
                p.lines++;
                p.items.add(new Bad(p.lines, "line longer than " + (MAX_LINE >> 20) + " MiB"));
                return p;
            }
        }
        return new JsonlChunkParser(buf, start, end, runs).parse();
    }

    /** Reads up to {@code len} bytes at {@code position} into {@code buf[off...]}; fewer only at the end of the file. */
    private static int readAt(FileChannel ch, byte[] buf, int off, int len, long position) throws IOException {
        ByteBuffer bb = ByteBuffer.wrap(buf, off, len);
        while (bb.hasRemaining()) {
            int r = ch.read(bb, position + (bb.position() - off));
            if (r < 0) {
                break;
            }
        }
        return bb.position() - off;
    }

    private static int indexOf(byte[] buf, int from, int to) {
        for (int i = from; i < to; i++) {
            if (buf[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static int lastIndexOf(byte[] buf, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            if (buf[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private void problem(long line, String what) {
        problemCount++;
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(source + ":" + line + ": " + what);
        }
    }

    /** Delivers one chunk's records in order, checking what depends on the lines before. */
    private void deliver(Parsed parsed) {
        lines += parsed.soundLines;
        for (Object item : parsed.items) {
            switch (item) {
                case Run run -> {
                    deliverRun(run);
                    run.batch().clear();
                    runs.offer(run); // the sink has taken what it keeps of the batch
                }
                case Meta m -> {
                    String err = meta(m);
                    if (err != null) {
                        lines--;
                        problem(lineBase + m.line(), err);
                    }
                }
                case Bad bad -> problem(lineBase + bad.line(), bad.what());
                default -> throw new IllegalStateException("unknown item " + item);
            }
        }
        lineBase += parsed.lines;
    }

    private void deliverRun(Run run) {
        if (!sessionDelivered) {
            deliverDefaultSession();
        }
        EventBatch b = run.batch();
        int n = b.size();
        int i = 0;
        while (i < n && undeclared(b, i) == null) {
            i++;
        }
        if (i == n) {
            sink.onEvents(b);
            events += n;
            return;
        }
        EventBatch kept = new EventBatch(n);
        for (int j = 0; j < n; j++) {
            String err = undeclared(b, j);
            if (err == null) {
                kept.addFrom(b, j);
            } else {
                lines--;
                problem(lineBase + run.lines()[j], err);
            }
        }
        if (!kept.isEmpty()) {
            sink.onEvents(kept);
            events += kept.size();
        }
    }

    /** Why event {@code i} refers to something not declared before it, or null. */
    private String undeclared(EventBatch b, int i) {
        int mem = b.memory(i);
        if (mem >= 0 && !memoryDeclared[mem]) {
            return "memory " + mem + " is not declared (no \"memory\" line with \"id\":" + mem + " before this event)";
        }
        int ref = b.ref(i);
        if (ref != -1 && REF_IS_STRING[b.kindCode(i)] && !stringDeclared(ref)) {
            return "string " + ref + " is not declared (no \"string\" line with \"id\":" + ref + " before this "
                    + b.kind(i) + " event's 'ref')";
        }
        if (b.hasSites()) {
            int site = b.site(i);
            if (site >= declaredSites.nodeCount()) {
                return "stack " + site + " is not declared (no \"stack\" line with \"id\":" + site + " before this event's 'site')";
            }
            int cat = b.category(i);
            if (cat != -1 && !stringDeclared(cat)) {
                return "string " + cat + " is not declared (no \"string\" line with \"id\":" + cat + " before this event's 'cat')";
            }
        }
        return null;
    }

    private static final boolean[] REF_IS_STRING = new boolean[256];

    static {
        for (EventKind k : EventKind.values()) {
            REF_IS_STRING[k.code()] = k.refIsString();
        }
    }

    private boolean stringDeclared(int id) {
        return id >= 0 && id < DENSE_STRING_IDS ? stringDeclared.get(id) : otherStringsDeclared.contains(id);
    }

    /** Delivers a metadata record; returns why it cannot be, or null. */
    private String meta(Meta m) {
        String name = m.name() == null ? "" : m.name();
        switch (m.type()) {
            case "session" -> {
                if (sessionDelivered) {
                    return "a second session line";
                }
                sessionDelivered = true;
                sink.onSession(new SessionInfo(name, m.host() == null ? "" : m.host(), m.startNs(), m.devices(), m.attributes()));
            }
            case "memory" -> {
                ensureSession();
                int id = (int) m.id();
                MemoryKind kind = JsonlValues.memoryKind(m.kind());
                if (memoryDeclared[id] && memoryKinds[id] != kind.ordinal()) {
                    return "memory " + id + " declared again as " + kind + " (it is "
                            + MemoryKind.values()[memoryKinds[id]] + "): one id, one memory";
                }
                memoryDeclared[id] = true;
                memoryKinds[id] = (byte) kind.ordinal();
                sink.onMemory(new MemoryInfo(id, name, kind, m.device() == null ? "" : m.device(), m.capacity(), m.attributes()));
            }
            case "string" -> {
                ensureSession();
                int id = (int) m.id();
                if (id >= 0 && id < DENSE_STRING_IDS) {
                    stringDeclared.set(id);
                } else {
                    otherStringsDeclared.add(id);
                }
                sink.onString(id, m.value());
            }
            case "thread" -> {
                ensureSession();
                sink.onThread((int) m.id(), name);
            }
            case "loss" -> {
                ensureSession();
                lost = Saturating.add(lost, m.count());
                sink.onLoss(m.count());
            }
            case "frame" -> {
                ensureSession();
                StackFrame f = new StackFrame((int) m.id(), m.function(), m.file(), (int) m.codeLine(), (int) m.flags());
                try {
                    declaredSites.add(f);
                } catch (IllegalArgumentException e) {
                    return e.getMessage();
                }
                sink.onFrame(f);
            }
            case "stack" -> {
                ensureSession();
                StackNode n = new StackNode((int) m.id(), (int) m.frame(), (int) m.parent());
                int depth = n.parent() < 0 ? 1 : n.parent() < stackDepthCount ? stackDepths[n.parent()] + 1 : 1;
                if (depth > MAX_STACK_DEPTH && n.id() >= declaredSites.nodeCount()) {
                    return "stack " + n.id() + " is " + depth + " frames deep, more than the " + MAX_STACK_DEPTH + " a stack may have";
                }
                try {
                    declaredSites.add(n);
                } catch (IllegalArgumentException e) {
                    return e.getMessage();
                }
                if (n.id() == stackDepthCount) {
                    if (stackDepthCount == stackDepths.length) {
                        stackDepths = Arrays.copyOf(stackDepths, stackDepths.length * 2);
                    }
                    stackDepths[stackDepthCount++] = depth;
                }
                sink.onStack(n);
            }
            default -> throw new IllegalStateException("unchecked record type " + m.type());
        }
        return null;
    }

    private void ensureSession() {
        if (!sessionDelivered) {
            deliverDefaultSession();
        }
    }

    private void deliverDefaultSession() {
        sessionDelivered = true;
        sink.onSession(new SessionInfo(defaultName, "", 0, List.of(), Map.of()));
    }
}
