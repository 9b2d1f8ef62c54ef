package dev.arenascope.app.ui;

import java.util.List;
import java.util.Locale;

import javafx.beans.binding.Bindings;
import javafx.geometry.Orientation;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Separator;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.Region;

import org.controlsfx.control.StatusBar;

import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.TimeAxis;

/**
 * The window's status bar: a message on the left with the progress of the file task in hand and its
 * Cancel button, and on the right the session's device, event count, rate, losses and the view or
 * selected range, kept current from the {@link SessionModel}. FX thread only.
 */
final class StatusLine {
    /** The least the device's name is cut to when the window is too narrow for every figure whole. */
    private static final double DEVICE_MIN_WIDTH = 60;

    private final SessionModel model;
    private final TaskRunner tasks;
    private final StatusBar bar = new StatusBar();
    private final Label deviceLabel = new Label();
    private final Label eventsLabel = new Label();
    private final Label rateLabel = new Label();
    private final Label droppedLabel = new Label();
    private final Label rangeLabel = new Label();
    private final Button cancel = new Button("Cancel");
    private TaskRunner.Handle fileTask;

    StatusLine(SessionModel model, TaskRunner tasks) {
        this.model = model;
        this.tasks = tasks;
        bar.setId("status-bar");
        bar.setText("");
        deviceLabel.setId("status-device");
        eventsLabel.setId("status-events");
        rateLabel.setId("status-rate");
        droppedLabel.setId("status-dropped");
        rangeLabel.setId("status-range");
        for (Label l : List.of(eventsLabel, rateLabel, droppedLabel, rangeLabel)) {
            l.setMinWidth(Region.USE_PREF_SIZE); // figures are never cut ("372,509 eve…"); the message gives way
        }
        // the device's name gives way after the message, its whole name on hover: with every figure whole the bar asked
        // 736 px of a 720 px window, and the whole window was laid out that wide, the toolbar's badge past its edge
        deviceLabel.setMinWidth(DEVICE_MIN_WIDTH);
        deviceLabel.tooltipProperty().bind(Bindings.createObjectBinding(
                () -> deviceLabel.getText().isEmpty() ? null : new Tooltip(deviceLabel.getText()), deviceLabel.textProperty()));
        cancel.setId("cancel-load");
        cancel.setVisible(false);
        cancel.setManaged(false);
        cancel.setOnAction(e -> {
            if (fileTask != null) {
                fileTask.cancel();
            }
        });
        bar.getLeftItems().add(cancel);
        bar.getRightItems().addAll(deviceLabel, new Separator(Orientation.VERTICAL), eventsLabel,
                new Separator(Orientation.VERTICAL), rateLabel, new Separator(Orientation.VERTICAL), droppedLabel,
                new Separator(Orientation.VERTICAL), rangeLabel);
        model.eventCountProperty().addListener((o, a, b) -> updateFigures());
        model.eventsPerSecondProperty().addListener((o, a, b) -> updateFigures());
        model.lostEventsProperty().addListener((o, a, b) -> updateFigures());
        model.selectionProperty().addListener((o, a, b) -> updateFigures());
        model.viewRangeProperty().addListener((o, a, b) -> updateFigures());
        model.deviceProperty().addListener((o, a, b) -> updateFigures());
        model.traceProperty().addListener((o, a, b) -> updateFigures()); // the axis is the trace's
        tasks.addListener(this::updateProgress);
        updateFigures();
    }

    StatusBar bar() {
        return bar;
    }

    /** Replaces the message on the left (and drops the tooltip of an earlier message). */
    void message(String text) {
        bar.setText(text);
        bar.setTooltip(null);
    }

    /** A short message with its whole text in a tooltip. */
    void message(String text, String whole) {
        bar.setText(text);
        bar.setTooltip(new Tooltip(whole));
    }

    /** Shows {@code fraction} in [0, 1], or -1 for work of unknown length. */
    void progress(double fraction) {
        bar.setProgress(fraction < 0 ? -1 : fraction);
    }

    /** The file task whose progress and Cancel button the bar shows, or null once it ended. */
    void fileTask(TaskRunner.Handle handle) {
        fileTask = handle;
        updateProgress();
    }

    TaskRunner.Handle fileTask() {
        return fileTask;
    }

    /** Hides progress and Cancel once nothing runs. */
    void updateProgress() {
        List<TaskRunner.Handle> running = tasks.running();
        TaskRunner.Handle main = fileTask != null && !fileTask.isDone() ? fileTask : null;
        if (main == null && running.isEmpty()) {
            bar.setProgress(0);
        }
        cancel.setVisible(main != null);
        cancel.setManaged(main != null);
    }

    private void updateFigures() {
        deviceLabel.setText(model.deviceProperty().get().isEmpty() ? "no device" : model.deviceProperty().get());
        eventsLabel.setText(Counts.of(model.eventCountProperty().get(), "event"));
        rateLabel.setText(String.format(Locale.ROOT, "%,.0f events/s", model.eventsPerSecondProperty().get()));
        droppedLabel.setText(String.format(Locale.ROOT, "%,d dropped", model.lostEventsProperty().get()));
        TimeRange sel = model.selectionProperty().get();
        TimeAxis axis = model.timeAxis(); // entries for a snapshot without timestamps, never a made-up time
        rangeLabel.setText(sel == null ? "view " + model.viewRangeProperty().get().describe(axis) : "selected " + sel.describe(axis));
    }
}
