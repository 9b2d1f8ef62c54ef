package dev.arenascope.app.ui.live;

import javafx.scene.control.Alert;
import javafx.stage.Window;

import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.task.TaskRunner;

/** "Listen for processes": accepts profiled processes streaming over the live protocol. */
public final class ListenView {
    private final SessionModel model;
    private final TaskRunner tasks;

    public ListenView(SessionModel model, TaskRunner tasks) {
        this.model = model;
        this.tasks = tasks;
    }

    public void show(Window owner) {
        Alert a = new Alert(Alert.AlertType.INFORMATION, "The live receiver is not in this build yet.");
        a.initOwner(owner);
        a.show();
    }

    public void close() {
    }
}
