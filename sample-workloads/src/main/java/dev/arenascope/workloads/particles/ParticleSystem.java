package dev.arenascope.workloads.particles;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A 2-D particle fluid in a unit box: emitters spray particles that fall under gravity, push each
 * other apart within a smoothing radius (neighbours found through a uniform grid) and bounce off the
 * walls, and die after their lifetime. The emission rate swells and ebbs, so the population grows
 * and shrinks over a run.
 *
 * <p>The per-particle state lives in this object; every per-step buffer (cell keys, cell counts and
 * starts, the sorted index, forces, the spawn upload) is a caller-provided segment, so the workload
 * can take them from a memory pool. Not thread-safe.
 */
public final class ParticleSystem {
    /** Grid cells per side. */
    public static final int GRID = 48;
    /** Cells in the grid. */
    public static final int CELLS = GRID * GRID;
    /** Bytes per particle in a spawn upload: x, y, vx, vy, life (floats). */
    public static final int SPAWN_BYTES = 20;
    private static final float H = 1.0f / GRID;
    /** Neighbours examined per particle at most (dense piles would otherwise cost quadratic time). */
    public static final int MAX_NEIGHBOURS = 32;
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;

    private final SplittableRandom random;
    private final int peakRate;
    private final int period;
    private float[] x = new float[1024];
    private float[] y = new float[1024];
    private float[] vx = new float[1024];
    private float[] vy = new float[1024];
    private float[] life = new float[1024];
    private int count;
    private long step;

    /**
     * @param seed     random seed (runs are reproducible)
     * @param peakRate particles emitted per step at the swell's crest
     * @param period   steps per swell
     */
    public ParticleSystem(long seed, int peakRate, int period) {
        if (peakRate < 1 || period < 2) {
            throw new IllegalArgumentException("particles: peak rate must be >= 1 and period >= 2, got " + peakRate + ", " + period);
        }
        this.random = new SplittableRandom(seed);
        this.peakRate = peakRate;
        this.period = period;
    }

    /** Particles alive now. */
    public int count() {
        return count;
    }

    /** Steps taken. */
    public long steps() {
        return step;
    }

    /** How many particles the next step emits: the swell of the emission rate, plus occasional bursts. */
    public int nextSpawnCount() {
        double phase = Math.sin(Math.PI * (step % period) / period);
        int n = (int) Math.round(peakRate * phase * phase);
        if (step % 37 == 11) {
            n += peakRate * 3; // a burst
        }
        return n;
    }

    /** Writes {@code n} new particles' state (x, y, vx, vy, life) into {@code upload}, 20 bytes each. */
    public void prepareSpawn(int n, MemorySegment upload) {
        for (int i = 0; i < n; i++) {
            int emitter = random.nextInt(3);
            float ex = 0.2f + 0.3f * emitter;
            long at = (long) i * SPAWN_BYTES;
            upload.set(F, at, ex + (float) (random.nextDouble() - 0.5) * 0.02f);
            upload.set(F, at + 4, 0.9f + (float) random.nextDouble() * 0.05f);
            upload.set(F, at + 8, (float) (random.nextDouble() - 0.5) * 0.6f);
            upload.set(F, at + 12, (float) random.nextDouble() * 0.2f);
            upload.set(F, at + 16, 20 + random.nextInt(40));
        }
    }

    /** Adds the {@code n} particles of an upload prepared by {@link #prepareSpawn}. */
    public void spawn(int n, MemorySegment upload) {
        ensure(count + n);
        for (int i = 0; i < n; i++) {
            long at = (long) i * SPAWN_BYTES;
            x[count] = upload.get(F, at);
            y[count] = upload.get(F, at + 4);
            vx[count] = upload.get(F, at + 8);
            vy[count] = upload.get(F, at + 12);
            life[count] = upload.get(F, at + 16);
            count++;
        }
    }

    /** Removes particles whose life ran out (order not kept); returns how many died. */
    public int cull() {
        int died = 0;
        for (int i = 0; i < count; ) {
            if (life[i] <= 0) {
                int last = --count;
                x[i] = x[last];
                y[i] = y[last];
                vx[i] = vx[last];
                vy[i] = vy[last];
                life[i] = life[last];
                died++;
            } else {
                i++;
            }
        }
        return died;
    }

    /**
     * Bins particles into the grid by a counting sort: cell keys ({@code 4·count} bytes), per-cell
     * counts ({@code 4·CELLS}), starts ({@code 4·(CELLS+1)}) and the sorted index ({@code 4·count}).
     */
    public void sortIntoCells(MemorySegment keys, MemorySegment counts, MemorySegment starts, MemorySegment sorted) {
        for (int c = 0; c < CELLS; c++) {
            counts.set(I, c * 4L, 0);
        }
        for (int i = 0; i < count; i++) {
            int cx = Math.min(GRID - 1, Math.max(0, (int) (x[i] * GRID)));
            int cy = Math.min(GRID - 1, Math.max(0, (int) (y[i] * GRID)));
            int key = cy * GRID + cx;
            keys.set(I, i * 4L, key);
            counts.set(I, key * 4L, counts.get(I, key * 4L) + 1);
        }
        int run = 0;
        for (int c = 0; c < CELLS; c++) {
            starts.set(I, c * 4L, run);
            run += counts.get(I, c * 4L);
            counts.set(I, c * 4L, 0);
        }
        starts.set(I, CELLS * 4L, run);
        for (int i = 0; i < count; i++) {
            int key = keys.get(I, i * 4L);
            int slot = starts.get(I, key * 4L) + counts.get(I, key * 4L);
            counts.set(I, key * 4L, counts.get(I, key * 4L) + 1);
            sorted.set(I, slot * 4L, i);
        }
    }

    /**
     * Pressure forces from neighbours within the smoothing radius, through the grid: writes fx, fy
     * per particle into {@code forces} ({@code 8·count} bytes). At most {@value #MAX_NEIGHBOURS}
     * neighbours are examined per particle, as capped-neighbour SPH codes do.
     *
     * @return neighbour pairs examined
     */
    public long forces(MemorySegment keys, MemorySegment starts, MemorySegment sorted, MemorySegment forces) {
        long pairs = 0;
        float h2 = H * H;
        for (int i = 0; i < count; i++) {
            int key = keys.get(I, i * 4L);
            int cx = key % GRID;
            int cy = key / GRID;
            float fx = 0;
            float fy = 0;
            int examined = 0;
            neighbours:
            for (int dy = -1; dy <= 1; dy++) {
                int yy = cy + dy;
                if (yy < 0 || yy >= GRID) {
                    continue;
                }
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = cx + dx;
                    if (xx < 0 || xx >= GRID) {
                        continue;
                    }
                    int cell = yy * GRID + xx;
                    int from = starts.get(I, cell * 4L);
                    int to = starts.get(I, cell * 4L + 4);
                    for (int k = from; k < to; k++) {
                        int j = sorted.get(I, k * 4L);
                        if (j == i) {
                            continue;
                        }
                        float rx = x[i] - x[j];
                        float ry = y[i] - y[j];
                        float d2 = rx * rx + ry * ry;
                        pairs++;
                        if (++examined > MAX_NEIGHBOURS) {
                            break neighbours;
                        }
                        if (d2 < h2 && d2 > 1e-12f) {
                            float d = (float) Math.sqrt(d2);
                            float push = (H - d) / H * 0.9f / d;
                            fx += rx * push;
                            fy += ry * push;
                        }
                    }
                }
            }
            forces.set(F, i * 8L, fx);
            forces.set(F, i * 8L + 4, fy);
        }
        return pairs;
    }

    /** Integrates one step from the forces, bounces off the walls and ages every particle. */
    public void integrate(MemorySegment forces, float dt) {
        for (int i = 0; i < count; i++) {
            vx[i] = (vx[i] + forces.get(F, i * 8L) * dt) * 0.995f;
            vy[i] = (vy[i] + (forces.get(F, i * 8L + 4) - 2.5f) * dt) * 0.995f;
            x[i] += vx[i] * dt;
            y[i] += vy[i] * dt;
            if (x[i] < 0) {
                x[i] = -x[i];
                vx[i] = -vx[i] * 0.5f;
            } else if (x[i] > 1) {
                x[i] = 2 - x[i];
                vx[i] = -vx[i] * 0.5f;
            }
            if (y[i] < 0) {
                y[i] = -y[i];
                vy[i] = -vy[i] * 0.4f;
            } else if (y[i] > 1) {
                y[i] = 2 - y[i];
                vy[i] = -vy[i] * 0.5f;
            }
            life[i] -= 1;
        }
    }

    /** Ends the step: the emission schedule moves on (whether or not any particle was alive). */
    public void endStep() {
        step++;
    }

    /** Mean kinetic energy per particle (a sanity figure that the simulation moves). */
    public double meanKineticEnergy() {
        double e = 0;
        for (int i = 0; i < count; i++) {
            e += 0.5 * (vx[i] * vx[i] + vy[i] * vy[i]);
        }
        return count == 0 ? 0 : e / count;
    }

    private void ensure(int n) {
        if (n > x.length) {
            int cap = Math.max(n, x.length * 2);
            x = Arrays.copyOf(x, cap);
            y = Arrays.copyOf(y, cap);
            vx = Arrays.copyOf(vx, cap);
            vy = Arrays.copyOf(vy, cap);
            life = Arrays.copyOf(life, cap);
        }
    }
}
