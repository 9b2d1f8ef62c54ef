package dev.arenascope.app.ui.model;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;

import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.trace.TraceView;

/**
 * The one session every view shows, and what links them: the visible time range, the selected range,
 * the selected instant and the selected scope. Views listen to these properties and write them; none
 * talks to another view directly.
 *
 * <p>FX-thread confined: call setters and {@link #refresh()} on the FX thread (or, in tests without
 * a toolkit, on one thread with a {@link dev.arenascope.app.ui.task.UiExecutor#DIRECT} runner).
 */
public final class SessionModel {
    /** The narrowest visible window, ns. */
    public static final long MIN_VIEW_NS = 1_000;

    private final TaskRunner tasks;
    private final ReadOnlyObjectWrapper<TraceView> trace = new ReadOnlyObjectWrapper<>(this, "trace");
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title", "");
    private final ReadOnlyObjectWrapper<TimeRange> bounds = new ReadOnlyObjectWrapper<>(this, "bounds", new TimeRange(0, 1));
    private final ObjectProperty<TimeRange> viewRange = new SimpleObjectProperty<>(this, "viewRange", new TimeRange(0, 1));
    private final ObjectProperty<TimeRange> selection = new SimpleObjectProperty<>(this, "selection");
    private final LongProperty cursor = new SimpleLongProperty(this, "cursor", -1);
    private final ObjectProperty<ScopeAnalysis> selectedScope = new SimpleObjectProperty<>(this, "selectedScope");
    private final ObjectProperty<SiteSelection> selectedSite = new SimpleObjectProperty<>(this, "selectedSite");
    private final BooleanProperty followLive = new SimpleBooleanProperty(this, "followLive", false);
    private final ReadOnlyLongWrapper revision = new ReadOnlyLongWrapper(this, "revision");
    private final ReadOnlyLongWrapper eventCount = new ReadOnlyLongWrapper(this, "eventCount");
    private final ReadOnlyLongWrapper lostEvents = new ReadOnlyLongWrapper(this, "lostEvents");
    private final ReadOnlyDoubleWrapper eventsPerSecond = new ReadOnlyDoubleWrapper(this, "eventsPerSecond");
    private final ReadOnlyObjectWrapper<TraceAggregate.Snapshot> digest =
            new ReadOnlyObjectWrapper<>(this, "digest", TraceAggregate.Snapshot.EMPTY);
    private final ReadOnlyStringWrapper device = new ReadOnlyStringWrapper(this, "device", "");
    private final ObjectProperty<TraceView> baseline = new SimpleObjectProperty<>(this, "baseline");
    private final ReadOnlyStringWrapper baselineTitle = new ReadOnlyStringWrapper(this, "baselineTitle", "");
    private final ObjectProperty<BaselinePairing> baselinePairing = new SimpleObjectProperty<>(this, "baselinePairing", BaselinePairing.NONE);
    private final BooleanProperty stretchBaseline = new SimpleBooleanProperty(this, "stretchBaseline", false);
    private final BooleanProperty alignBaselineByStep = new SimpleBooleanProperty(this, "alignBaselineByStep", true);
    private final ObjectProperty<AllocationSelection> selectedAllocation = new SimpleObjectProperty<>(this, "selectedAllocation");
    private final SiteAnalysisCache sites;

    private TraceAggregate digester;
    private final AtomicBoolean digesting = new AtomicBoolean();
    private boolean digestPending;
    private long rateCount;
    private long rateNanos;
    /** A live session's clock (ns since its start), or null: the time axis of a live session runs to now. */
    private LongSupplier liveClock;
    /** The live clock's last reading (kept when the session ends), or -1. */
    private long liveNowNs = -1;

    public SessionModel(TaskRunner tasks) {
        this.tasks = tasks;
        this.sites = new SiteAnalysisCache(tasks);
    }

    /**
     * Shows {@code view} (a loaded file or a live store); resets range and selection, and drops any
     * baseline: a comparison was made for the session it was loaded beside, not for the next one.
     */
    public void show(TraceView view, String sessionTitle, String deviceName) {
        show(view, sessionTitle, deviceName, null);
    }

    /**
     * Shows a live session's {@code view}, whose time axis runs to {@code clockNs} (the session's clock,
     * ns since its start, read on each {@link #refresh()}) rather than to its last event: a workload that
     * creates its memory and then prepares for seconds shows those seconds passing, not a 1 µs axis around
     * its one event with nothing in range.
     */
    public void showLive(TraceView view, String sessionTitle, String deviceName, LongSupplier clockNs) {
        show(view, sessionTitle, deviceName, clockNs);
    }

    private void show(TraceView view, String sessionTitle, String deviceName, LongSupplier clockNs) {
        liveClock = clockNs;
        liveNowNs = clockNs == null ? -1 : clockNs.getAsLong();
        setBaseline(null, null);
        sourceFile.set(null);
        trace.set(view);
        title.set(sessionTitle);
        device.set(deviceName == null ? "" : deviceName);
        selection.set(null);
        cursor.set(-1);
        selectedScope.set(null);
        selectedAllocation.set(null);
        selectedSite.set(null);
        sites.reset(view);
        digest.set(TraceAggregate.Snapshot.EMPTY);
        digester = view == null ? null : new TraceAggregate(view);
        digestPending = false;
        rateCount = view == null ? 0 : view.eventCount();
        rateNanos = System.nanoTime();
        eventsPerSecond.set(0);
        updateBounds(true);
        revision.set(revision.get() + 1);
        requestDigest();
    }

    /**
     * Picks up events that arrived since the last call (live sessions): bounds, counts, rate, follows
     * the end when {@link #followLiveProperty()} is set, and brings the digest up to date in the
     * background. Cheap when nothing changed.
     */
    public void refresh() {
        TraceView v = trace.get();
        if (v == null) {
            return;
        }
        long n = v.eventCount();
        long now = System.nanoTime();
        if (now - rateNanos >= 500_000_000L) {
            eventsPerSecond.set((n - rateCount) * 1e9 / (now - rateNanos));
            rateCount = n;
            rateNanos = now;
        }
        lostEvents.set(v.lostEvents());
        boolean clockMoved = false;
        if (liveClock != null) {
            long t = liveClock.getAsLong();
            clockMoved = t > liveNowNs;
            liveNowNs = Math.max(liveNowNs, t);
        }
        if (n == eventCount.get()) {
            if (clockMoved) {
                updateBounds(false); // time passes on the axis; the events are as they were
            }
            return;
        }
        updateBounds(false);
        revision.set(revision.get() + 1);
        requestDigest();
    }

    private void updateBounds(boolean resetView) {
        TraceView v = trace.get();
        // the count first, then the times: events that land meanwhile are inside the bounds and counted by
        // the next refresh (read the other way round, a burst landing between the reads was counted but
        // left outside the bounds, and no refresh looked again until more events came)
        long n = v == null ? 0 : v.eventCount();
        long start = n > 0 ? v.startNs() : 0;
        long last = n > 0 ? v.endNs() : 0;
        long end = Math.max(last + 1, start + MIN_VIEW_NS); // half-open: the last event is inside
        if (liveNowNs >= 0) {
            end = Math.max(end, liveNowNs + 1);
        }
        if (v == null) {
            end = 1;
        }
        TimeRange b = new TimeRange(start, end);
        TimeRange old = bounds.get();
        bounds.set(b);
        eventCount.set(n);
        lostEvents.set(v == null ? 0 : v.lostEvents());
        if (resetView) {
            viewRange.set(b);
        } else if (followLive.get()) {
            TimeRange cur = viewRange.get();
            boolean wasAll = cur.fromNs() <= old.fromNs() && cur.toNs() >= old.toNs();
            viewRange.set(wasAll ? b : new TimeRange(end - cur.duration(), end).clampTo(b));
        }
    }

    private void requestDigest() {
        if (digester == null) {
            return;
        }
        if (!digesting.compareAndSet(false, true)) {
            digestPending = true;
            return;
        }
        TraceAggregate d = digester;
        tasks.submit(BackgroundTask.of("Analysing " + title.get(), p -> {
            d.advance(p);
            return d.snapshot();
        }).onSuccess(s -> {
            digesting.set(false);
            if (d == digester) {
                digest.set(s);
                if (digestPending) {
                    digestPending = false;
                    requestDigest();
                }
            }
        }).onFailure(e -> digesting.set(false)).onCancelled(() -> digesting.set(false)));
    }

    /**
     * A live session ended (finished, stopped, failed, or its connection closed): picks up its last
     * events and shows a rate of 0, which would otherwise stay frozen at its last value.
     */
    public void liveEnded() {
        if (liveClock != null) {
            liveNowNs = Math.max(liveNowNs, liveClock.getAsLong()); // the axis ends where the session did
            liveClock = null;
        }
        if (trace.get() != null && trace.get().eventCount() != eventCount.get()) {
            updateBounds(false);
            revision.set(revision.get() + 1);
            requestDigest();
        }
        rateCount = trace.get() == null ? 0 : trace.get().eventCount();
        rateNanos = System.nanoTime();
        eventsPerSecond.set(0);
    }

    /** Names the device (and retitles) once a live session's device is open. */
    public void setDevice(String deviceName, String sessionTitle) {
        device.set(deviceName == null ? "" : deviceName);
        if (sessionTitle != null) {
            title.set(sessionTitle);
        }
    }

    /** Shows the whole session. */
    public void zoomToFit() {
        viewRange.set(bounds.get());
    }

    /** Zooms the visible range by {@code factor} around {@code anchorNs}. */
    public void zoom(double factor, long anchorNs) {
        viewRange.set(viewRange.get().zoom(factor, anchorNs, bounds.get(), MIN_VIEW_NS));
    }

    /** Pans the visible range by {@code deltaNs}. */
    public void pan(long deltaNs) {
        viewRange.set(viewRange.get().pan(deltaNs, bounds.get()));
    }

    public TaskRunner tasks() {
        return tasks;
    }

    public ReadOnlyObjectProperty<TraceView> traceProperty() {
        return trace.getReadOnlyProperty();
    }

    /**
     * What the shown trace's time counts: time, or entries for a snapshot without timestamps (every
     * axis, caption, card and table of the window then speaks in entries).
     */
    public TimeAxis timeAxis() {
        TraceView t = trace.get();
        return TimeAxis.of(t == null || t.session() == null ? null : t.session().attributes());
    }

    public TraceView trace() {
        return trace.get();
    }

    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<TimeRange> boundsProperty() {
        return bounds.getReadOnlyProperty();
    }

    public ObjectProperty<TimeRange> viewRangeProperty() {
        return viewRange;
    }

    /** The selected time range, or null. */
    public ObjectProperty<TimeRange> selectionProperty() {
        return selection;
    }

    /** The selected instant (ns), or -1. */
    public LongProperty cursorProperty() {
        return cursor;
    }

    /** The scope whose executions the timeline highlights, or null. */
    public ObjectProperty<ScopeAnalysis> selectedScopeProperty() {
        return selectedScope;
    }

    /**
     * The allocation picked on the timeline (a click on its stripe), or null. The Events table lists its
     * allocation and free rows while it is set.
     */
    public ObjectProperty<AllocationSelection> selectedAllocationProperty() {
        return selectedAllocation;
    }

    /**
     * The allocations the site view selected (a node of its tree or flame graph), or the site of the
     * allocation picked on the timeline, or null: the timeline highlights them, the events table lists
     * their events. Cleared when another session is shown.
     */
    public ObjectProperty<SiteSelection> selectedSiteProperty() {
        return selectedSite;
    }

    /** The core's site analysis of each memory, built on request and shared by the views. */
    public SiteAnalysisCache sites() {
        return sites;
    }

    /** Keep the visible range on the newest events of a live session. */
    public BooleanProperty followLiveProperty() {
        return followLive;
    }

    /** Bumps whenever the shown events change (new session, new live events). */
    public ReadOnlyLongProperty revisionProperty() {
        return revision.getReadOnlyProperty();
    }

    public ReadOnlyLongProperty eventCountProperty() {
        return eventCount.getReadOnlyProperty();
    }

    public ReadOnlyLongProperty lostEventsProperty() {
        return lostEvents.getReadOnlyProperty();
    }

    public ReadOnlyDoubleProperty eventsPerSecondProperty() {
        return eventsPerSecond.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<TraceAggregate.Snapshot> digestProperty() {
        return digest.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty deviceProperty() {
        return device.getReadOnlyProperty();
    }

    /** A second trace to compare against (Compare with…), or null. */
    public ObjectProperty<TraceView> baselineProperty() {
        return baseline;
    }

    public ReadOnlyStringProperty baselineTitleProperty() {
        return baselineTitle.getReadOnlyProperty();
    }

    /** Shows {@code view} as the baseline, its memories paired with the shown ones by {@link BaselinePairing#match}. */
    public void setBaseline(TraceView view, String name) {
        baselineTitle.set(view == null ? "" : name);
        baselinePairing.set(view == null || trace.get() == null ? BaselinePairing.NONE
                : BaselinePairing.match(trace.get().memories(), view.memories()));
        baseline.set(view);
    }

    /** Which baseline memory each shown memory is compared with; the user may change it. */
    public ObjectProperty<BaselinePairing> baselinePairingProperty() {
        return baselinePairing;
    }

    /**
     * False (the default, and the report's rule): the baseline is aligned at its start with the
     * session's; true: it is also stretched to the session's length.
     */
    public BooleanProperty stretchBaselineProperty() {
        return stretchBaseline;
    }

    /**
     * True (the default): where the session and its baseline both have {@code ProfilerStep#N} markers (two
     * ranks of a job), the baseline is aligned by step, each common step beginning at the same time on both,
     * whatever their clocks; false, or without common steps, aligned in time as {@link #stretchBaselineProperty} says.
     */
    public BooleanProperty alignBaselineByStepProperty() {
        return alignBaselineByStep;
    }

    private final ObjectProperty<Path> sourceFile = new SimpleObjectProperty<>(this, "sourceFile");

    /**
     * The file the trace shown was read from, null for a live session (set after {@link #show}): what a
     * view that reads the file again (the allocator state's what-if, from a PyTorch snapshot) opens.
     */
    public ObjectProperty<Path> sourceFileProperty() {
        return sourceFile;
    }
}
