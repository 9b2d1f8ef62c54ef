package dev.arenascope.workloads.particles;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.pool.MemoryPool;
import dev.arenascope.core.pool.PoolStatistics;
import dev.arenascope.core.pool.PooledBuffer;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Staging;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.WorkloadOption;
import dev.arenascope.workloads.WorkloadOptions;
import dev.arenascope.workloads.WorkloadResult;

/**
 * The pool workload: a particle fluid ({@link ParticleSystem}) whose per-step buffers all come from a
 * {@link MemoryPool} and go back to it at the end of the step. Because the population swells and
 * ebbs, request sizes wander across bins: a step whose sizes stay in last step's bins is served from
 * held blocks (hits), growth into new bins misses and reserves device memory, and blocks of bins the
 * population left stay held until {@code freeHeld}. Every request, hold and release is an event.
 *
 * <p>Per step: a spawn upload (20 bytes per new particle), cell keys and the sorted index (4 bytes per
 * particle each), cell counts and starts (fixed: always hits after the first step), forces (8 bytes
 * per particle).
 */
public final class ParticlesWorkload implements Workload {

    @Override
    public String name() {
        return "particles";
    }

    @Override
    public String summary() {
        return "a particle fluid whose per-step buffers come from a binned MemoryPool (bins, holds, hits and misses)";
    }

    @Override
    public List<WorkloadOption> options() {
        return List.of(
                new WorkloadOption("steps", "400", "simulation steps"),
                new WorkloadOption("rate", "160", "particles emitted per step at the swell's crest"),
                new WorkloadOption("period", "130", "steps per swell of the emission rate"),
                new WorkloadOption("mantissa-bits", "4", "the pool's mantissa bits (0..16): more bits, less rounding, fewer hits"),
                new WorkloadOption("free-held-every", "150", "steps between freeHeld() calls (0: never)"),
                new WorkloadOption("seed", "42", "random seed"));
    }

    private record Settings(int steps, int rate, int period, int mantissa, int freeEvery, long seed) {
        Settings(WorkloadOptions o) {
            this(o.intValue("steps", 1, 10_000_000), o.intValue("rate", 1, 1_000_000), o.intValue("period", 2, 1_000_000),
                    o.intValue("mantissa-bits", 0, 16), o.intValue("free-held-every", 0, Integer.MAX_VALUE),
                    o.longValue("seed", Long.MIN_VALUE, Long.MAX_VALUE));
        }
    }

    @Override
    public void validate(WorkloadOptions options) {
        new Settings(options);
    }

    @Override
    public WorkloadResult run(Session session, MemoryDevice device, WorkloadOptions options, Progress progress) {
        Settings settings = new Settings(options);
        int steps = settings.steps();
        int rate = settings.rate();
        int period = settings.period();
        int mantissa = settings.mantissa();
        int freeEvery = settings.freeEvery();
        long seed = settings.seed();
        session.addDevice(device.info());
        ParticleSystem sim = new ParticleSystem(seed, rate, period);
        int peakPopulation = 0;
        long pairs = 0;
        int done = 0;
        try (MemoryPool pool = MemoryPool.builder("particles.pool", device).mantissaBits(mantissa).session(session).build()) {
            for (int s = 0; s < steps && !progress.isCancelled(); s++) {
                int spawn = sim.nextSpawnCount();
                if (spawn > 0) {
                    try (PooledBuffer upload = pool.allocate((long) spawn * ParticleSystem.SPAWN_BYTES)) {
                        Staging.Window w = window(device, upload, false);
                        sim.prepareSpawn(spawn, w.segment());
                        w.commit();
                        sim.spawn(spawn, w.segment());
                    }
                }
                sim.cull();
                int n = sim.count();
                peakPopulation = Math.max(peakPopulation, n);
                if (n > 0) {
                    try (PooledBuffer keys = pool.allocate(4L * n);
                         PooledBuffer counts = pool.allocate(4L * ParticleSystem.CELLS);
                         PooledBuffer starts = pool.allocate(4L * (ParticleSystem.CELLS + 1));
                         PooledBuffer sorted = pool.allocate(4L * n);
                         PooledBuffer forces = pool.allocate(8L * n)) {
                        Staging.Window k = window(device, keys, false);
                        Staging.Window c = window(device, counts, false);
                        Staging.Window st = window(device, starts, false);
                        Staging.Window so = window(device, sorted, false);
                        Staging.Window f = window(device, forces, false);
                        sim.sortIntoCells(k.segment(), c.segment(), st.segment(), so.segment());
                        pairs += sim.forces(k.segment(), st.segment(), so.segment(), f.segment());
                        k.commit();
                        c.commit();
                        st.commit();
                        so.commit();
                        f.commit();
                        sim.integrate(f.segment(), 0.004f);
                    }
                }
                sim.endStep();
                if (freeEvery > 0 && (s + 1) % freeEvery == 0) {
                    pool.freeHeld();
                }
                done = s + 1;
                progress.update(done, steps, "step");
            }
            PoolStatistics stats = pool.statistics();
            Map<String, Long> figures = new LinkedHashMap<>();
            figures.put("steps", (long) done);
            figures.put("peak_population", (long) peakPopulation);
            figures.put("neighbour_pairs", pairs);
            figures.put("requests", stats.requests());
            figures.put("misses", stats.allocations());
            figures.put("hits", stats.reuses());
            figures.put("held_blocks", (long) pool.heldBlocks());
            figures.put("reserved_bytes", pool.reservedBytes());
            String summary = done + " steps, population up to " + peakPopulation + ", " + stats.requests()
                    + " pool requests (" + stats.reuses() + " hits, " + stats.allocations() + " misses)";
            return new WorkloadResult(name(), device.info().id(), summary, figures);
        }
    }

    private static Staging.Window window(MemoryDevice device, PooledBuffer b, boolean load) {
        return Staging.open(device, b.deviceBuffer(), b.offset(), b.size(), b.hostSegment(), load);
    }
}
