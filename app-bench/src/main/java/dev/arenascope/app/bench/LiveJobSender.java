package dev.arenascope.app.bench;

import java.util.Locale;
import java.util.Map;

import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.Workloads;

/**
 * One Java rank of {@link LiveJobProbe}'s live job, a process of its own: a {@link Session} named
 * {@code ARGS[1]} streams through a {@link LiveSender} to {@code ARGS[0]} (HOST:PORT) while the particles
 * workload runs {@code ARGS[2]} steps on a virtual device; every {@code ARGS[3]} steps the session marks a
 * {@code ProfilerStep#k} and pauses {@code ARGS[4]} ms, as a training process streams step after step.
 * Prints one line, {@code events=N delivered=D lost=L pid=P}: N the events the session handed to the
 * sender, D those the receiver acknowledged; exit 0 when all were delivered, 5 otherwise.
 */
public final class LiveJobSender {
    private LiveJobSender() {}

    public static void main(String[] args) throws Exception {
        String target = args[0];
        String name = args[1];
        int steps = Integer.parseInt(args[2]);
        int every = Integer.parseInt(args[3]);
        long pauseMs = Long.parseLong(args[4]);
        Workload w = Workloads.find("particles");
        LiveSender sender;
        try (Session session = new Session(name); VirtualDevice device = new VirtualDevice(1L << 30)) {
            sender = LiveSender.stream(session, target, null);
            Progress paced = (done, total, stage) -> {
                if (done % every == 0 && done < total) {
                    session.publish(EventKind.MARKER, 0, -1, 0, 0, 0, 0, 0, session.intern("ProfilerStep#" + done / every), -1);
                    if (pauseMs > 0) {
                        session.flush();
                        try {
                            Thread.sleep(pauseMs);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            };
            session.publish(EventKind.MARKER, 0, -1, 0, 0, 0, 0, 0, session.intern("ProfilerStep#0"), -1);
            w.run(session, device, w.parse(Map.of("steps", Integer.toString(steps))), paced);
            session.flush();
            session.removeSink(sender); // sends what is queued, says goodbye
        }
        LiveSender.Stats st = sender.stats();
        System.out.printf(Locale.ROOT, "events=%d delivered=%d lost=%d pid=%d%n", sender.handedEvents(), st.deliveredEvents(),
                st.droppedEvents() + st.upstreamLost(), ProcessHandle.current().pid());
        System.out.flush();
        System.exit(st.deliveredEvents() == sender.handedEvents() && st.droppedEvents() == 0 ? 0 : 5);
    }
}
