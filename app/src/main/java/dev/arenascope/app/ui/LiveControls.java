package dev.arenascope.app.ui;

import java.util.Locale;

import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.stage.Stage;

import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.live.LiveSession;
import dev.arenascope.app.ui.live.NewSessionDialog;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.task.UiExecutor;
import dev.arenascope.workloads.Workload;

/**
 * The live session in the window: starting one (from the New Live dialog or the last choice), pause,
 * resume and stop, the toolbar's Start/Pause/Stop/Follow buttons and the LIVE badge, and the status
 * line while it runs. At most one live session at a time; FX thread only.
 */
final class LiveControls {
    private final Stage stage;
    private final SessionModel model;
    private final StatusLine status;
    private final WindowDialogs dialogs;
    private final SessionGuard guard;
    final Button startButton = new Button("Start");
    final Button pauseButton = new Button("Pause");
    final Button stopButton = new Button("Stop");
    final ToggleButton followButton = new ToggleButton("Follow");
    final Label badge = new Label("LIVE");
    /** While a live session starts and has drawn nothing yet: what the empty timeline says; "" otherwise. */
    final StringProperty starting = new SimpleStringProperty(this, "starting", "");
    private LiveSession live;
    private NewSessionDialog.Choice lastChoice = NewSessionDialog.Choice.demo();

    LiveControls(Stage stage, SessionModel model, StatusLine status, WindowDialogs dialogs, SessionGuard guard) {
        this.stage = stage;
        this.model = model;
        this.status = status;
        this.dialogs = dialogs;
        this.guard = guard;
        startButton.setId("tb-start");
        startButton.setOnAction(e -> startOrResume());
        startButton.setTooltip(new Tooltip("Start or resume the live session (F5)"));
        pauseButton.setId("tb-pause");
        pauseButton.setOnAction(e -> pause());
        pauseButton.setTooltip(new Tooltip("Pause the live session (F6)"));
        stopButton.setId("tb-stop");
        stopButton.setOnAction(e -> stop());
        stopButton.setTooltip(new Tooltip("Stop the live session (F7)"));
        followButton.setId("tb-follow");
        followButton.setTooltip(new Tooltip("Keep the newest events in view"));
        followButton.selectedProperty().bindBidirectional(model.followLiveProperty());
        badge.getStyleClass().add(Styles.LIVE_BADGE);
        badge.setId("live-badge");
        update();
    }

    /** The running (or last) live session, null when a file is shown. */
    LiveSession live() {
        return live;
    }

    /** New Live Session…: the user's choice, started once what it replaces may go ({@link SessionGuard}). */
    void newSession() {
        NewSessionDialog.show(stage, lastChoice).ifPresent(c -> guard.then(SessionGuard.Action.START_LIVE,
                "Start " + c.workload(), () -> start(c)));
    }

    /** Start / Resume (F5): resumes a paused session, else starts the last choice once what it replaces may go. */
    void startOrResume() {
        if (live != null && live.stateProperty().get() == LiveSession.State.PAUSED) {
            live.resume();
        } else if (live == null || !live.isActive()) {
            guard.then(SessionGuard.Action.START_LIVE, "Start " + lastChoice.workload(), () -> start(lastChoice));
        }
    }

    void pause() {
        if (live != null) {
            live.pause();
        }
    }

    void stop() {
        if (live != null) {
            live.stop();
        }
    }

    /** Stops a running session and waits for it up to 2 s (before a file replaces it, or on close). */
    void stopQuietly() {
        if (live != null && live.isActive()) {
            live.stop();
            try {
                live.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Forgets the live session once a file is shown instead. */
    void detach() {
        starting.set("");
        model.followLiveProperty().set(false);
        live = null;
        update();
    }

    /** Starts a live session of {@code choice}'s workload (stopping any running one). */
    void start(NewSessionDialog.Choice choice) {
        stopQuietly();
        Workload w = NewSessionDialog.workload(choice.workload());
        if (w == null) {
            dialogs.error("New live session", "no workload named '" + choice.workload() + "'");
            return;
        }
        lastChoice = choice;
        LiveSession s = new LiveSession(model, UiExecutor.FX);
        starting.set("Starting the live session: " + choice.workload() + " on " + choice.device()
                + " …\nits memory is drawn here from its first events");
        s.stateProperty().addListener((o, a, b) -> {
            update();
            status.updateProgress();
            if (b == LiveSession.State.FAILED) {
                status.message("live session failed: " + s.messageProperty().get());
            } else if (b == LiveSession.State.FINISHED || b == LiveSession.State.STOPPED) {
                status.message(choice.workload() + " " + b.toString().toLowerCase(Locale.ROOT) + ": " + s.messageProperty().get());
            }
            if ((b == LiveSession.State.FAILED || b == LiveSession.State.FINISHED || b == LiveSession.State.STOPPED) && live == s) {
                starting.set("");
                model.liveEnded();
            }
        });
        try {
            s.start(w, choice.device(), choice.options());
            live = s;
        } catch (RuntimeException e) {
            dialogs.error("New live session", e.getMessage());
        }
        update();
        status.message("live: " + choice.workload() + " on " + choice.device());
        // once the device is open its selection reason arrives: say which device runs the session and,
        // for auto, why (no CUDA driver: the fallback to host must be visible, not only logged)
        s.messageProperty().addListener((o, a, msg) -> {
            if (live == s && s.isActive() && msg != null && !msg.isEmpty()) {
                status.message(liveStatus(choice.workload(), msg), msg); // the whole reason, sizes included
            }
        });
    }

    /** Enables the buttons for the session's state and shows LIVE or PAUSED while one runs. */
    void update() {
        boolean active = live != null && live.isActive();
        LiveSession.State st = live == null ? null : live.stateProperty().get();
        startButton.setDisable(active && st == LiveSession.State.RUNNING);
        pauseButton.setDisable(st != LiveSession.State.RUNNING);
        stopButton.setDisable(!active);
        followButton.setDisable(!active);
        badge.setVisible(active);
        badge.setText(st == LiveSession.State.PAUSED ? "PAUSED" : "LIVE");
    }

    /**
     * The status bar's short line for a live session from its device selection reason (see
     * {@code Devices.open}): the device, and for a fallback the cause in a few words, e.g.
     * {@code live: render on host — no CUDA device (no CUDA driver on this machine)}. Short enough to
     * leave the status bar's figures room; the full reason goes in the tooltip.
     */
    static String liveStatus(String workload, String reason) {
        String fallback = "auto: no CUDA device (";
        int end = reason.indexOf("); falling back to ");
        if (reason.startsWith(fallback) && end > fallback.length()) {
            String why = reason.substring(fallback.length(), end);
            int cut = why.lastIndexOf("): ");
            String device = shortDevice(reason.substring(end + "); falling back to ".length()));
            return "live: " + workload + " on " + device + " — no CUDA device (" + (cut >= 0 ? why.substring(cut + 3) : why) + ")";
        }
        boolean auto = reason.startsWith("auto: chose ");
        String chose = auto ? reason.substring("auto: chose ".length())
                : reason.startsWith("chose ") ? reason.substring("chose ".length()) : reason;
        // Devices.describe: "LABEL, X total, Y free"
        return "live: " + workload + " on " + chose.replaceFirst(", [^,]* total, [^,]* free$", "") + (auto ? " (auto)" : "");
    }

    /** "host (amd64, java.lang.foreign), 23.5 GiB total, 20.2 GiB free" -> "host". */
    private static String shortDevice(String described) {
        int paren = described.indexOf(" (");
        int comma = described.indexOf(", ");
        int cut = paren >= 0 && (comma < 0 || paren < comma) ? paren : comma;
        return cut >= 0 ? described.substring(0, cut) : described;
    }
}
