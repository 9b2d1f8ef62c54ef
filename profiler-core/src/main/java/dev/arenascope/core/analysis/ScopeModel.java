package dev.arenascope.core.analysis;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The fitted memory model of one scope name: {@code bytes = a + Σ bᵢ·paramᵢ}, where bytes are those
 * requested by the allocations made directly inside the scope (see {@link ScopeSample#ownBytes()}).
 *
 * <p>Alignment: each allocation may lose up to (alignment − 1) bytes to padding, which the fit does
 * not see (it fits requested bytes, which are what the params drive). {@link #slackBytes()} bounds
 * that loss from the recording: the most allocations one execution made times (the alignment the
 * recording showed − 1). {@link #bound(Map)} adds it, and for a least-squares model also the worst
 * under-prediction seen, so a bound is safe for every recorded execution.
 *
 * @param name            the scope name
 * @param params          the parameter names, in the order of {@code coefficients}
 * @param intercept       a, bytes
 * @param coefficients    bᵢ, bytes per unit of paramᵢ
 * @param exact           zero residual on every recorded execution
 * @param integral        exact, and a and every bᵢ are integers
 * @param unidentified    params the recording never varied independently (their bᵢ is 0, their effect is in a)
 * @param samples         executions fitted
 * @param worstResidual   bytes: the largest |measured − predicted| over them
 * @param worstUnder      bytes: the largest (measured − predicted), ≥ 0
 * @param worstRelative   the largest |measured − predicted| / measured
 * @param slackBytes      bytes: the alignment loss bound described above
 * @param maxPadding      bytes: the most alignment loss one execution actually showed
 * @param overflow        null for a model; else why there is none in 64-bit bytes (an execution requested
 *                        2^63 bytes or more, or the fitted constant or a coefficient passed 2^63 or what a
 *                        double holds exactly): such a model is neither exact nor integral and predicts nothing
 */
public record ScopeModel(String name, List<String> params, double intercept, double[] coefficients,
                         boolean exact, boolean integral, List<String> unidentified, int samples,
                         double worstResidual, double worstUnder, double worstRelative,
                         long slackBytes, long maxPadding, String overflow) {

    public ScopeModel {
        params = List.copyOf(params);
        unidentified = List.copyOf(unidentified);
        coefficients = coefficients.clone();
    }

    /**
     * The predicted requested bytes for these params, rounded to a whole byte and never negative.
     * A param missing from {@code values} counts as 0.
     */
    public long predict(Map<String, Long> values) {
        if (overflow != null) {
            return Long.MAX_VALUE; // no model: nothing is known to fit
        }
        double v = intercept;
        for (int j = 0; j < params.size(); j++) {
            Long p = values.get(params.get(j));
            if (p != null) {
                v += coefficients[j] * p;
            }
        }
        return Math.max(0, Math.round(v));
    }

    /** An upper bound for the bytes the scope takes of the arena: prediction + worst under-prediction + alignment slack. */
    public long bound(Map<String, Long> values) {
        long p = predict(values);
        long extra = (long) Math.ceil(worstUnder) + slackBytes;
        return p > Long.MAX_VALUE - extra ? Long.MAX_VALUE : p + extra;
    }

    /** The model as one formula line, e.g. {@code 4096 + 1048576·frames + 36·num_triangles}. */
    public String formula() {
        if (overflow != null) {
            return "none: " + overflow;
        }
        StringBuilder sb = new StringBuilder(number(intercept));
        for (int j = 0; j < params.size(); j++) {
            if (unidentified.contains(params.get(j))) {
                continue;
            }
            double c = coefficients[j];
            sb.append(c < 0 ? " - " : " + ").append(number(Math.abs(c))).append('·').append(params.get(j));
        }
        return sb.toString();
    }

    private String number(double v) {
        if (integral || v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString(Math.round(v));
        }
        return String.format(Locale.ROOT, "%.4g", v);
    }
}
