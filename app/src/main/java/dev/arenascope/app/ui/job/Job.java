package dev.arenascope.app.ui.job;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.arenascope.app.commands.job.JobTable;
import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.util.Progress;

/**
 * A job as the window shows it: its rank table ({@link JobSummary}, each row from that rank's own trace)
 * and every rank's store, by rank name, for the timeline and the sites comparison. A job from files keeps
 * every rank's store (a click shows any rank), so its memory is the sum of the stores; a live job's stores
 * are the listened connections'. Immutable.
 *
 * @param title   what the window's title calls it (the folder, or "N files")
 * @param summary the rank table and the job's figures
 * @param stores  the ranks' stores by rank name (ranks that could not be read have none)
 * @param notes   what went wrong, one line each (a bad member, a damaged one, a name given twice)
 * @param live    whether it is a listened job, refreshed as processes stream
 */
public record Job(String title, JobSummary summary, Map<String, TraceView> stores, List<String> notes, boolean live) {
    public Job {
        stores = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(stores));
        notes = List.copyOf(notes);
    }

    /** The store of rank {@code rank}, or null (a rank that could not be read). */
    public TraceView store(String rank) {
        return stores.get(rank);
    }

    /** The row of rank {@code rank}, or null. */
    public RankSummary row(String rank) {
        return summary.ranks().stream().filter(r -> r.rank().equals(rank)).findFirst().orElse(null);
    }

    /** The largest peak live of the job: the one byte axis every rank's sparkline is drawn on. */
    public long axisBytes() {
        return summary.ranks().stream().mapToLong(RankSummary::peakLiveBytes).max().orElse(0);
    }

    /**
     * A job's files: files as given (one that cannot be read becomes a failed row), folders as their trace
     * files (an extension a reader knows), not recursing; each once, in the order found.
     *
     * @throws IllegalArgumentException for a folder that holds no trace file
     * @throws UncheckedIOException when a folder cannot be listed
     */
    public static List<Path> files(List<Path> filesOrFolders) {
        LinkedHashSet<Path> out = new LinkedHashSet<>();
        for (Path p : filesOrFolders) {
            if (!Files.isDirectory(p)) {
                out.add(p);
                continue;
            }
            try (Stream<Path> s = Files.list(p)) {
                List<Path> found = s.filter(Files::isRegularFile).filter(f -> TraceFormats.input(f) != null).sorted().toList();
                if (found.isEmpty()) {
                    throw new IllegalArgumentException(p + ": is a folder holding no trace file (reads " + TraceFormats.inputExtensions() + ")");
                }
                out.addAll(found);
            } catch (IOException e) {
                throw new UncheckedIOException(p + ": cannot list the folder: " + e.getMessage(), e);
            }
        }
        return new ArrayList<>(out);
    }

    /** Whether {@code paths} open as a job rather than one trace: several, or a folder. */
    public static boolean isJob(List<Path> paths) {
        return paths.size() > 1 || paths.size() == 1 && Files.isDirectory(paths.getFirst());
    }

    /** The title of the job of {@code paths}: a folder's name and its ranks ({@code step-4000 (8 ranks)}), else {@code job of N ranks}. */
    public static String title(List<Path> paths, int files) {
        if (paths.size() == 1 && paths.getFirst().getFileName() != null) {
            return paths.getFirst().getFileName() + " (" + files + (files == 1 ? " rank)" : " ranks)");
        }
        return "job of " + files + " ranks";
    }

    /**
     * Loads the job of {@code filesOrFolders} (worker thread): ranks named from the file names, imported in
     * parallel one per core, each summarised on its importing thread; every store kept.
     *
     * @throws java.util.concurrent.CancellationException when {@code progress} was cancelled
     */
    public static Job load(List<Path> filesOrFolders, Progress progress) {
        List<Path> files = files(filesOrFolders);
        JobTable t = JobTable.load(files, null, true, progress);
        Map<String, TraceView> stores = new LinkedHashMap<>();
        for (Map.Entry<String, LoadedTrace> e : t.stores().entrySet()) {
            stores.put(e.getKey(), e.getValue().store());
        }
        return new Job(title(filesOrFolders, files.size()), t.summary(), stores, t.notes(), false);
    }
}
