package dev.arenascope.core.analysis;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fits {@code y = a + Σ bᵢ·xᵢ} to integer samples: exactly when the samples allow it, by least
 * squares otherwise.
 *
 * <p><b>Exact.</b> The augmented system {@code [1 X | y]} is row-reduced in exact rational arithmetic
 * ({@link BigInteger} numerators and denominators, so no rounding and no overflow). When it is
 * consistent, the solution has zero residual on every sample; columns that the samples cannot tell
 * apart from earlier ones (a parameter that never varied, or one that moved in lockstep with another)
 * get coefficient 0 and are listed as {@linkplain Result#unidentified() unidentified}.
 *
 * <p><b>Least squares.</b> Otherwise the independent columns are fitted by Householder QR on
 * centred, scaled columns (stable for the few parameters a scope has) and the worst residual is
 * reported.
 *
 * <p>Cost: O(n·k²) big-number operations after duplicate samples are merged, for n distinct samples
 * and k parameters. Stateless and thread-safe.
 */
public final class LinearFit {
    private LinearFit() {}

    /**
     * A fitted line.
     *
     * @param intercept        a, in the units of y
     * @param coefficients     bᵢ per column of x
     * @param exact            whether every sample is matched with zero residual
     * @param integral         whether {@code exact} and every coefficient and the intercept are integers
     * @param unidentified     column indices the samples could not separate (their coefficient is 0)
     * @param worstResidual    max |y − prediction| over the samples, in the units of y
     * @param worstUnder       max (y − prediction), ≥ 0: how far the fit under-predicted at worst
     * @param worstRelative    max |y − prediction| / max(|y|, 1) over the samples
     * @param outOfRange       -1 when every value is held exactly as a byte count; else the column of the first
     *                         that is not (0 the intercept, j + 1 coefficient j): one of 2^63 or more in magnitude
     *                         (no 64-bit byte count), or an integer a {@code double} would round. Such a fit is
     *                         neither exact nor integral, whatever its residuals
     */
    public record Result(double intercept, double[] coefficients, boolean exact, boolean integral,
                         List<Integer> unidentified, double worstResidual, double worstUnder, double worstRelative,
                         int outOfRange) {

        /** The prediction for one vector of x. */
        public double predict(long[] x) {
            double v = intercept;
            for (int j = 0; j < coefficients.length; j++) {
                v += coefficients[j] * x[j];
            }
            return v;
        }
    }

    /**
     * Fits y over the columns of x.
     *
     * @param x rows of k parameter values, one per sample (k may be 0)
     * @param y one measured value per sample
     * @throws IllegalArgumentException when there are no samples or the rows differ in length
     */
    public static Result fit(long[][] x, long[] y) {
        if (x.length == 0 || x.length != y.length) {
            throw new IllegalArgumentException("need one or more samples with one y each, got " + x.length + " rows and " + y.length + " values");
        }
        int k = x[0].length;
        for (long[] row : x) {
            if (row.length != k) {
                throw new IllegalArgumentException("sample rows differ in length: " + row.length + " and " + k);
            }
        }
        // merge duplicates: the same x with two different y's cannot be fitted exactly
        Map<RowKey, Long> distinct = new HashMap<>();
        List<long[]> rows = new ArrayList<>();
        List<Long> ys = new ArrayList<>();
        boolean conflicting = false;
        for (int i = 0; i < x.length; i++) {
            RowKey key = new RowKey(x[i]);
            Long prev = distinct.putIfAbsent(key, y[i]);
            if (prev == null) {
                rows.add(x[i]);
                ys.add(y[i]);
            } else if (prev != y[i]) {
                conflicting = true;
            }
        }
        Rational[] exact = conflicting ? null : solveExact(rows, ys, k);
        double intercept;
        double[] coef = new double[k];
        List<Integer> unidentified = new ArrayList<>();
        boolean integral = false;
        boolean[] independent = independentColumns(rows, k);
        for (int j = 0; j < k; j++) {
            if (!independent[j + 1]) {
                unidentified.add(j);
            }
        }
        if (exact != null) {
            intercept = exact[0].doubleValue();
            integral = exact[0].isInteger();
            for (int j = 0; j < k; j++) {
                coef[j] = exact[j + 1].doubleValue();
                integral &= exact[j + 1].isInteger();
            }
        } else {
            double[] beta = leastSquares(x, y, independent);
            intercept = beta[0];
            System.arraycopy(beta, 1, coef, 0, k);
        }
        double worst = 0;
        double under = 0;
        double rel = 0;
        int outOfRange = -1;
        for (int j = 0; j <= k && outOfRange < 0; j++) {
            if (exact != null ? !holds(exact[j]) : !(Math.abs(j == 0 ? intercept : coef[j - 1]) < 0x1p63)) {
                outOfRange = j;
            }
        }
        Result probe = new Result(intercept, coef, false, false, List.of(), 0, 0, 0, -1);
        for (int i = 0; i < x.length; i++) {
            // an exact rational solution matches every distinct row by construction (and duplicates share y)
            double r = exact != null ? 0 : y[i] - probe.predict(x[i]);
            worst = Math.max(worst, Math.abs(r));
            under = Math.max(under, r);
            rel = Math.max(rel, Math.abs(r) / Math.max(1.0, Math.abs((double) y[i])));
        }
        boolean sound = outOfRange < 0;
        return new Result(intercept, coef, sound && exact != null && worst == 0, sound && integral && worst == 0, List.copyOf(unidentified),
                worst, under, rel, outOfRange);
    }

    private static final BigInteger TWO_63 = BigInteger.ONE.shiftLeft(63);

    /** Whether {@code v} is a value a model can hold: under 2^63 in magnitude and, when an integer, exactly a double. */
    private static boolean holds(Rational v) {
        BigInteger whole = v.num().abs().divide(v.den());
        if (whole.compareTo(TWO_63) >= 0) {
            return false;
        }
        return !v.isInteger() || new BigDecimal(v.num()).compareTo(new BigDecimal(v.doubleValue())) == 0;
    }

    /** Which of the k+1 columns (intercept first) are linearly independent of the ones before them. */
    private static boolean[] independentColumns(List<long[]> rows, int k) {
        int n = rows.size();
        Rational[][] m = new Rational[n][k + 1];
        for (int i = 0; i < n; i++) {
            m[i][0] = Rational.ONE;
            for (int j = 0; j < k; j++) {
                m[i][j + 1] = Rational.of(rows.get(i)[j]);
            }
        }
        boolean[] pivots = new boolean[k + 1];
        rowReduce(m, k + 1, pivots);
        return pivots;
    }

    /** The exact solution (intercept first, free columns 0), or null when the system is inconsistent. */
    private static Rational[] solveExact(List<long[]> rows, List<Long> ys, int k) {
        int n = rows.size();
        int cols = k + 2;
        Rational[][] m = new Rational[n][cols];
        for (int i = 0; i < n; i++) {
            m[i][0] = Rational.ONE;
            for (int j = 0; j < k; j++) {
                m[i][j + 1] = Rational.of(rows.get(i)[j]);
            }
            m[i][k + 1] = Rational.of(ys.get(i));
        }
        boolean[] pivots = new boolean[k + 1];
        int rank = rowReduce(m, k + 1, pivots);
        for (int i = rank; i < n; i++) {
            if (!m[i][k + 1].isZero()) {
                return null;
            }
        }
        Rational[] sol = new Rational[k + 1];
        Arrays.fill(sol, Rational.ZERO);
        int r = 0;
        for (int j = 0; j <= k; j++) {
            if (pivots[j]) {
                sol[j] = m[r][k + 1];
                r++;
            }
        }
        return sol;
    }

    /**
     * Reduces {@code m} to reduced row echelon form over its first {@code width} columns (later
     * columns ride along). Marks pivot columns, returns the rank.
     */
    private static int rowReduce(Rational[][] m, int width, boolean[] pivots) {
        int n = m.length;
        int cols = n == 0 ? 0 : m[0].length;
        int r = 0;
        for (int j = 0; j < width && r < n; j++) {
            int p = -1;
            for (int i = r; i < n; i++) {
                if (!m[i][j].isZero()) {
                    p = i;
                    break;
                }
            }
            if (p < 0) {
                continue;
            }
            Rational[] t = m[p];
            m[p] = m[r];
            m[r] = t;
            Rational inv = m[r][j].inverse();
            for (int c = j; c < cols; c++) {
                m[r][c] = m[r][c].times(inv);
            }
            for (int i = 0; i < n; i++) {
                if (i != r && !m[i][j].isZero()) {
                    Rational f = m[i][j];
                    for (int c = j; c < cols; c++) {
                        m[i][c] = m[i][c].minus(f.times(m[r][c]));
                    }
                }
            }
            pivots[j] = true;
            r++;
        }
        return r;
    }

    /** Least squares over the independent columns (intercept first); others get 0. */
    private static double[] leastSquares(long[][] x, long[] y, boolean[] independent) {
        int n = x.length;
        int k = independent.length - 1;
        List<Integer> cols = new ArrayList<>();
        for (int j = 0; j < k; j++) {
            if (independent[j + 1]) {
                cols.add(j);
            }
        }
        int p = cols.size();
        double[] mean = new double[p];
        double[] scale = new double[p];
        double ymean = 0;
        for (int i = 0; i < n; i++) {
            ymean += y[i];
        }
        ymean /= n;
        for (int c = 0; c < p; c++) {
            double s = 0;
            for (int i = 0; i < n; i++) {
                s += x[i][cols.get(c)];
            }
            mean[c] = s / n;
            double v = 0;
            for (int i = 0; i < n; i++) {
                double d = x[i][cols.get(c)] - mean[c];
                v += d * d;
            }
            scale[c] = v > 0 ? Math.sqrt(v) : 1;
        }
        // centred system: (y - ymean) = Σ β_c (x_c - mean_c)/scale_c
        double[][] a = new double[n][p];
        double[] b = new double[n];
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < p; c++) {
                a[i][c] = (x[i][cols.get(c)] - mean[c]) / scale[c];
            }
            b[i] = y[i] - ymean;
        }
        double[] beta = householderSolve(a, b, n, p);
        double[] out = new double[k + 1];
        double intercept = ymean;
        for (int c = 0; c < p; c++) {
            double coef = beta[c] / scale[c];
            out[cols.get(c) + 1] = coef;
            intercept -= coef * mean[c];
        }
        out[0] = intercept;
        return out;
    }

    private static double[] householderSolve(double[][] a, double[] b, int n, int p) {
        int steps = Math.min(n, p);
        for (int j = 0; j < steps; j++) {
            double norm = 0;
            for (int i = j; i < n; i++) {
                norm += a[i][j] * a[i][j];
            }
            norm = Math.sqrt(norm);
            if (norm == 0) {
                continue;
            }
            double alpha = a[j][j] > 0 ? -norm : norm;
            double[] v = new double[n];
            for (int i = j; i < n; i++) {
                v[i] = a[i][j];
            }
            v[j] -= alpha;
            double vv = 0;
            for (int i = j; i < n; i++) {
                vv += v[i] * v[i];
            }
            if (vv == 0) {
                continue;
            }
            for (int c = j; c < p; c++) {
                double d = 0;
                for (int i = j; i < n; i++) {
                    d += v[i] * a[i][c];
                }
                d = 2 * d / vv;
                for (int i = j; i < n; i++) {
                    a[i][c] -= d * v[i];
                }
            }
            double d = 0;
            for (int i = j; i < n; i++) {
                d += v[i] * b[i];
            }
            d = 2 * d / vv;
            for (int i = j; i < n; i++) {
                b[i] -= d * v[i];
            }
        }
        double[] beta = new double[p];
        for (int j = steps - 1; j >= 0; j--) {
            double s = b[j];
            for (int c = j + 1; c < p; c++) {
                s -= a[j][c] * beta[c];
            }
            beta[j] = Math.abs(a[j][j]) < 1e-12 ? 0 : s / a[j][j];
        }
        return beta;
    }

    private record RowKey(long[] row) {
        @Override
        public boolean equals(Object o) {
            return o instanceof RowKey other && Arrays.equals(row, other.row);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(row);
        }
    }

    /** An exact fraction, always reduced, denominator positive. */
    record Rational(BigInteger num, BigInteger den) {
        static final Rational ZERO = new Rational(BigInteger.ZERO, BigInteger.ONE);
        static final Rational ONE = new Rational(BigInteger.ONE, BigInteger.ONE);

        static Rational of(long v) {
            return v == 0 ? ZERO : v == 1 ? ONE : new Rational(BigInteger.valueOf(v), BigInteger.ONE);
        }

        static Rational make(BigInteger n, BigInteger d) {
            if (d.signum() < 0) {
                n = n.negate();
                d = d.negate();
            }
            BigInteger g = n.gcd(d);
            if (!g.equals(BigInteger.ONE) && g.signum() != 0) {
                n = n.divide(g);
                d = d.divide(g);
            }
            return new Rational(n, d);
        }

        boolean isZero() {
            return num.signum() == 0;
        }

        boolean isInteger() {
            return den.equals(BigInteger.ONE);
        }

        Rational times(Rational o) {
            if (isZero() || o.isZero()) {
                return ZERO;
            }
            return make(num.multiply(o.num), den.multiply(o.den));
        }

        Rational minus(Rational o) {
            if (o.isZero()) {
                return this;
            }
            if (den.equals(o.den)) {
                return make(num.subtract(o.num), den);
            }
            return make(num.multiply(o.den).subtract(o.num.multiply(den)), den.multiply(o.den));
        }

        Rational inverse() {
            return make(den, num);
        }

        double doubleValue() {
            return new BigDecimal(num).divide(new BigDecimal(den), MathContext.DECIMAL64).doubleValue();
        }
    }
}
