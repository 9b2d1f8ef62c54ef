package dev.arenascope.app.ui.sites;

import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.TraceView;

/**
 * What the site view asks: one question about one memory of the shown trace, in one shape, with the
 * session's cursor and selection as they were when it was asked, and the baseline to compare with.
 * Immutable; built on the FX thread, answered on a worker ({@link SiteAnswerBuilder}).
 *
 * @param trace          the shown trace
 * @param memory         the memory's id
 * @param question       which question
 * @param shape          how the answer is grouped and drawn
 * @param internal       keep frames marked internal
 * @param cursorNs       the session's cursor (ns), -1 when none is placed
 * @param selection      the session's selected range, or null
 * @param shorterThanNs  the temporaries' threshold (ns, positive)
 * @param baseline       the baseline trace (compare mode), or null
 * @param baselineMemory the baseline memory paired with {@code memory}, -1 for none
 * @param analysis       the analysis to answer from (the session's shared one), or null to have {@link SiteAnswerBuilder} build or reuse one
 */
public record SiteRequest(TraceView trace, int memory, Question question, Shape shape, boolean internal, long cursorNs,
                          TimeRange selection, long shorterThanNs, TraceView baseline, int baselineMemory, SiteAnalysis analysis) {

    /** The questions, as the view's chooser names them. */
    public enum Question {
        CURSOR("Live at the cursor"),
        PEAK("At the peak"),
        RANGE("Allocated in the selection"),
        LEAKS("Leaks (never freed)"),
        TEMPORARIES("Temporaries");

        private final String title;

        Question(String title) {
            this.title = title;
        }

        @Override
        public String toString() {
            return title;
        }
    }

    /** How an answer is grouped: a table of sites, the two call trees, or categories. */
    public enum Shape {
        SITES("Sites"),
        TOP_DOWN("Top-down"),
        BOTTOM_UP("Bottom-up"),
        CATEGORY("By category");

        private final String title;

        Shape(String title) {
            this.title = title;
        }

        @Override
        public String toString() {
            return title;
        }

        /** The grouping the analysis answers with. */
        public SiteAnalysis.By by() {
            return this == CATEGORY ? SiteAnalysis.By.CATEGORY : SiteAnalysis.By.SITE;
        }
    }

    /** Thrown (and shown in the view) when the question cannot be asked yet: no cursor, no selection. */
    public static final class NotAskable extends RuntimeException {
        public NotAskable(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The question as the analysis of {@code sa} asks it, times clamped into the trace: the cursor for
     * {@link Question#CURSOR}; the selection for {@link Question#RANGE}; the selection, else the whole
     * trace, for {@link Question#TEMPORARIES}.
     *
     * @throws NotAskable when the question needs a cursor or a selection that is not there
     */
    public SiteQuestion coreQuestion(SiteAnalysis sa) {
        long end = sa.endNs();
        return switch (question) {
            case PEAK -> new SiteQuestion.AtPeak();
            case LEAKS -> new SiteQuestion.Leaks();
            case CURSOR -> {
                if (cursorNs < 0) {
                    throw new NotAskable("Click the timeline to place the cursor: this question asks what is live there");
                }
                yield new SiteQuestion.LiveAt(clamp(cursorNs, end));
            }
            case RANGE -> {
                if (selection == null) {
                    throw new NotAskable("Drag across the timeline to select a range: this question asks what was allocated in it");
                }
                yield new SiteQuestion.AllocatedIn(clamp(selection.fromNs(), end), clamp(selection.toNs() - 1, end));
            }
            case TEMPORARIES -> selection == null ? new SiteQuestion.Temporaries(0, end, shorterThanNs)
                    : new SiteQuestion.Temporaries(clamp(selection.fromNs(), end), clamp(selection.toNs() - 1, end), shorterThanNs);
        };
    }

    private static long clamp(long ns, long end) {
        return Math.max(0, Math.min(end, ns));
    }
}
