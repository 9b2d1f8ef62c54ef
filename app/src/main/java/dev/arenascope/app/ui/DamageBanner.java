package dev.arenascope.app.ui;

import java.nio.file.Path;
import java.util.Locale;

import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Label;
import javafx.scene.control.TextArea;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.stage.Window;

import dev.arenascope.app.ui.common.Placement;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.file.ReadReport;

/**
 * The strip above the timeline that says a file was damaged: what the reader recovered and what it
 * lost (its {@link ReadReport}), with the whole list of problems one click away. Hidden while the shown
 * file was read soundly. FX thread only.
 */
final class DamageBanner extends HBox {
    private final Label text = new Label();
    private final Button details = new Button("Details…");
    private ReadReport report;

    DamageBanner() {
        getStyleClass().add(Styles.DAMAGE_BANNER);
        setId("damage-banner");
        text.setId("damage-text");
        text.setMaxWidth(Double.MAX_VALUE);
        text.setWrapText(true);
        HBox.setHgrow(text, Priority.ALWAYS);
        details.setId("damage-details");
        details.setOnAction(e -> showDetails());
        Button close = new Button("×");
        close.setId("damage-close");
        close.setTooltip(new Tooltip("Hide this notice"));
        close.setOnAction(e -> show(null));
        getChildren().addAll(text, details, close);
        show(null);
    }

    /** Shows what {@code r} says when the file was damaged; hides the banner for a sound file or null. */
    void show(ReadReport r) {
        report = r != null && r.damaged() ? r : null;
        boolean on = report != null;
        details.setVisible(true);
        details.setManaged(true);
        setVisible(on);
        setManaged(on);
        text.setText(on ? message(report) : "");
    }

    /** Shows a plain notice about the file shown (no report behind it), or hides the banner for null. */
    void notice(String message) {
        report = null;
        boolean on = message != null && !message.isEmpty();
        setVisible(on);
        setManaged(on);
        details.setVisible(false);
        details.setManaged(false);
        // no pictograph first: "ⓘ" is missing from common fonts and showed as a box
        text.setText(on ? "Note: " + message : "");
    }

    /**
     * The notice for a trace whose time axis is not time (a PyTorch snapshot without timestamps), or
     * null: its session attribute {@code time_axis} is {@code entry_order} or {@code mixed}.
     */
    static String timeAxisNotice(SessionInfo s) {
        String axis = s == null ? null : s.attributes().get("time_axis");
        if ("entry_order".equals(axis)) {
            return "This snapshot has no timestamps: the time axis is entry order (1 µs per entry), not time.";
        }
        if ("mixed".equals(axis)) {
            return "Some devices of this snapshot have no timestamps: their time axis is entry order (1 µs per entry), not time.";
        }
        return null;
    }

    /** The banner's line: the file, what was recovered and what was lost. */
    static String message(ReadReport r) {
        String name = Path.of(r.file()).getFileName().toString();
        StringBuilder sb = new StringBuilder("⚠ ").append(name).append(" is damaged: recovered ")
                .append(String.format(Locale.ROOT, "%,d", r.events()));
        if (r.expectedEvents() >= 0) {
            sb.append(String.format(Locale.ROOT, " of %s (%,d lost)", Counts.of(r.expectedEvents(), "event"), Math.max(0, r.expectedEvents() - r.events())));
        } else {
            sb.append(" events");
        }
        sb.append(String.format(Locale.ROOT, " from %,d sound %s; %s", r.parts(), r.partName(), Counts.of(r.problemCount(), "problem")));
        if (!r.problems().isEmpty()) {
            sb.append(", first: ").append(r.problems().getFirst());
        }
        return sb.toString();
    }

    String text() {
        return text.getText();
    }

    private void showDetails() {
        if (report == null) {
            return;
        }
        Alert a = new Alert(Alert.AlertType.WARNING, "", ButtonType.OK);
        Window owner = getScene() == null ? null : getScene().getWindow();
        if (owner != null) {
            a.initOwner(owner);
            a.getDialogPane().getStylesheets().addAll(getScene().getStylesheets());
        }
        Placement.fitAndCentre(a, owner, "damage-details");
        a.setTitle("Damaged file");
        a.setHeaderText(report.summary());
        TextArea list = new TextArea(String.join("\n", report.problems())
                + (report.problemCount() > report.problems().size()
                ? "\n… and " + (report.problemCount() - report.problems().size()) + " more" : ""));
        list.setEditable(false);
        list.setWrapText(true);
        a.getDialogPane().setContent(list);
        a.show();
    }
}
