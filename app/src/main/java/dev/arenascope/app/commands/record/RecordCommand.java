package dev.arenascope.app.commands.record;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.app.info.AppInfo;
import dev.arenascope.app.info.ExitCodes;
import dev.arenascope.core.device.DeviceOutOfMemoryException;
import dev.arenascope.core.device.DeviceUnavailableException;
import dev.arenascope.core.device.Devices;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.record.StackCapture;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.file.AstraceFormat;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.file.OutputFiles;
import dev.arenascope.core.trace.file.RingCap;
import dev.arenascope.core.trace.file.RingWindow;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.WorkloadOption;
import dev.arenascope.workloads.WorkloadOptions;
import dev.arenascope.workloads.WorkloadResult;
import dev.arenascope.workloads.Workloads;

/**
 * {@code arenascope record WORKLOAD}: runs a sample workload on a device and records its events to an
 * {@code .astrace} file and/or a live ArenaScope. Shows progress (events, events/s, bytes in use) on
 * stderr while it is a terminal, and always ends with one summary line: device, events, peak bytes,
 * file.
 */
public final class RecordCommand implements Command {

    @Override
    public String name() {
        return "record";
    }

    @Override
    public String summary() {
        return "run a sample workload (" + Workloads.names() + ") and record its trace";
    }

    @Override
    public String usage() {
        StringBuilder sb = new StringBuilder("""
                Usage: arenascope record WORKLOAD [--device auto|cuda[:N]|host|virtual[:BYTES]]
                                         [--out FILE.astrace] [--live HOST:PORT]
                                         [--max-size BYTES] [--max-duration TIME]
                                         [--stacks [--stack-depth N] [--sample-every N | --sample-bytes BYTES]]
                                         [workload options]

                Runs a sample workload that does real work on the chosen device and records every
                allocation. With neither --out nor --live the trace goes to WORKLOAD-DATE-TIME.astrace in
                the working directory (WORKLOAD-DATE-TIME-1.astrace, -2, ... when that name is taken:
                no run writes over another's file).

                  --device NAME     auto (CUDA when a device answers, else host; default), cuda, cuda:N,
                                    host, or virtual (accounting only, no bytes)
                  --out FILE        the trace file to write (.astrace, .jsonl, ...); refused when it
                                    exists, unless --force
                  --force           replace --out when it exists (the new trace is written beside it
                                    and moved over it once closed)
                  --live HOST:PORT  stream the events to a running ArenaScope as well (its token, when
                                    it wants one, from ARENASCOPE_TOKEN)
                  --stacks          record each allocation's call stack (its site; see arenascope sites)
                  --stack-depth N   frames kept per stack [32]
                  --sample-every N  walk only every Nth allocation's stack
                  --sample-bytes B  walk stacks at random byte intervals of mean B (e.g. 64KiB), per thread
                  --max-size BYTES  keep the .astrace file under BYTES (e.g. 2GiB; at least 8MiB): the
                                    oldest chunks are dropped whole, a ring of chunks, and what was
                                    dropped is counted in the trace (stats, report and the window say it)
                  --max-duration T  keep only the last T of the session (e.g. 8h, 90min, 1h30m; at least
                                    1s), dropping older chunks the same way; both may be given

                Exit status: 0 when every event reached every output; 5 when the workload ran but some
                events did not (the disk filled: the file is readable to its last whole chunk; the live
                receiver refused the stream or was not there), with one line saying how many were
                written or delivered and how many lost; 2 for bad arguments (a --max-size of 0, below
                8MiB or not a size, a --max-duration that is not a time, a cap without an .astrace file).

                Workloads and their options (defaults in brackets):
                """);
        for (Workload w : Workloads.all()) {
            sb.append("\n  ").append(w.name()).append(": ").append(w.summary()).append('\n');
            for (WorkloadOption o : w.options()) {
                sb.append(String.format(Locale.ROOT, "    --%-16s %s [%s]%n", o.name(), o.help(), o.defaultValue()));
            }
        }
        return sb.toString();
    }

    @Override
    public int run(List<String> argv, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args("record", argv, Set.of("stacks", "force"));
        if (a.positionals().isEmpty()) {
            throw new UsageException("record: which workload? (" + Workloads.names() + ")");
        }
        if (a.positionals().size() > 1) {
            throw new UsageException("record: unexpected argument '" + a.positionals().get(1) + "'");
        }
        Workload workload;
        try {
            workload = Workloads.find(a.positionals().getFirst());
        } catch (IllegalArgumentException e) {
            throw new UsageException("record: " + e.getMessage());
        }
        String deviceSpec = a.string("device", "auto");
        String outName = a.string("out", null);
        String live = a.string("live", null);
        boolean force = a.flag("force");
        StackCapture capture = stackCapture(a);
        RingCap cap;
        try {
            cap = RingCap.parseOptions(a.string("max-size", null), a.string("max-duration", null));
        } catch (IllegalArgumentException e) {
            throw new UsageException("record: " + e.getMessage());
        }
        WorkloadOptions options;
        try {
            options = workload.parse(a.unread());
        } catch (IllegalArgumentException e) {
            throw new UsageException("record: " + e.getMessage());
        }
        a.finish();
        LiveTarget liveTarget = live == null ? null : LiveTarget.parse(live);
        Path file = outName != null ? Path.of(outName)
                : liveTarget == null ? Path.of(workload.name() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + ".astrace")
                : null;
        if (file != null) {
            // a name given is never an earlier run's file unless --force says so; a made-up one is numbered below
            FileArgs.output("record", "--out", file.toString(), force || outName == null);
        }
        if (file != null && TraceFormats.output(file) == null) {
            // checked before the device opens and the workload runs, not after
            throw new UsageException("record: --out " + file + ": unknown trace format (writable: " + TraceFormats.outputExtensions() + ")");
        }
        if (cap != null && file == null) {
            throw new UsageException("record: --max-size and --max-duration cap a trace file: give --out FILE.astrace as well as --live");
        }
        if (cap != null && !TraceFormats.extension(file).equals(AstraceFormat.EXTENSION)) {
            throw new UsageException("record: --max-size and --max-duration cap .astrace files only, not " + file
                    + " (record to FILE.astrace and convert the kept window)");
        }

        Devices.Selection selection;
        Logger devicesLog = Logger.getLogger(Devices.class.getName());
        Level level = devicesLog.getLevel();
        devicesLog.setLevel(Level.WARNING); // the choice is said once below, not as a log record
        try {
            selection = Devices.open(deviceSpec);
        } catch (IllegalArgumentException | DeviceUnavailableException e) {
            throw new UsageException("record: --device: " + e.getMessage());
        } finally {
            devicesLog.setLevel(level);
        }
        if (deviceSpec.trim().equalsIgnoreCase("auto")) {
            err.println("arenascope record: " + selection.reason());
        }
        boolean terminal = stderrIsTerminal();
        try (MemoryDevice device = selection.device(); Session session = new Session(workload.name())) {
            session.putAttribute("tool", AppInfo.tool());
            session.putAttribute("workload", workload.name());
            session.putAttribute("command", "arenascope record " + String.join(" ", argv));
            session.putAttribute("device.reason", selection.reason());
            session.captureStacks(capture); // before any sink attaches: the sampling note is a session attribute
            session.addDevice(device.info());
            RecordingMeter meter = new RecordingMeter();
            session.addSink(meter);
            Path replacing = null;
            if (file != null && outName == null) {
                // a name made up here: created exclusively, numbered when an earlier run or a run started in the
                // same second has it (never two writers on one file)
                file = OutputFiles.createNew(file);
            } else if (file != null && force && OutputFiles.taken(file)) {
                // --force over an earlier file: written beside it and moved over it once closed, so the old
                // file stays whole until the new one is
                replacing = OutputFiles.temporaryFor(file);
            } else if (file != null) {
                Files.createFile(file); // exclusively: a file that appeared since the check is not truncated
            }
            Path writing = replacing != null ? replacing : file;
            EventSink fileSink = file == null ? null : TraceOutputs.fileSink(writing, file, cap);
            if (fileSink != null) {
                session.addSink(fileSink);
            }
            EventSink liveSink = liveTarget == null ? null : TraceOutputs.liveSink(liveTarget, workload.name());
            if (liveSink != null) {
                session.addSink(liveSink);
            }
            ProgressLine line = new ProgressLine(meter, err, terminal);
            // Ctrl-C or a TERM (the only way to end '--frames 0: until cancelled'): stop at the next step
            // boundary, close the trace with its footer and print the summary before the JVM exits
            CountDownLatch finished = new CountDownLatch(1);
            Thread onSignal = new Thread(() -> {
                line.stop = true;
                try {
                    finished.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "arenascope-record-stop");
            Runtime.getRuntime().addShutdownHook(onSignal);
            try {
                return recordAndSummarise(workload, session, device, options, line, meter, fileSink, liveSink, file, replacing,
                        liveTarget, out);
            } finally {
                finished.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(onSignal);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running: it returns now that the trace is closed
                }
            }
        }
    }

    /** The stack capture the options ask for, or null without {@code --stacks}. */
    private static StackCapture stackCapture(Args a) {
        boolean stacks = a.flag("stacks");
        int depth = a.intValue("stack-depth", 32);
        long every = a.longValue("sample-every", 0);
        long bytes = a.has("sample-bytes") ? a.bytes("sample-bytes", 0) : 0;
        if (!stacks) {
            for (String o : new String[] {"stack-depth", "sample-every", "sample-bytes"}) {
                if (a.has(o)) {
                    throw new UsageException("record: --" + o + " goes with --stacks");
                }
            }
            return null;
        }
        if (every != 0 && bytes != 0) {
            throw new UsageException("record: give --sample-every or --sample-bytes, not both");
        }
        try {
            if (every != 0) {
                if (every > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("--sample-every must be at most " + Integer.MAX_VALUE + ", got " + every);
                }
                return StackCapture.everyNth((int) every, depth);
            }
            return bytes != 0 ? StackCapture.everyBytes(bytes, depth)
                    : StackCapture.all(depth);
        } catch (IllegalArgumentException e) {
            throw new UsageException("record: " + e.getMessage());
        }
    }

    private static int recordAndSummarise(Workload workload, Session session, MemoryDevice device, WorkloadOptions options,
                                          ProgressLine line, RecordingMeter meter, EventSink fileSink, EventSink liveSink,
                                          Path file, Path replacing, LiveTarget liveTarget, PrintStream out) throws IOException {
        WorkloadResult result;
        boolean failed = true;
        String fileProblem = null;
        try {
            result = workload.run(session, device, options, line);
            failed = false;
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith(workload.name() + ": ")) {
                throw new UsageException("record: " + e.getMessage()); // an option out of range
            }
            throw e;
        } catch (DeviceOutOfMemoryException e) {
            // the device given is too small for the workload as configured: the user's choice, not a fault
            throw new UsageException("record: " + workload.name() + ": " + e.getMessage()
                    + " (give a larger --device or smaller workload options)");
        } finally {
            session.flush();
            line.clear();
            if (fileSink != null) {
                try {
                    session.removeSink(fileSink); // flushes and closes the file: what was recorded stays
                } catch (UncheckedIOException e) {
                    fileProblem = e.getMessage(); // a full disk: said below with the counts
                }
                RuntimeException detached = session.sinkFailure(fileSink);
                if (fileProblem == null && detached != null) {
                    fileProblem = detached.getMessage() + "; " + meter.events() + " events recorded, the file holds those"
                            + " written before the failure";
                }
                if (replacing != null) {
                    if (failed && meter.events() == 0) {
                        Files.deleteIfExists(replacing); // nothing recorded: the earlier file stays
                    } else {
                        OutputFiles.commit(replacing, file, true);
                    }
                } else if (failed && fileProblem == null) {
                    keepOrDrop(file, meter.events(), line.err);
                }
            }
            if (liveSink != null) {
                session.removeSink(liveSink);
            }
        }
        if (fileProblem != null) {
            line.err.println("arenascope record: " + fileProblem);
            return ExitCodes.INCOMPLETE;
        }
        var peak = meter.largestPeak();
        String where = file == null ? "" : " -> " + file + " (" + Bytes.format(Files.size(file)) + ")";
        RingWindow ring = fileSink instanceof AstraceWriter w ? w.ringWindow() : null;
        if (ring != null) {
            where += "; " + ring.summary();
        }
        String liveText = "";
        String liveProblem = null;
        if (liveSink instanceof LiveSender sender) {
            var st = sender.stats();
            long lostLive = st.droppedEvents() + st.upstreamLost();
            liveText = " streamed to " + liveTarget + " (" + st.deliveredEvents() + " delivered, " + lostLive + " lost)";
            if (lostLive > 0 || sender.refused() || st.deliveredEvents() < sender.handedEvents()) {
                liveProblem = "live " + liveTarget + ": " + st.deliveredEvents() + " of " + sender.handedEvents()
                        + " events delivered, " + lostLive + " lost" + (st.lastError() == null ? "" : " (" + st.lastError() + ")");
            }
        }
        String lostText = meter.lost() > 0 ? ", " + meter.lost() + " events lost" : "";
        out.println(workload.name() + " on " + device.info().id() + ": " + meter.events() + " events" + lostText
                + ", peak " + (peak == null ? "0 B" : Bytes.format(peak.getValue()) + " (" + peak.getKey().name() + ")")
                + "; " + result.summary() + where + liveText);
        if (liveProblem != null) {
            line.err.println("arenascope record: " + liveProblem);
            return ExitCodes.INCOMPLETE;
        }
        return ExitCodes.OK;
    }

    /**
     * After a failed run: a trace with no events says nothing and only litters the directory, so it is
     * removed; one with events is kept (nothing recorded is lost) and the user is told where it is.
     */
    private static void keepOrDrop(Path file, long events, PrintStream err) {
        try {
            if (events == 0) {
                Files.deleteIfExists(file);
            } else {
                err.println("arenascope record: the " + events + " events recorded before the failure are in " + file);
            }
        } catch (IOException e) {
            err.println("arenascope record: could not remove the empty trace " + file + ": " + e.getMessage());
        }
    }

    /**
     * Whether file descriptor 2 is a terminal: libc's {@code isatty(2)} through the foreign function
     * API where there is one, else whether the JVM has an interactive console.
     */
    static boolean stderrIsTerminal() {
        try {
            var linker = Linker.nativeLinker();
            var isatty = linker.defaultLookup().find("isatty");
            if (isatty.isPresent()) {
                var handle = linker.downcallHandle(isatty.get(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
                return (int) handle.invokeExact(2) == 1;
            }
        } catch (Throwable e) {
            // no native access: fall back to the console
        }
        return System.console() != null && System.console().isTerminal();
    }

    /** HOST:PORT of a listening ArenaScope. */
    record LiveTarget(String host, int port) {
        static LiveTarget parse(String text) {
            int colon = text.lastIndexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                throw new UsageException("record: --live expects HOST:PORT, got '" + text + "'");
            }
            int port;
            try {
                port = Integer.parseInt(text.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new UsageException("record: --live: bad port in '" + text + "'");
            }
            if (port < 1 || port > 65535) {
                throw new UsageException("record: --live: port " + port + " is outside 1..65535");
            }
            return new LiveTarget(text.substring(0, colon), port);
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    /** Progress on stderr: one rewritten line a quarter second while stderr is a terminal. */
    private static final class ProgressLine implements Progress {
        private final RecordingMeter meter;
        final PrintStream err;
        private final boolean terminal;
        private final long start = System.nanoTime();
        private long lastDraw;
        private boolean drawn;
        /** Set by the signal hook: the workload stops at its next step boundary. */
        volatile boolean stop;

        ProgressLine(RecordingMeter meter, PrintStream err, boolean terminal) {
            this.meter = meter;
            this.err = err;
            this.terminal = terminal;
        }

        @Override
        public boolean isCancelled() {
            return stop;
        }

        @Override
        public void update(long done, long total, String stage) {
            if (!terminal) {
                return;
            }
            long now = System.nanoTime();
            if (now - lastDraw < 250_000_000L) {
                return;
            }
            lastDraw = now;
            double secs = Math.max(1e-9, (now - start) / 1e9);
            long events = meter.events();
            String of = total > 0 ? "/" + total : "";
            err.print(String.format(Locale.ROOT, "\r%s %d%s  %,d events  %,.0f events/s  %s in use   ",
                    stage, done, of, events, events / secs, Bytes.format(meter.usedNow())));
            err.flush();
            drawn = true;
        }

        void clear() {
            if (drawn) {
                err.print("\r" + " ".repeat(100) + "\r");
                err.flush();
            }
        }
    }
}
