package dev.arenascope.app.ui;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.application.Platform;
import javafx.beans.value.ChangeListener;
import javafx.util.Duration;

import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.AstraceTail;

/**
 * Follows a trace file that a recording is still writing (a live-tail open): once a second it reads the
 * chunks sealed since (on a background thread) into the shown store and refreshes the model, as a live
 * session does, until the writer closes the file, the recording replaces it (a capped recording that
 * dropped chunks), or another session is shown. Says on the status line how it ended. FX thread.
 */
final class TailFollower {
    /** Polls a second. */
    static final double POLL_HZ = 1;

    private static final ExecutorService POLLER = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().daemon().name("arenascope-tail").factory());

    private final Path file;
    private final AstraceTail tail;
    private final SessionModel model;
    private final Consumer<String> say;
    private final Timeline ticker;
    private final ChangeListener<TraceView> shownChanged;
    private boolean polling;
    private boolean stopped;

    private TailFollower(Path file, AstraceTail tail, SessionModel model, Consumer<String> say) {
        this.file = file;
        this.tail = tail;
        this.model = model;
        this.say = say;
        this.ticker = new Timeline(new KeyFrame(Duration.millis(1000 / POLL_HZ), e -> tick()));
        this.ticker.setCycleCount(Timeline.INDEFINITE);
        this.shownChanged = (o, a, b) -> {
            if (b != tail.store()) {
                stop(null);
            }
        };
    }

    /** Starts following {@code tail}, whose store the model shows now. */
    static TailFollower start(Path file, AstraceTail tail, SessionModel model, Consumer<String> say) {
        TailFollower f = new TailFollower(file, tail, model, say);
        model.traceProperty().addListener(f.shownChanged);
        f.ticker.play();
        return f;
    }

    private void tick() {
        if (polling || stopped) {
            return;
        }
        polling = true;
        POLLER.execute(() -> {
            AstraceTail.Poll state;
            String problem = null;
            try {
                state = tail.poll();
            } catch (IOException | RuntimeException e) {
                state = AstraceTail.Poll.FINISHED;
                problem = e.getMessage();
            }
            AstraceTail.Poll s = state;
            String p = problem;
            Platform.runLater(() -> done(s, p));
        });
    }

    private void done(AstraceTail.Poll state, String problem) {
        polling = false;
        if (stopped) {
            return;
        }
        model.refresh();
        switch (state) {
            case WRITING -> { }
            case FINISHED -> {
                model.liveEnded();
                stop(problem != null ? "Stopped following " + file.getFileName() + ": " + problem
                        : String.format(Locale.ROOT, "%s: the recording finished; %s", file.getFileName(),
                                Counts.of(tail.store().eventCount(), "event")));
            }
            case REPLACED -> {
                model.liveEnded();
                stop(file.getFileName() + ": the recording rewrote its file to drop its oldest chunks (a capped"
                        + " recording); open it again to follow its newest window");
            }
        }
    }

    /** Stops following (the store keeps what was read), saying {@code why} when not null. */
    void stop(String why) {
        if (stopped) {
            return;
        }
        stopped = true;
        ticker.stop();
        model.traceProperty().removeListener(shownChanged);
        POLLER.execute(() -> {
            try {
                tail.close();
            } catch (IOException ignored) {
                // a reader's close: nothing to tell
            }
        });
        if (why != null) {
            say.accept(why);
        }
    }

    /** Whether it still follows the file. */
    boolean following() {
        return !stopped;
    }
}
