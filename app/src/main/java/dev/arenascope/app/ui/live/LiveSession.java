package dev.arenascope.app.ui.live;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import javafx.animation.Animation;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.util.Duration;

import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.task.UiExecutor;
import dev.arenascope.core.device.Devices;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.WorkloadOptions;
import dev.arenascope.workloads.WorkloadResult;

/**
 * A workload running in this process, recorded into an {@link EventStore} the views draw from while
 * it grows. The workload runs on its own thread; {@link #pause()} holds it at its next step boundary,
 * {@link #stop()} cancels it there. The views refresh {@link #REFRESH_HZ} times a second.
 *
 * <p>Control methods are called on the FX thread; state changes are published on it.
 */
public final class LiveSession {
    /** View refreshes per second while running. */
    public static final int REFRESH_HZ = 20;

    /** Where a live session is. */
    public enum State { STARTING, RUNNING, PAUSED, FINISHED, STOPPED, FAILED }

    private final SessionModel model;
    private final UiExecutor ui;
    private final ReadOnlyObjectWrapper<State> state = new ReadOnlyObjectWrapper<>(this, "state", State.STARTING);
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final Object pauseLock = new Object();
    private volatile boolean paused;
    /** Whether the workload thread is held at a step boundary now (set by that thread). */
    private volatile boolean held;
    /** Step boundaries the workload has passed (counted by its thread, after any hold). */
    private final AtomicLong steps = new AtomicLong();
    private Session session;
    private EventStore store;
    private volatile MemoryDevice device;
    private Thread thread;
    private Timeline ticker;

    public LiveSession(SessionModel model, UiExecutor ui) {
        this.model = model;
        this.ui = ui;
    }

    /**
     * Opens the device, attaches a fresh store to a new session, shows it and starts the workload.
     *
     * @param workload  what to run
     * @param deviceSpec {@code auto}, {@code host}, {@code virtual[:BYTES]}, {@code cuda[:N]}
     * @param options   option values by name (checked by the workload)
     * @throws IllegalArgumentException on a bad option or device spec (one line)
     */
    public void start(Workload workload, String deviceSpec, Map<String, String> options) {
        WorkloadOptions parsed = workload.parse(options);
        session = new Session(workload.name() + " (live)");
        store = EventStore.live(workload.name() + " (live)"); // past arenascope.store.spill it goes on out of core
        session.addSink(store);
        model.followLiveProperty().set(true);
        Session clock = session;
        // its axis runs to the session's now: the seconds a workload prepares after creating its memory pass on it
        model.showLive(store, workload.name() + " · live", "opening " + deviceSpec + " …", clock::now);
        state.set(State.RUNNING);
        ticker = new Timeline(new KeyFrame(Duration.millis(1000.0 / REFRESH_HZ), e -> model.refresh()));
        ticker.setCycleCount(Animation.INDEFINITE);
        ticker.play();
        Progress progress = new Progress() {
            @Override
            public void update(long done, long total, String stage) {
                synchronized (pauseLock) {
                    try {
                        while (paused && !cancelled.get()) {
                            held = true;
                            try {
                                pauseLock.wait(200);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                return;
                            }
                        }
                    } finally {
                        held = false;
                    }
                }
                steps.incrementAndGet();
            }

            @Override
            public boolean isCancelled() {
                return cancelled.get();
            }
        };
        thread = new Thread(() -> {
            State end;
            String text;
            try {
                // probing devices can take seconds (a CUDA driver answering): never on the FX thread
                Devices.Selection sel = Devices.open(deviceSpec);
                device = sel.device();
                String deviceName = device.info().label();
                String reason = sel.reason() == null ? "" : sel.reason();
                ui.execute(() -> {
                    model.setDevice(deviceName, workload.name() + " · live on " + device.info().id());
                    message.set(reason);
                });
                WorkloadResult r = workload.run(session, device, parsed, progress);
                end = cancelled.get() ? State.STOPPED : State.FINISHED;
                text = r.summary();
            } catch (RuntimeException | Error e) {
                end = cancelled.get() ? State.STOPPED : State.FAILED;
                text = e.getMessage() == null ? e.toString() : e.getMessage();
            }
            session.flush();
            State fin = end;
            String msg = text;
            ui.execute(() -> finish(fin, msg));
        }, "arenascope-live-" + workload.name());
        thread.setDaemon(true);
        thread.start();
    }

    private void finish(State end, String text) {
        if (ticker != null) {
            ticker.stop();
        }
        session.close();
        try {
            if (device != null) {
                device.close();
            }
        } catch (Exception ignored) {
            // the workload freed its memories; a failing close leaves nothing to recover
        }
        model.refresh();
        model.followLiveProperty().set(false);
        message.set(text);
        state.set(end);
    }

    /** Holds the workload at its next step; views stay live. */
    public void pause() {
        if (state.get() == State.RUNNING) {
            paused = true;
            state.set(State.PAUSED);
        }
    }

    public void resume() {
        if (state.get() == State.PAUSED) {
            synchronized (pauseLock) {
                paused = false;
                pauseLock.notifyAll();
            }
            state.set(State.RUNNING);
        }
    }

    /** Cancels the workload at its next step; the recorded events stay shown. */
    public void stop() {
        cancelled.set(true);
        synchronized (pauseLock) {
            paused = false;
            pauseLock.notifyAll();
        }
    }

    /** Waits up to {@code millis} for the workload thread to end (tests, shutdown). */
    public boolean join(long millis) throws InterruptedException {
        if (thread == null) {
            return true;
        }
        thread.join(millis);
        return !thread.isAlive();
    }

    /**
     * Whether the workload is held at a step boundary by {@link #pause()} now: its thread waits and
     * publishes nothing until {@link #resume()} or {@link #stop()}. Any thread.
     */
    public boolean held() {
        return held;
    }

    /** How many step boundaries the workload has passed so far (none while it is {@link #held()}). Any thread. */
    public long steps() {
        return steps.get();
    }

    public boolean isActive() {
        State s = state.get();
        return s == State.RUNNING || s == State.PAUSED || s == State.STARTING;
    }

    public ReadOnlyObjectProperty<State> stateProperty() {
        return state.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public EventStore store() {
        return store;
    }

    public Session session() {
        return session;
    }
}
