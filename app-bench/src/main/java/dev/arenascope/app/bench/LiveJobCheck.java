package dev.arenascope.app.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.arenascope.core.analysis.RankSummary;

/**
 * What {@link LiveJobProbe} checks of a live job: each process's own count of what it sent, read from the
 * line it prints as it ends, against the Ranks view's rows. A Java sender ({@link LiveJobSender}) is the
 * rank {@code NAME (pid P)} the view names a process by, P its process's pid, which the line must repeat;
 * a Python client is the rank its {@code --name} gives ({@code train rank3}: {@code rank3}). Every failure
 * is a {@link Failure} with one line saying which rank or process and what differs; the probe exits 3 with it.
 */
final class LiveJobCheck {
    private LiveJobCheck() {}

    /** A check that did not hold: its message is the one line the probe prints. */
    static final class Failure extends Exception {
        Failure(String why) {
            super(why);
        }
    }

    /** One process's count: the rank the view should show it as, its kind ({@code java}, {@code python}) and the events it sent. */
    record Sent(String rank, String kind, long events) {}

    /** {@link LiveJobSender}'s line. */
    static final Pattern JAVA_LINE = Pattern.compile("events=(\\d+) delivered=(\\d+) lost=(\\d+) pid=(\\d+)");
    /** The Python client's closing line on stderr: what it wrote and lost, then, when it streamed, what the receiver confirmed. */
    static final Pattern PYTHON_LINE = Pattern.compile("arenascope: (\\d+) events, (\\d+) lost -> [^\\n]*");
    private static final Pattern CONFIRMED = Pattern.compile("\\(receiver confirmed (\\d+)\\)");

    /**
     * A Java sender's count from its output: the rank {@code session (pid P)} with P {@code pid}, the
     * process's own pid as the one that started it knows it.
     *
     * @throws Failure when the output holds no count, names another pid, or lost or left undelivered an event
     */
    static Sent java(String session, long pid, String output) throws Failure {
        Matcher m = JAVA_LINE.matcher(output);
        if (!m.find()) {
            throw new Failure("the Java sender (pid " + pid + ") printed no count: " + last(output));
        }
        long events = Long.parseLong(m.group(1));
        long delivered = Long.parseLong(m.group(2));
        long lost = Long.parseLong(m.group(3));
        if (Long.parseLong(m.group(4)) != pid) {
            throw new Failure("the Java sender (pid " + pid + ") says it is pid " + m.group(4) + ": " + m.group());
        }
        if (lost != 0 || delivered != events) {
            throw new Failure(String.format(Locale.ROOT, "the Java sender (pid %d) lost %,d events and had %,d of %,d acknowledged",
                    pid, lost, delivered, events));
        }
        return new Sent(session + " (pid " + pid + ")", "java", events);
    }

    /**
     * A Python client's count from its output, as rank {@code rank}.
     *
     * @throws Failure when the output holds no closing line, the client lost events, or the receiver
     *                 confirmed fewer than it wrote (or nothing: the connection broke)
     */
    static Sent python(String rank, String output) throws Failure {
        Matcher m = PYTHON_LINE.matcher(output);
        if (!m.find()) {
            throw new Failure("the Python client for " + rank + " printed no count: " + last(output));
        }
        long events = Long.parseLong(m.group(1));
        long lost = Long.parseLong(m.group(2));
        Matcher c = CONFIRMED.matcher(m.group());
        if (!c.find()) {
            throw new Failure("the Python client for " + rank + " had none of its events confirmed: " + m.group().strip());
        }
        long confirmed = Long.parseLong(c.group(1));
        if (lost != 0 || confirmed != events) {
            throw new Failure(String.format(Locale.ROOT, "the Python client for %s lost %,d events and had %,d of %,d confirmed",
                    rank, lost, confirmed, events));
        }
        return new Sent(rank, "python", events);
    }

    /**
     * The counts by rank name, in the order given.
     *
     * @throws Failure when two processes give one rank name
     */
    static Map<String, Long> byRank(List<Sent> sent) throws Failure {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Sent s : sent) {
            if (out.put(s.rank(), s.events()) != null) {
                throw new Failure("two processes give the rank name " + s.rank());
            }
        }
        return out;
    }

    /**
     * What differs between what the processes sent and the Ranks view's rows, in one line, or null when
     * every process is a rank read whole with exactly the events it sent, and the view has no other rank.
     */
    static String difference(Map<String, Long> sent, List<RankSummary> shown) {
        Map<String, RankSummary> rows = new LinkedHashMap<>();
        for (RankSummary r : shown) {
            if (rows.put(r.rank(), r) != null) {
                return "rank " + r.rank() + " is in the Ranks view twice";
            }
        }
        for (Map.Entry<String, Long> e : sent.entrySet()) {
            RankSummary r = rows.get(e.getKey());
            if (r == null) {
                return "rank " + e.getKey() + " is not in the Ranks view (it shows " + rows.keySet() + ")";
            }
            if (!r.loaded()) {
                return "rank " + e.getKey() + " failed: " + r.failureLine();
            }
            if (r.events() != e.getValue()) {
                long missing = e.getValue() - r.events();
                return String.format(Locale.ROOT, "rank %s shows %,d events, its process sent %,d (%s %,d)", e.getKey(), r.events(),
                        e.getValue(), missing > 0 ? "missing" : "extra", Math.abs(missing));
            }
            if (r.problem() != null) {
                return "rank " + e.getKey() + " is damaged: " + r.problem();
            }
        }
        for (String rank : rows.keySet()) {
            if (!sent.containsKey(rank)) {
                return "rank " + rank + " is in the Ranks view but no process gave that name";
            }
        }
        return null;
    }

    private static String last(String output) {
        String[] lines = output.strip().split("\n");
        return lines.length == 0 || lines[lines.length - 1].isBlank() ? "(no output)" : lines[lines.length - 1].strip();
    }
}
