package dev.arenascope.app.ui.job;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;

import dev.arenascope.app.ui.live.ListenView;
import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.RankNames;

/**
 * The job of the processes a {@link ListenView} receives: each connection a rank, named from its process
 * ({@code rank(\d+)} in the session's name gives {@code rankN}; else the process name and pid, as the
 * Listen window lists it), told apart with {@code #2} when two give one name. {@link #update} summarises
 * only the ranks whose events changed since it last did (the others keep their row), so a refresh costs
 * what the growing ranks cost. A connection whose hello was refused is a failed row with the reason;
 * one that ended without a goodbye is read as far as it came, with the problem said.
 *
 * <p>Threads: {@link #snapshot} on the FX thread (it reads the Listen window), {@link #update} on one
 * worker at a time.
 */
final class LiveJob {
    /** What {@link #update} is given: the connections as they stood, with the names they get. */
    record Member(String rank, int number, boolean duplicate, ConnectionStats stats, TraceView store) {}

    private record Cached(long events, ConnectionStats.State state, RankSummary row) {}

    private final Map<Integer, Cached> cache = new HashMap<>();

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
            out.add(new Member(k == 1 ? n.base() : n.base() + "#" + k, n.number(), k > 1, n.c().stats(), n.c().store()));
        }
        out.sort(Comparator.comparingInt((Member m) -> m.number() < 0 ? 1 : 0).thenComparingInt(Member::number)
                .thenComparingInt(m -> m.stats().connection()));
        return out;
    }

    /** The job of {@code members} now (worker thread): ranks whose events did not change keep their row. */
    Job update(List<Member> members, String title) {
        List<RankSummary> rows = new ArrayList<>();
        Map<String, TraceView> stores = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        for (Member m : members) {
            ConnectionStats c = m.stats();
            String where = "connection " + c.connection() + (c.peer() == null ? "" : " from " + ListenView.address(c.peer().remoteAddress()));
            if (m.store() == null) {
                String why = c.detail() == null ? c.state().name().toLowerCase(Locale.ROOT) : c.detail();
                rows.add(RankSummary.failed(m.rank(), m.number(), where, m.duplicate(), why));
                notes.add("rank " + m.rank() + ": " + why);
                continue;
            }
            String problem = switch (c.state()) {
                case CUT, DISCONNECTED -> c.state().name().toLowerCase(Locale.ROOT) + (c.detail() == null ? "" : ": " + c.detail());
                default -> null;
            };
            long events = m.store().eventCount();
            Cached was = cache.get(c.connection());
            RankSummary row;
            if (was != null && was.events() == events && was.state() == c.state() && was.row().rank().equals(m.rank())) {
                row = was.row();
            } else {
                row = RankSummary.of(m.rank(), m.number(), where, m.duplicate(), problem, m.store());
                cache.put(c.connection(), new Cached(events, c.state(), row));
            }
            rows.add(row);
            stores.put(m.rank(), m.store());
            if (problem != null) {
                notes.add("rank " + m.rank() + ": " + problem);
            }
        }
        return new Job(title, JobSummary.of(rows), stores, notes, true);
    }
}
