package dev.arenascope.app.ui;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

import javafx.scene.control.ButtonType;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuItem;
import javafx.scene.layout.GridPane;
import javafx.stage.FileChooser;
import javafx.stage.Stage;

import dev.arenascope.app.ui.common.Placement;
import dev.arenascope.app.ui.io.TraceFiles;
import dev.arenascope.app.ui.model.BaselinePairing;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.slots.PlanSlots;
import dev.arenascope.app.ui.slots.SlotArena;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.Durations;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.AstraceTail;
import dev.arenascope.core.trace.file.FileKind;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.ReadReport;
import dev.arenascope.core.trace.file.RingWindow;
import dev.arenascope.core.trace.file.WriterNote;
import dev.arenascope.core.util.Progress;

/**
 * The window's file actions: open (chooser, drop, recent files), save, export and compare. Every read
 * and write runs as a background task whose progress and Cancel button are in the status line; errors
 * come back as one-line dialogs. FX thread only.
 */
final class FileActions {
    private final Stage stage;
    private final SessionModel model;
    private final TaskRunner tasks;
    private final StatusLine status;
    private final WindowPrefs prefs;
    private final LiveControls live;
    private final WindowDialogs dialogs;
    private final SessionGuard guard;
    private final Consumer<List<SlotArena>> showPlan;
    private final Consumer<ReadReport> damage;
    final Menu recentMenu = new Menu("Open Recent");
    private Consumer<List<Path>> openJob = paths -> openAsked(paths.getFirst());
    private Runnable openFolder = () -> { };

    /**
     * @param showPlan shows a plan's arenas (in the slot map)
     * @param damage   shows what reading the file now shown found (the damage banner)
     */
    FileActions(Stage stage, SessionModel model, TaskRunner tasks, StatusLine status, WindowPrefs prefs, LiveControls live,
                WindowDialogs dialogs, SessionGuard guard, Consumer<List<SlotArena>> showPlan, Consumer<ReadReport> damage) {
        this.guard = guard;
        this.stage = stage;
        this.model = model;
        this.tasks = tasks;
        this.status = status;
        this.prefs = prefs;
        this.live = live;
        this.dialogs = dialogs;
        this.showPlan = showPlan;
        this.damage = damage;
        recentMenu.setId("menu-recent");
        rebuildRecent();
    }

    /** Where several files chosen at once go (a job, one rank each), and what File ▸ Open Folder… does. */
    void onJob(Consumer<List<Path>> openJob, Runnable openFolder) {
        this.openJob = openJob;
        this.openFolder = openFolder;
    }

    void openFolderDialog() {
        openFolder.run();
    }

    void openDialog() {
        FileChooser fc = new FileChooser();
        fc.setTitle("Open a trace");
        fc.getExtensionFilters().addAll(
                new FileChooser.ExtensionFilter("Traces (*.astrace, *.jsonl, *.pickle)", "*.astrace", "*.jsonl", "*.pickle"),
                new FileChooser.ExtensionFilter("Memory plans and problems (*.plan.json, *.json, *.csv)", "*.plan.json", "*.json", "*.csv"),
                new FileChooser.ExtensionFilter("All files", "*"));
        List<File> chosen = keepingOwner(() -> fc.showOpenMultipleDialog(stage)); // several at once: a job, one rank each
        if (chosen != null && chosen.size() == 1) {
            openAsked(chosen.getFirst().toPath());
        } else if (chosen != null && chosen.size() > 1) {
            openJob.accept(chosen.stream().map(File::toPath).toList());
        }
    }

    /** Opens {@code file} once what it replaces may go (a live session's unsaved events: {@link SessionGuard}). */
    void openAsked(Path file) {
        guard.then(SessionGuard.Action.OPEN_FILE, "Open " + file.getFileName(), () -> open(file));
    }

    /**
     * Loads {@code file} in the background (progress in the status bar, cancellable) and shows it: a
     * trace in the timeline, a plan or allocation problem in the slot map, decided by the file's content
     * ({@link FileKind}), not only its name. A damaged file shows what was recovered and lost in the banner; a file that yields no events does
     * not replace a session with events without the user's consent.
     */
    TaskRunner.Handle open(Path file) {
        status.message("Opening " + file.getFileName() + " …");
        status.progress(-1);
        status.fileTask(tasks.submit(BackgroundTask.of("Opening " + file.getFileName(), p -> read(file, p))
                .onProgress((fraction, msg, title) -> {
                    status.progress(fraction);
                    status.message(title + (msg.isEmpty() ? "" : " — " + msg));
                })
                .onSuccess(opened -> {
                    status.fileTask(null);
                    switch (opened) {
                        case Opened.Plan plan -> showPlan(file, plan.arenas());
                        case Opened.Trace trace -> showTrace(file, trace.loaded(), trace.tail());
                    }
                })
                .onFailure(e -> {
                    status.fileTask(null);
                    status.message("Could not open " + file.getFileName());
                    dialogs.error("Open " + file.getFileName(), TraceFiles.describe(e));
                })
                .onCancelled(() -> {
                    status.fileTask(null);
                    status.message("Opening " + file.getFileName() + " cancelled");
                })));
        return status.fileTask();
    }

    /** What opening a file gave: a trace, or plan arenas for the slot map. */
    private sealed interface Opened {
        /** A trace; {@code tail} when a recording is still writing it (followed once shown), else null. */
        record Trace(LoadedTrace loaded, AstraceTail tail) implements Opened {
            Trace(LoadedTrace loaded) {
                this(loaded, null);
            }
        }

        record Plan(List<SlotArena> arenas) implements Opened {}
    }

    /** Decides by content what {@code file} is and reads it (worker thread). */
    private static Opened read(Path file, Progress p) throws Exception {
        if (!Files.isRegularFile(file)) {
            return new Opened.Trace(TraceFiles.open(file, p)); // names the missing file or directory
        }
        if ((FileKind.of(file) == FileKind.ASTRACE || file.toString().endsWith(".astrace"))
                && WriterNote.check(file) == WriterNote.State.WRITING) {
            // a recording in progress (its header may not be written yet): read what is sealed, then follow it
            p.update(-1, -1, "reading what is sealed so far");
            AstraceTail tail = AstraceTail.open(file);
            return new Opened.Trace(new LoadedTrace(tail.store(), tail.report()), tail);
        }
        return switch (FileKind.of(file)) {
            case PLAN_JSON -> new Opened.Plan(PlanSlots.read(file));
            case PROBLEM_CSV -> {
                p.update(-1, -1, "packing");
                yield new Opened.Plan(List.of(PlanSlots.readProblem(file)));
            }
            default -> new Opened.Trace(TraceFiles.open(file, p));
        };
    }

    private void showTrace(Path file, LoadedTrace loaded, AstraceTail tail) {
        ReadReport report = loaded.report();
        TraceView shown = model.trace();
        if (loaded.store().eventCount() == 0 && shown != null && shown.eventCount() > 0) {
            String why = report.damaged() ? report.summary() : report.stillWriting() ? "nothing is sealed in it yet"
                    : "the file holds no events";
            dialogs.confirm("Open " + file.getFileName(), file.getFileName() + " yields no events",
                    why + ".\n\nReplace the open session (" + Counts.of(shown.eventCount(), "event")
                            + ") with an empty one?",
                    () -> show(file, loaded, tail),
                    () -> {
                        closeQuietly(tail);
                        status.message("Kept the open session; " + file.getFileName() + ": " + why);
                    });
            return;
        }
        show(file, loaded, tail);
    }

    private static void closeQuietly(AstraceTail tail) {
        if (tail != null) {
            try {
                tail.close();
            } catch (java.io.IOException ignored) {
                // a reader's close: nothing to tell
            }
        }
    }

    private void showPlan(Path file, List<SlotArena> arenas) {
        showPlan.accept(arenas);
        prefs.addRecent(file);
        rebuildRecent();
        if (arenas.size() == 1 && arenas.getFirst().strategy().startsWith("packed on open")) {
            SlotArena a = arenas.getFirst();
            status.message(String.format(Locale.ROOT, "Opened problem %s: %s %s to %s (lower bound %s, %+.1f%%)",
                    file.getFileName(), Counts.of(a.slots().size(), "buffer"), a.strategy(), Bytes.format(a.height()), Bytes.format(a.lowerBound()),
                    a.lowerBound() > 0 ? 100.0 * (a.height() - a.lowerBound()) / a.lowerBound() : 0.0));
        } else {
            status.message(String.format(Locale.ROOT, "Opened plan %s: %s, %s", file.getFileName(), Counts.of(arenas.size(), "arena"),
                    Counts.of(arenas.stream().mapToInt(a -> a.slots().size()).sum(), "tensor")));
        }
    }

    private void show(Path file, LoadedTrace loaded, AstraceTail tail) {
        TraceView t = loaded.store();
        ReadReport report = loaded.report();
        live.stopQuietly();
        live.detach();
        model.show(t, file.getFileName().toString(), TraceFiles.deviceOf(t));
        model.sourceFileProperty().set(file);
        damage.accept(report);
        prefs.addRecent(file);
        rebuildRecent();
        int memories = t.memories().size();
        status.message(String.format(Locale.ROOT, "Opened %s: %s, %s%s%s", file.getFileName(), Counts.of(t.eventCount(), "event"),
                Counts.of(memories, "memory", "memories"), report.damaged() ? " — damaged, see the notice above" : "",
                openNotes(report, RingWindow.of(t.session()))));
        if (tail != null && !tail.finished()) {
            model.followLiveProperty().set(true);
            TailFollower.start(file, tail, model, status::message);
        } else {
            closeQuietly(tail);
        }
    }

    /**
     * What the status line adds on opening a file: that a recording is still writing it (what is shown is
     * what was sealed when it was opened), and what a capped recording dropped; empty for neither.
     */
    static String openNotes(ReadReport report, RingWindow ring) {
        StringBuilder sb = new StringBuilder();
        if (report.stillWriting()) {
            sb.append(" — still being written: following it as it grows");
        }
        if (ring != null && ring.dropped()) {
            sb.append(String.format(Locale.ROOT, " — capped recording: %,d older events dropped; peaks are the kept window's (from %s)",
                    ring.droppedEvents(), Durations.format(ring.windowStartNs())));
        }
        return sb.toString();
    }

    /** Opens a memory plan or allocation problem in the slot map (the same as {@link #open}, which decides by content). */
    TaskRunner.Handle openPlan(Path file) {
        return open(file);
    }

    /** Remembers a job just opened (its files, or its folder) as one File ▸ Open Recent entry. */
    void rememberJob(List<Path> filesOrFolders) {
        prefs.addRecentJob(filesOrFolders);
        rebuildRecent();
    }

    private void rebuildRecent() {
        recentMenu.getItems().clear();
        for (WindowPrefs.Recent r : prefs.recentEntries()) {
            MenuItem m = new MenuItem(recentLabel(r));
            m.setMnemonicParsing(false);    // a file name is the user's text (run_1.pickle)
            m.setOnAction(e -> {
                if (r.job()) {
                    openJob.accept(r.paths()); // reopens as the job it was, one rank per file
                } else {
                    openAsked(r.paths().getFirst());
                }
            });
            recentMenu.getItems().add(m);
        }
        recentMenu.setDisable(recentMenu.getItems().isEmpty());
    }

    /**
     * What Open Recent lists: {@code run.astrace   —   /data}; a job as {@code Job: step-4000 (folder)   —   /runs}
     * or {@code Job of 3 files: snapshot_rank0.pickle, snapshot_rank1.pickle, …   —   /runs/step-4000}.
     */
    static String recentLabel(WindowPrefs.Recent r) {
        Path first = r.paths().getFirst();
        if (!r.job()) {
            return first.getFileName() + "   —   " + first.getParent();
        }
        if (r.paths().size() == 1) {
            return "Job: " + first.getFileName() + (Files.isDirectory(first) ? " (folder)" : "") + "   —   " + first.getParent();
        }
        String names = String.join(", ", r.paths().stream().limit(2).map(p -> String.valueOf(p.getFileName())).toList())
                + (r.paths().size() > 2 ? ", …" : "");
        Path parent = first.getParent();
        boolean oneFolder = r.paths().stream().allMatch(p -> java.util.Objects.equals(p.getParent(), parent));
        return "Job of " + r.paths().size() + " files: " + names + "   —   " + (oneFolder ? parent : parent + " and elsewhere");
    }

    void save() {
        saveThen(() -> { });
    }

    /**
     * Save As…: the user picks the file, the session is written in the background, and {@code after} runs
     * once it was written (not when the user cancels the chooser or the write fails).
     */
    void saveThen(Runnable after) {
        TraceView t = model.trace();
        if (t == null) {
            after.run();
            return;
        }
        FileChooser fc = new FileChooser();
        fc.setTitle("Save the session");
        fc.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("ArenaScope trace (*.astrace)", "*.astrace"),
                new FileChooser.ExtensionFilter("JSON lines (*.jsonl)", "*.jsonl"));
        fc.setInitialFileName(safeName(model.titleProperty().get()) + ".astrace");
        File f = keepingOwner(() -> fc.showSaveDialog(stage));
        if (f != null) {
            long events = t.eventCount();
            runFileTask("Saving " + f.getName(), p -> {
                TraceFiles.save(t, f.toPath(), p);
                return f.toPath();
            }, () -> {
                guard.saved(t, events);
                after.run();
            });
        }
    }

    void export(TraceFiles.ExportFormat format) {
        TraceView t = model.trace();
        if (t == null) {
            return;
        }
        FileChooser fc = new FileChooser();
        fc.setTitle("Export " + format.label());
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter(format.label(), "*" + format.extension()));
        fc.setInitialFileName(safeName(model.titleProperty().get()) + format.extension());
        File f = keepingOwner(() -> fc.showSaveDialog(stage));
        if (f != null) {
            TraceView baseline = model.baselineProperty().get();
            runFileTask("Exporting " + f.getName(), p -> {
                TraceFiles.export(t, baseline, format, f.toPath(), p);
                return f.toPath();
            }, () -> { });
        }
    }

    private void runFileTask(String title, BackgroundTask.Work<Path> work, Runnable written) {
        status.message(title + " …");
        status.fileTask(tasks.submit(BackgroundTask.of(title, work)
                .onProgress((fr, m, ti) -> status.progress(fr))
                .onSuccess(p -> {
                    status.fileTask(null);
                    status.message("Wrote " + p);
                    written.run();
                })
                .onFailure(e -> {
                    status.fileTask(null);
                    dialogs.error(title, TraceFiles.describe(e));
                })
                .onCancelled(() -> status.fileTask(null))));
    }

    void compare() {
        FileChooser fc = new FileChooser();
        fc.setTitle("Compare with a baseline trace");
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter("Traces", "*.astrace", "*.jsonl", "*.pickle"));
        File f = keepingOwner(() -> fc.showOpenDialog(stage));
        if (f != null) {
            compareWith(f.toPath());
        }
    }

    /** Loads {@code file} as the baseline drawn beneath the current session. */
    void compareWith(Path file) {
        tasks.submit(BackgroundTask.of("Loading baseline " + file.getFileName(), p -> TraceFiles.open(file, p))
                .onSuccess(loaded -> {
                    model.setBaseline(loaded.store(), file.getFileName().toString());
                    String pairs = model.baselinePairingProperty().get().describe(model.trace() == null ? List.of()
                            : model.trace().memories(), loaded.store().memories());
                    status.message("Baseline " + file.getFileName() + ": " + pairs
                            + (loaded.report().damaged() ? "; damaged: " + loaded.report().summary() : ""));
                })
                .onFailure(e -> dialogs.error("Compare with " + file.getFileName(), TraceFiles.describe(e))));
    }

    /** Runs a file dialog and puts the main window back as it was ({@link Placement#keepingOwner}). */
    <T> T keepingOwner(java.util.function.Supplier<T> dialog) {
        return Placement.keepingOwner(stage, dialog);
    }

    /** Lets the user choose which baseline memory each memory is compared with (File ▸ Pair Baseline Memories…). */
    void pairBaseline() {
        TraceView shown = model.trace();
        TraceView base = model.baselineProperty().get();
        if (shown == null || base == null) {
            status.message("Compare with a baseline first (File ▸ Compare with…)");
            return;
        }
        Dialog<BaselinePairing> d = new Dialog<>();
        d.initOwner(stage);
        d.setTitle("Pair baseline memories");
        d.getDialogPane().setId("pair-dialog");
        Placement.fitAndCentre(d, stage, "pair"); // sized from its rows, never a window manager's 200×200
        d.setHeaderText("Compare each memory with");
        GridPane g = new GridPane();
        g.setHgap(10);
        g.setVgap(6);
        List<ComboBox<String>> boxes = new ArrayList<>();
        List<List<MemoryInfo>> offered = new ArrayList<>();
        BaselinePairing now = model.baselinePairingProperty().get();
        for (var m : shown.memories()) {
            // only memories of the same kind are offered: a device's line is no baseline for an arena
            List<MemoryInfo> candidates = BaselinePairing.candidates(m, base.memories());
            ComboBox<String> c = new ComboBox<>();
            c.getItems().add("(none)");
            candidates.forEach(b -> c.getItems().add(b.name()));
            int b = now.baselineOf(m.id());
            int at = 0;
            for (int k = 0; k < candidates.size(); k++) {
                if (candidates.get(k).id() == b) {
                    at = k + 1;
                }
            }
            c.getSelectionModel().select(at);
            c.setDisable(candidates.isEmpty());
            Label name = new Label(m.name());
            name.setMnemonicParsing(false);
            g.addRow(g.getRowCount(), name, c);
            boxes.add(c);
            offered.add(candidates);
        }
        d.getDialogPane().setContent(g);
        d.getDialogPane().getButtonTypes().addAll(ButtonType.OK, ButtonType.CANCEL);
        d.setResultConverter(bt -> {
            if (bt != ButtonType.OK) {
                return null;
            }
            Map<Integer, Integer> pairs = new LinkedHashMap<>();
            for (int i = 0; i < boxes.size(); i++) {
                int sel = boxes.get(i).getSelectionModel().getSelectedIndex();
                if (sel > 0) {
                    pairs.put(shown.memories().get(i).id(), offered.get(i).get(sel - 1).id());
                }
            }
            return new BaselinePairing(pairs);
        });
        d.showAndWait().ifPresent(p -> {
            model.baselinePairingProperty().set(p);
            status.message("Baseline: " + p.describe(shown.memories(), base.memories()));
        });
    }

    static String safeName(String s) {
        String n = s == null ? "" : s.replaceAll("[^A-Za-z0-9._-]+", "-").replaceAll("^-+|-+$", "");
        return n.isEmpty() ? "session" : n;
    }
}
