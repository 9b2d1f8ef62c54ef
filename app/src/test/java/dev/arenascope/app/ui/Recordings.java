package dev.arenascope.app.ui;

import java.nio.file.Path;
import java.util.Map;

import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.record.StackCapture;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.Workloads;

/** Records a sample workload on the virtual device into a trace file, as {@code arenascope record} does. */
public final class Recordings {
    private Recordings() {}

    public static Path record(String workload, Map<String, String> options, Path file) throws Exception {
        return record(workload, options, file, null);
    }

    /** The same with each allocation's call stack captured as {@code stacks} says ({@code record --stacks}); null: none. */
    public static Path record(String workload, Map<String, String> options, Path file, StackCapture stacks) throws Exception {
        Workload w = Workloads.find(workload);
        EventSink out = TraceFormats.output(file).open(file);
        try (Session session = new Session(workload); VirtualDevice device = new VirtualDevice(4L << 30)) {
            if (stacks != null) {
                session.captureStacks(stacks); // before the sink attaches, as the record command does
            }
            session.addSink(out);
            w.run(session, device, w.parse(options), Progress.NONE);
            session.flush();
        }
        return file;
    }
}
