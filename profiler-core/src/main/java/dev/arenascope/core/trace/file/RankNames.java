package dev.arenascope.core.trace.file;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Names the ranks of a job from its files' names, as distributed trainers name their snapshots
 * ({@code snapshot_rank3.pickle}, {@code oom_rank12.pickle}, {@code memory_7.pickle}). In order: an
 * override pattern's first group (or whole match) when one is given and matches; {@code rank(\d+)}
 * (any case); {@code _(\d+)\.pickle} at the end; else the file name itself. A caught number names the
 * rank {@code rankN}; other caught text is the name as caught.
 *
 * <p>Two files that resolve to the same name are both kept: the first (in path order) keeps the name,
 * the next are {@code NAME#2}, {@code NAME#3}, ... and are marked {@link JobMember#duplicate()}. Members
 * come out numbered ranks first by number, then named ones by name, so rank 10 follows rank 9.
 * Stateless.
 */
public final class RankNames {
    /** {@code rank(\d+)}, any case. */
    public static final Pattern RANK = Pattern.compile("rank(\\d+)", Pattern.CASE_INSENSITIVE);
    /** {@code _(\d+)\.pickle} at the end of the name. */
    public static final Pattern NUMBERED_PICKLE = Pattern.compile("_(\\d+)\\.pickle$", Pattern.CASE_INSENSITIVE);

    private RankNames() {}

    /**
     * Compiles a user's {@code --rank-pattern}.
     *
     * @throws IllegalArgumentException naming the pattern and what is wrong with it
     */
    public static Pattern pattern(String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("rank pattern '" + regex + "' is not a regular expression: " + e.getDescription());
        }
    }

    /** The rank name of one file, before duplicates are told apart; {@code override} may be null. */
    public static String name(Path file, Pattern override) {
        String n = String.valueOf(file.getFileName());
        if (override != null) {
            String caught = caught(override, n);
            if (caught != null) {
                return caught;
            }
        }
        String caught = caught(RANK, n);
        if (caught == null) {
            caught = caught(NUMBERED_PICKLE, n);
        }
        return caught == null ? n : caught;
    }

    private static String caught(Pattern p, String fileName) {
        Matcher m = p.matcher(fileName);
        if (!m.find()) {
            return null;
        }
        String text = m.groupCount() >= 1 && m.group(1) != null ? m.group(1) : m.group();
        if (text.isEmpty()) {
            return null;
        }
        return text.chars().allMatch(Character::isDigit) && text.length() <= 9 ? "rank" + Integer.parseInt(text) : text;
    }

    /** The number of a {@code rankN} name, else -1. */
    public static int number(String name) {
        if (name.startsWith("rank") && name.length() > 4 && name.length() <= 13 && name.substring(4).chars().allMatch(Character::isDigit)) {
            return Integer.parseInt(name.substring(4));
        }
        return -1;
    }

    /** Names every file of a job, duplicates told apart, in rank order. */
    public static List<JobMember> members(List<Path> files, Pattern override) {
        List<Path> byPath = new ArrayList<>(files);
        byPath.sort(Comparator.comparing(Path::toString));
        Map<String, Integer> seen = new HashMap<>();
        List<JobMember> out = new ArrayList<>();
        for (Path f : byPath) {
            String base = name(f, override);
            int k = seen.merge(base, 1, Integer::sum);
            String rank = k == 1 ? base : base + "#" + k;
            out.add(new JobMember(rank, number(base), f, k > 1));
        }
        out.sort(Comparator.comparingInt((JobMember m) -> m.number() < 0 ? 1 : 0)
                .thenComparingInt(JobMember::number)
                .thenComparing(m -> m.number() < 0 ? m.rank() : "")
                .thenComparing(JobMember::duplicate)
                .thenComparing(m -> m.file().toString()));
        return out;
    }
}
