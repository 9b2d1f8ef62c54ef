package dev.arenascope.app.ui.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.stream.Collectors;

import dev.arenascope.app.ui.live.ListenView;
import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankPass;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.RankNames;

/**
 * The job of the processes a {@link ListenView} receives: each connection a rank, named from its process
 * ({@code rank(\d+)} in the session's name gives {@code rankN}; else the process name and pid, as the
 * Listen window lists it), told apart with {@code #2} when two give one name. {@link #update} summarises
 * only the ranks whose events changed since it last did (the others keep their row), and spends at most
 * a budget (250 ms) on full summaries, the other changed ranks brought up to date from their stores'
 * indexes, so a refresh costs about the same with 16 processes streaming as with two. A connection whose hello was refused is a failed row with the reason;
 * one that ended without a goodbye is read as far as it came, with the problem said.
 *
 * <p>Threads: {@link #snapshot} on the FX thread (it reads the Listen window), {@link #update} on one
 * worker at a time.
 */
final class LiveJob {
    /**
     * What {@link #update} is given: the connections as they stood, with the names they get and their keys
     * (what a rank's row is remembered by: a connection number comes again after listening is restarted).
     */
    record Member(String rank, int number, boolean duplicate, ListenView.Key key, ConnectionStats stats, TraceView store) {}

    /** A rank's last row: made in full at {@code fullAt} (the update's number) over {@code fullEvents} events. */
    private record Cached(long events, ConnectionStats.State state, RankSummary row, long fullAt, long fullEvents) {}

    /** What one update spends on full summaries by default (the Ranks view refreshes every 500 ms). */
    static final Duration FULL_BUDGET = Duration.ofMillis(250);

    private final Map<ListenView.Key, Cached> cache = new HashMap<>();
    private final long budgetNs;
    private long updates;

    LiveJob() {
        this(FULL_BUDGET);
    }

    /**
     * @param budget what one {@link #update} may spend on full summaries (a pass over a rank's events)
     *               before it brings the other changed ranks up to date from their stores' indexes alone
     */
    LiveJob(Duration budget) {
        this.budgetNs = budget.toNanos();
    }

    /** Names the connections of {@code connections} as ranks, numbered ones first, then in connection order (FX thread). */
    static List<Member> snapshot(List<ListenView.Connection> connections) {
        record Named(String base, int number, ListenView.Connection c) {}
        List<Named> named = new ArrayList<>();
        for (ListenView.Connection c : connections) {
            if (c.stats().peer() == null && c.store() == null && !c.stats().state().ended()) {
                continue; // its hello has not arrived yet
            }
            String session = c.stats().peer() == null || c.stats().peer().session() == null ? "" : c.stats().peer().session().name();
            Matcher m = RankNames.RANK.matcher(session);
            String base;
            if (m.find() && m.group(1).length() <= 9) {
                base = "rank" + Integer.parseInt(m.group(1));
            } else {
                String p = ListenView.processName(c.stats());
                base = p.isEmpty() ? "connection " + c.stats().connection() : p;
            }
            named.add(new Named(base, RankNames.number(base), c));
        }
        Map<String, Integer> seen = new HashMap<>();
        List<Member> out = new ArrayList<>();
        for (Named n : named) {
            int k = seen.merge(n.base(), 1, Integer::sum);
            out.add(new Member(k == 1 ? n.base() : n.base() + "#" + k, n.number(), k > 1, n.c().key(), n.c().stats(), n.c().store()));
        }
        out.sort(Comparator.comparingInt((Member m) -> m.number() < 0 ? 1 : 0).thenComparingInt(Member::number)
                .thenComparingInt(m -> m.stats().connection()));
        return out;
    }

    /**
     * The job of {@code members} now (worker thread). A rank whose events did not change keeps its row. Of
     * those that changed, a new one (no row yet) or one whose connection changed state is summarised in
     * full; the others in full in the order of their last full summary, oldest first, while this update
     * has spent less than its budget on full summaries (at least one each update, so every rank comes
     * round), and the rest brought up to date from their stores' indexes ({@link RankPass#refreshed}:
     * events, peaks, sparkline current; step, top site and counts as of their last full summary). So an
     * update costs about the budget whatever the ranks hold, and the view follows every rank's peak.
     */
    Job update(List<Member> members, String title) {
        long started = System.nanoTime();
        long update = ++updates;
        RankSummary[] rows = new RankSummary[members.size()];
        List<Integer> stale = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            ConnectionStats c = m.stats();
            if (m.store() == null) {
                String why = c.detail() == null ? c.state().name().toLowerCase(Locale.ROOT) : c.detail();
                rows[i] = RankSummary.failed(m.rank(), m.number(), where(c), m.duplicate(), why);
                continue;
            }
            long events = m.store().eventCount();
            Cached was = cache.get(m.key());
            if (was != null && was.events() == events && was.state() == c.state() && was.row().rank().equals(m.rank())) {
                rows[i] = was.row();
            } else if (was == null || was.state() != c.state() || !was.row().rank().equals(m.rank())) {
                rows[i] = full(m, events, update);
            } else {
                stale.add(i);
            }
        }
        stale.sort(Comparator.comparingLong(i -> cache.get(members.get(i).key()).fullAt()));
        boolean first = true;
        for (int i : stale) {
            Member m = members.get(i);
            long events = m.store().eventCount();
            if (first || System.nanoTime() - started < budgetNs) {
                rows[i] = full(m, events, update);
            } else {
                Cached was = cache.get(m.key());
                rows[i] = RankPass.refreshed(was.row(), m.store());
                cache.put(m.key(), new Cached(events, m.stats().state(), rows[i], was.fullAt(), was.fullEvents()));
            }
            first = false;
        }
        // the rows of connections no longer listed (an earlier listening's) are not kept
        cache.keySet().retainAll(members.stream().map(Member::key).collect(Collectors.toSet()));
        Map<String, TraceView> stores = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            if (m.store() == null) {
                notes.add("rank " + m.rank() + ": " + rows[i].failureLine());
                continue;
            }
            stores.put(m.rank(), m.store());
            String problem = problem(m.stats());
            if (problem != null) {
                notes.add("rank " + m.rank() + ": " + problem);
            }
        }
        return new Job(title, JobSummary.of(List.of(rows)), stores, notes, true);
    }

    /** How many events the row of connection {@code key} last summarised in full (-1: none yet); for tests. */
    long fullEvents(ListenView.Key key) {
        Cached c = cache.get(key);
        return c == null ? -1 : c.fullEvents();
    }

    private RankSummary full(Member m, long events, long update) {
        RankSummary row = RankSummary.of(m.rank(), m.number(), where(m.stats()), m.duplicate(), problem(m.stats()), m.store());
        cache.put(m.key(), new Cached(events, m.stats().state(), row, update, events));
        return row;
    }

    private static String where(ConnectionStats c) {
        return "connection " + c.connection() + (c.peer() == null ? "" : " from " + ListenView.address(c.peer().remoteAddress()));
    }

    private static String problem(ConnectionStats c) {
        return switch (c.state()) {
            case CUT, DISCONNECTED -> c.state().name().toLowerCase(Locale.ROOT) + (c.detail() == null ? "" : ": " + c.detail());
            default -> null;
        };
    }
}
