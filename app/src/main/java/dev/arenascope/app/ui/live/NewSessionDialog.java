package dev.arenascope.app.ui.live;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.beans.value.ObservableValue;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.geometry.Insets;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Window;

import org.controlsfx.control.PropertySheet;

import dev.arenascope.app.ui.common.Placement;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.WorkloadOption;
import dev.arenascope.workloads.Workloads;

/**
 * "New live session": pick a workload, a device and the workload's options (a ControlsFX property
 * sheet listing each option with its help line). Returns a {@link Choice}.
 */
public final class NewSessionDialog {
    /** Devices offered; the field is editable for {@code virtual:BYTES} and {@code cuda:N}. */
    public static final List<String> DEVICES = List.of("auto", "cuda:0", "host", "virtual:1GiB");

    /**
     * What to run.
     *
     * @param workload the workload's name
     * @param device   a device spec for {@code Devices.open}
     * @param options  option values that differ from the defaults
     */
    public record Choice(String workload, String device, Map<String, String> options) {
        public Choice {
            options = Map.copyOf(options);
        }

        /**
         * The first-start demo: the render workload (or {@code -Darenascope.demo=NAME}) on the best device,
         * long enough to watch.
         */
        public static Choice demo() {
            Workload w = NewSessionDialog.workload(System.getProperty("arenascope.demo", "render"));
            if (w == null) {
                w = Workloads.all().get(0);
            }
            Map<String, String> opts = new LinkedHashMap<>();
            for (WorkloadOption o : w.options()) {
                if (o.name().equals("frames")) {
                    opts.put("frames", "0");
                }
                if (o.name().equals("max-batch")) {
                    opts.put("max-batch", "8");
                }
                if (o.name().equals("steps")) {
                    opts.put("steps", "100000");
                }
            }
            return new Choice(w.name(), "auto", opts);
        }
    }

    private NewSessionDialog() {}

    /** The workload named {@code name}, or null. */
    public static Workload workload(String name) {
        for (Workload w : Workloads.all()) {
            if (w.name().equals(name)) {
                return w;
            }
        }
        return null;
    }

    /** Shows the dialog; empty when cancelled. */
    public static Optional<Choice> show(Window owner, Choice initial) {
        Dialog<Choice> d = new Dialog<>();
        d.initOwner(owner);
        d.setTitle("New live session");
        d.getDialogPane().setId("new-session-dialog");
        Placement.fitAndCentre(d, owner, "new-session");
        d.setHeaderText("Run a workload and watch its memory live");
        ComboBox<String> workload = new ComboBox<>(FXCollections.observableArrayList(Workloads.all().stream().map(Workload::name).toList()));
        workload.setId("new-session-workload");
        workload.setValue(initial.workload());
        ComboBox<String> device = new ComboBox<>(FXCollections.observableArrayList(DEVICES));
        device.setId("new-session-device");
        device.setEditable(true);
        device.setValue(initial.device());
        Label summary = new Label();
        summary.setWrapText(true);
        PropertySheet sheet = new PropertySheet();
        sheet.setId("new-session-options");
        sheet.setModeSwitcherVisible(false);
        sheet.setSearchBoxVisible(false);
        sheet.setPrefHeight(220);
        Runnable fill = () -> {
            Workload w = workload(workload.getValue());
            sheet.getItems().clear();
            if (w == null) {
                return;
            }
            summary.setText(w.summary());
            for (WorkloadOption o : w.options()) {
                String v = w.name().equals(initial.workload()) ? initial.options().getOrDefault(o.name(), o.defaultValue()) : o.defaultValue();
                sheet.getItems().add(new OptionItem(o, v));
            }
        };
        workload.valueProperty().addListener((o, a, b) -> fill.run());
        fill.run();
        GridPane grid = new GridPane();
        grid.setHgap(8);
        grid.setVgap(8);
        grid.addRow(0, new Label("Workload"), workload);
        grid.addRow(1, new Label("Device"), device);
        VBox box = new VBox(10, grid, summary, sheet);
        VBox.setVgrow(sheet, Priority.ALWAYS);
        box.setPadding(new Insets(10));
        box.setPrefWidth(520);
        d.getDialogPane().setContent(box);
        ButtonType start = new ButtonType("Start", ButtonBar.ButtonData.OK_DONE);
        d.getDialogPane().getButtonTypes().addAll(start, ButtonType.CANCEL);
        if (owner != null && owner.getScene() != null) {
            d.getDialogPane().getStylesheets().addAll(owner.getScene().getStylesheets());
        }
        d.setResultConverter(bt -> {
            if (bt != start) {
                return null;
            }
            Map<String, String> opts = new LinkedHashMap<>();
            for (PropertySheet.Item i : sheet.getItems()) {
                OptionItem oi = (OptionItem) i;
                if (!oi.value.get().equals(oi.option.defaultValue())) {
                    opts.put(oi.option.name(), oi.value.get().trim());
                }
            }
            return new Choice(workload.getValue(), device.getEditor().getText().isBlank() ? "auto" : device.getEditor().getText().trim(), opts);
        });
        return d.showAndWait();
    }

    /** One workload option as a property sheet row. */
    static final class OptionItem implements PropertySheet.Item {
        final WorkloadOption option;
        final StringProperty value;

        OptionItem(WorkloadOption option, String initial) {
            this.option = option;
            this.value = new SimpleStringProperty(initial);
        }

        @Override
        public Class<?> getType() {
            return String.class;
        }

        @Override
        public String getCategory() {
            return "Options";
        }

        @Override
        public String getName() {
            return option.name();
        }

        @Override
        public String getDescription() {
            return option.help() + " (default " + option.defaultValue() + ")";
        }

        @Override
        public Object getValue() {
            return value.get();
        }

        @Override
        public void setValue(Object v) {
            value.set(v == null ? "" : v.toString());
        }

        @Override
        public Optional<ObservableValue<? extends Object>> getObservableValue() {
            return Optional.of(value);
        }
    }


    static ObservableList<String> devices() {
        return FXCollections.observableArrayList(DEVICES);
    }
}
