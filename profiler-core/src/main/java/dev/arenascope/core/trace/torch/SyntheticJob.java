package dev.arenascope.core.trace.torch;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded generator of a training job's memory snapshots: one PyTorch snapshot per rank
 * ({@code snapshot_rank{R}.pickle}, written with {@link PickleWriter} in PyTorch's own layout) of one
 * pipeline-parallel model, for the job tests and the {@code job} bench.
 *
 * <h2>The model</h2>
 * {@code ranks} pipeline stages (rank r is stage r), each holding {@code layers} layers' weights (live
 * before the trace and at its end, as blocks of the final state). Every step ({@code ProfilerStep#k}
 * {@code external_annotations} around it) runs {@code microBatches} micro-batches in a one-forward-one-
 * backward schedule: a forward allocates {@code tensorsPerLayer} activations per layer (freed by that
 * micro-batch's backward) and {@code temporariesPerLayer} temporaries (freed at once); stage r keeps the
 * activations of at most {@code S - r} micro-batches in flight, so the first stage holds the most. A step's
 * activations are scaled by a seeded factor (its sequence length), the same on every rank, so the peak
 * falls in one known step. Stacks and sizes are the model's and the same on every rank; rank 0 alone
 * also keeps an embedding output per micro-batch in flight, from a site no other rank has (the
 * rank-specific site that makes it the worst by more than its stage). With {@code oomOnWorst} rank 0's
 * trace also carries one {@code oom} entry in its peak step. Segments grow as a caching allocator's do:
 * a {@code segment_alloc} of whole 20 MiB whenever the bytes in use pass the bytes reserved; never freed.
 *
 * <h2>Truth</h2>
 * The generator keeps its own books while it writes, so the tests compare an import and its analyses
 * against numbers computed without them: each rank's peak in use (from the trace's start, initial blocks
 * counted), the step and the live bytes per site at the first moment of that peak, its reserved peak; the
 * job's worst rank (largest peak, lowest rank on ties), its median rank (the lower median of the peaks)
 * and the site whose live bytes at the two ranks' peaks differ most.
 */
public final class SyntheticJob {
    private static final long BASE = 0x7f00_0000_0000L;
    private static final long ACTIVATIONS = BASE + (1L << 40);
    private static final long SEGMENT_BASE = 0x7e00_0000_0000L;
    private static final long SEGMENT = 20L << 20;
    private static final long T0 = 1_700_000_000_000_000L;
    private static final String[] OPS = {"linear", "gelu", "layer_norm", "scaled_dot_product_attention", "dropout", "softmax"};

    /**
     * What to generate.
     *
     * @param seed                the random seed (same spec, same bytes)
     * @param ranks               pipeline stages, one snapshot each (at least 1)
     * @param steps               training steps, one ProfilerStep annotation each (at least 1)
     * @param microBatches        micro-batches per step (at least {@code ranks} for the schedule to fill)
     * @param layers              layers per stage
     * @param tensorsPerLayer     activations a layer keeps per micro-batch until its backward
     * @param temporariesPerLayer temporaries a layer allocates and frees per micro-batch
     * @param oomOnWorst          whether rank 0 records one out-of-memory entry in its peak step
     */
    public record Spec(long seed, int ranks, int steps, int microBatches, int layers, int tensorsPerLayer,
                       int temporariesPerLayer, boolean oomOnWorst) {
        public Spec {
            if (ranks < 1 || steps < 1 || microBatches < 1 || layers < 1 || tensorsPerLayer < 1 || temporariesPerLayer < 0) {
                throw new IllegalArgumentException("a job needs at least one rank, step, micro-batch, layer and tensor: " + this);
            }
        }

        /** A small job: {@code ranks} stages, {@code steps} steps, as many micro-batches as stages (at least 4). */
        public static Spec of(long seed, int ranks, int steps) {
            return new Spec(seed, ranks, steps, Math.max(4, ranks), 6, 3, 2, false);
        }

        /** Trace entries one rank writes per step, about (for sizing a job to a file size). */
        public long entriesPerStep() {
            return (long) microBatches * layers * (2L * tensorsPerLayer + 2L * temporariesPerLayer + 2L);
        }
    }

    /** A site's innermost frame, as the tests look it up. */
    public record Frame(String function, String file, int line) {}

    /**
     * One rank's truth.
     *
     * @param file            the snapshot's file name
     * @param rank            the rank (= pipeline stage)
     * @param bytes           the pickle's size
     * @param entries         trace entries
     * @param peakBytes       the most bytes in use at once, initial blocks counted
     * @param peakStep        the step (ProfilerStep number) in which that peak was first reached
     * @param reservedPeak    the most bytes reserved in segments at once
     * @param allocations     {@code alloc} entries in the trace
     * @param initialBlocks   blocks live before the trace began (the weights)
     * @param outOfMemory     {@code oom} entries
     * @param liveAtPeak      per site (index into {@link Truth#sites()}), bytes live at the first moment of the peak
     */
    public record RankTruth(String file, int rank, long bytes, long entries, long peakBytes, int peakStep, long reservedPeak,
                            long allocations, int initialBlocks, int outOfMemory, long[] liveAtPeak) {}

    /**
     * The job's truth.
     *
     * @param ranks            per rank, in rank order
     * @param sites            every site's innermost frame, by site index
     * @param worstRank        the rank with the largest peak (lowest on ties)
     * @param medianRank       the rank at the lower median of the peaks (sorted by peak, then rank)
     * @param topDifferingSite the innermost frame of the site whose live bytes differ most between the worst and the median rank's peaks
     * @param topDifferingDelta that difference, worst minus median
     * @param worstOnlySite    the innermost frame of the site only rank 0 has
     */
    public record Truth(List<RankTruth> ranks, List<Frame> sites, int worstRank, int medianRank, Frame topDifferingSite,
                        long topDifferingDelta, Frame worstOnlySite) {
        /** The truth of rank {@code r}. */
        public RankTruth rank(int r) {
            return ranks.get(r);
        }
    }

    private SyntheticJob() {}

    /** The file rank {@code r}'s snapshot is written to. */
    public static String fileName(int rank) {
        return "snapshot_rank" + rank + ".pickle";
    }

    /** Writes every rank's snapshot into {@code dir} (which must exist) and returns the truth. */
    public static Truth write(Path dir, Spec spec) throws IOException {
        Model model = new Model(spec);
        List<RankTruth> ranks = new ArrayList<>();
        for (int r = 0; r < spec.ranks(); r++) {
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(dir.resolve(fileName(r))), 1 << 20)) {
                ranks.add(new RankWriter(model, spec, r).write(out));
            }
        }
        return truth(model, ranks);
    }

    /** Writes rank {@code r}'s snapshot to {@code out} (not closed). */
    public static RankTruth writeRank(OutputStream out, Spec spec, int r) throws IOException {
        if (r < 0 || r >= spec.ranks()) {
            throw new IllegalArgumentException("rank " + r + " is not in a job of " + spec.ranks());
        }
        return new RankWriter(new Model(spec), spec, r).write(out);
    }

    private static Truth truth(Model model, List<RankTruth> ranks) {
        int worst = 0;
        for (RankTruth t : ranks) {
            if (t.peakBytes() > ranks.get(worst).peakBytes()) {
                worst = t.rank();
            }
        }
        List<RankTruth> sorted = new ArrayList<>(ranks);
        sorted.sort(Comparator.comparingLong(RankTruth::peakBytes).thenComparingInt(RankTruth::rank));
        int median = sorted.get((sorted.size() - 1) / 2).rank();
        long[] w = ranks.get(worst).liveAtPeak();
        long[] m = ranks.get(median).liveAtPeak();
        int top = -1;
        long delta = 0;
        for (int s = 0; s < w.length; s++) {
            long d = w[s] - m[s];
            if (top < 0 || Math.abs(d) > Math.abs(delta)) {
                top = s;
                delta = d;
            }
        }
        return new Truth(List.copyOf(ranks), model.innermost(), worst, median, model.innermost().get(top), delta,
                model.innermost().get(model.embeddingSite));
    }

    /** The model every rank shares: layer sizes, step scales and the sites' stacks. */
    private static final class Model {
        final long[][] activation;      // [layer][tensor] bytes at scale 1
        final long[][] temporary;       // [layer][tensor] bytes
        final long[][] weight;          // [layer][2]
        final double[] scale;           // per step
        final long embedding;           // bytes at scale 1
        final List<Frame[]> stacks = new ArrayList<>();   // per site, innermost first
        final int[][] activationSite;
        final int[][] temporarySite;
        final int[][] weightSite;
        final int[] backwardSite;
        final int embeddingSite;

        Model(Spec spec) {
            SplittableRandom rnd = new SplittableRandom(spec.seed());
            int layers = spec.layers();
            activation = new long[layers][spec.tensorsPerLayer()];
            temporary = new long[layers][spec.temporariesPerLayer()];
            weight = new long[layers][2];
            activationSite = new int[layers][spec.tensorsPerLayer()];
            temporarySite = new int[layers][spec.temporariesPerLayer()];
            weightSite = new int[layers][2];
            backwardSite = new int[layers];
            Frame step = new Frame("train_step", "/work/train.py", 142);
            Frame main = new Frame("main", "/work/train.py", 201);
            Frame stage = new Frame("PipelineStage.forward", "/work/model/pipeline.py", 88);
            long largest = 0;
            for (int l = 0; l < layers; l++) {
                Frame block = new Frame("Block" + l + ".forward", "/work/model/blocks.py", 20 + 40 * l);
                for (int t = 0; t < spec.tensorsPerLayer(); t++) {
                    activation[l][t] = 512L * (2048 + rnd.nextInt(30_000));
                    largest = Math.max(largest, activation[l][t]);
                    String op = OPS[(l + t) % OPS.length];
                    activationSite[l][t] = site(new Frame("torch.nn.functional." + op, "torch/nn/functional.py", 1000 + 17 * t + 3 * l),
                            new Frame(block.function(), block.file(), block.line() + 2 + t), stage, step, main);
                }
                for (int t = 0; t < spec.temporariesPerLayer(); t++) {
                    temporary[l][t] = 512L * (256 + rnd.nextInt(8192));
                    temporarySite[l][t] = site(new Frame("torch._tensor.contiguous", "torch/_tensor.py", 300 + t),
                            new Frame(block.function(), block.file(), block.line() + 30 + t), stage, step, main);
                }
                for (int k = 0; k < 2; k++) {
                    weight[l][k] = 512L * (8192 + rnd.nextInt(60_000));
                    weightSite[l][k] = site(new Frame("torch.nn.Parameter.__new__", "torch/nn/parameter.py", 40 + k),
                            new Frame("Block" + l + ".__init__", "/work/model/blocks.py", 10 + 40 * l + k),
                            new Frame("build_model", "/work/model/pipeline.py", 30), main);
                }
                backwardSite[l] = site(new Frame("torch.autograd.backward", "torch/autograd/__init__.py", 266),
                        new Frame("Block" + l + ".backward_hook", "/work/model/blocks.py", 36 + 40 * l), step, main);
            }
            scale = new double[spec.steps()];
            for (int k = 0; k < scale.length; k++) {
                scale[k] = 0.75 + 0.5 * rnd.nextDouble();
            }
            // rank 0's own site: an embedding output per micro-batch in flight, larger than any layer's
            // activation difference between stages, so it is the site that tells the worst rank apart
            embedding = 2 * largest;
            embeddingSite = site(new Frame("embedding_lookup", "/work/model/embedding.py", 57),
                    new Frame("PipelineStage.embed", "/work/model/pipeline.py", 61), step, main);
        }

        private int site(Frame... innermostFirst) {
            stacks.add(innermostFirst);
            return stacks.size() - 1;
        }

        List<Frame> innermost() {
            return stacks.stream().map(f -> f[0]).toList();
        }

        long scaled(long bytes, int step) {
            return 512L * Math.max(1, Math.round(bytes * scale[step] / 512));
        }
    }

    private record Block(long addr, long size, int site) {}

    /** Writes one rank's snapshot and keeps its books. */
    private static final class RankWriter {
        final Model model;
        final Spec spec;
        final int rank;
        final SplittableRandom rnd;
        PickleWriter w;
        long bump = BASE;
        long segBump = SEGMENT_BASE;
        long used;
        long reserved;
        long reservedPeak;
        long peak = -1;
        int peakStep;
        long[] liveBySite;
        long[] liveAtPeak;
        long time = T0 + 10;
        long entries;
        long allocations;
        int ooms;
        int step;
        int batch;
        final List<Block> weights = new ArrayList<>();
        final List<Long> segments = new ArrayList<>();
        final List<long[]> notes = new ArrayList<>();     // {step, start time, end time}

        RankWriter(Model model, Spec spec, int rank) {
            this.model = model;
            this.spec = spec;
            this.rank = rank;
            this.rnd = new SplittableRandom(spec.seed() ^ (0x9E3779B97F4A7C15L * (rank + 1)));
            liveBySite = new long[model.stacks.size()];
        }

        RankTruth write(OutputStream out) throws IOException {
            for (int l = 0; l < spec.layers(); l++) {
                for (int k = 0; k < 2; k++) {
                    Block b = new Block(bump, model.weight[l][k], model.weightSite[l][k]);
                    bump += b.size();
                    weights.add(b);
                    used += b.size();
                    liveBySite[b.site()] += b.size();
                }
            }
            long weightSegment = roundUp(used, 2L << 20);
            reserved = weightSegment;
            reservedPeak = reserved;
            peak = used;
            peakStep = 0;
            liveAtPeak = liveBySite.clone();

            // PyTorch's layout puts the final state (segments) before the trace: the segments the trace grows
            // follow from the books alone, so a dry run with the same seed finds them first
            List<Long> grown = new RankWriter(model, spec, rank).simulateSegments();
            bump = ACTIVATIONS;
            w = new PickleWriter(out);
            w.dict().mark();
            w.str("segments").list().mark();
            segment(BASE, weightSegment, used, weights);
            long addr = SEGMENT_BASE;
            for (long size : grown) {
                segment(addr, size, 0, List.of());
                addr += size;
            }
            w.appends();
            w.str("device_traces").list().list().mark();
            for (step = 0; step < spec.steps(); step++) {
                runStep();
            }
            w.appends();
            w.append();
            w.str("allocator_settings").dict().mark().str("PYTORCH_CUDA_ALLOC_CONF").str("").str("max_split_size").integer(-1)
                    .str("expandable_segments").bool(false).setItems();
            w.str("external_annotations").list().mark();
            for (long[] n : notes) {
                for (int s = 0; s < 2; s++) {
                    w.dict().mark().str("version").integer(1).str("name").str("ProfilerStep#" + n[0]).str("stage").str(s == 0 ? "START" : "END")
                            .str("device").integer(0).str("time_us").integer(n[1 + s]).setItems();
                }
            }
            w.appends();
            w.setItems().stop();
            return new RankTruth(fileName(rank), rank, w.written(), entries, peak, peakStep, reservedPeak, allocations,
                    weights.size(), ooms, liveAtPeak);
        }

        /** Runs the whole trace without writing, for the segments it grows. */
        List<Long> simulateSegments() throws IOException {
            for (int l = 0; l < spec.layers(); l++) {
                used += model.weight[l][0] + model.weight[l][1];
            }
            reserved = roundUp(used, 2L << 20);
            bump = ACTIVATIONS;
            w = null;
            for (step = 0; step < spec.steps(); step++) {
                runStep();
            }
            return segments;
        }

        private void segment(long address, long total, long allocated, List<Block> blocks) throws IOException {
            w.dict().mark();
            w.str("device").integer(0).str("address").integer(address).str("total_size").integer(total)
                    .str("allocated_size").integer(allocated).str("active_size").integer(allocated).str("requested_size").integer(allocated)
                    .str("stream").integer(0).str("segment_type").str("large").str("segment_pool_id").integer(0).integer(0).tuple2()
                    .str("is_expandable").bool(false).str("frames").list();
            w.str("blocks").list();
            if (!blocks.isEmpty()) {
                w.mark();
                for (Block b : blocks) {
                    w.dict().mark().str("address").integer(b.addr()).str("size").integer(b.size()).str("requested_size").integer(b.size())
                            .str("state").str("active_allocated").str("frames");
                    frames(model.stacks.get(b.site()));
                    w.setItems();
                }
                w.appends();
            }
            w.setItems();
        }

        /** One step: the one-forward-one-backward schedule of a stage that keeps {@code S - rank} micro-batches in flight. */
        private void runStep() throws IOException {
            time += 50;
            long start = time;
            int inFlight = Math.max(1, spec.ranks() - rank);
            ArrayDeque<List<Block>> held = new ArrayDeque<>();
            boolean oomDue = spec.oomOnWorst() && rank == 0 && step == peakStepOfModel();
            for (int m = 0; m < spec.microBatches(); m++) {
                if (held.size() == inFlight) {
                    backward(held.removeFirst());
                }
                held.addLast(forward());
                if (oomDue && held.size() == inFlight) {
                    oom();
                    oomDue = false;
                }
            }
            while (!held.isEmpty()) {
                backward(held.removeFirst());
            }
            time += 1;
            notes.add(new long[] {step, start - 1, time});
        }

        /** The step with the largest scale: where every rank's peak falls. */
        private int peakStepOfModel() {
            int best = 0;
            for (int k = 1; k < model.scale.length; k++) {
                if (model.scale[k] > model.scale[best]) {
                    best = k;
                }
            }
            return best;
        }

        private List<Block> forward() throws IOException {
            List<Block> keep = new ArrayList<>();
            if (rank == 0) {
                keep.add(alloc(model.scaled(model.embedding, step), model.embeddingSite));
            }
            for (int l = 0; l < spec.layers(); l++) {
                for (int t = 0; t < spec.tensorsPerLayer(); t++) {
                    keep.add(alloc(model.scaled(model.activation[l][t], step), model.activationSite[l][t]));
                }
                for (int t = 0; t < spec.temporariesPerLayer(); t++) {
                    // a rank's temporaries vary a little around the model's size (data-dependent shapes)
                    long size = model.temporary[l][t] + 512L * rnd.nextInt(64);
                    free(alloc(size, model.temporarySite[l][t]));
                }
            }
            return keep;
        }

        private void backward(List<Block> activations) throws IOException {
            for (int l = spec.layers() - 1; l >= 0; l--) {
                Block g = alloc(model.activation[l][0] / 2 + 512, model.backwardSite[l]);
                free(g);
            }
            for (int i = activations.size() - 1; i >= 0; i--) {
                free(activations.get(i));
            }
        }

        private Block alloc(long size, int site) throws IOException {
            if (used + size > reserved) {
                long grow = roundUp(used + size - reserved, SEGMENT);
                if (w != null) {
                    entry("segment_alloc", segBump, grow, -1);
                }
                segments.add(grow);
                segBump += grow;
                reserved += grow;
                reservedPeak = Math.max(reservedPeak, reserved);
            }
            Block b = new Block(bump, size, site);
            bump += size;
            used += size;
            allocations++;
            if (w != null) {
                liveBySite[site] += size;
                entry("alloc", b.addr(), size, site);
                if (used > peak) {
                    peak = used;
                    peakStep = step;
                    System.arraycopy(liveBySite, 0, liveAtPeak, 0, liveBySite.length);
                }
            }
            return b;
        }

        private void free(Block b) throws IOException {
            used -= b.size();
            if (w != null) {
                liveBySite[b.site()] -= b.size();
                entry("free_completed", b.addr(), b.size(), b.site());
            }
        }

        private void oom() throws IOException {
            if (w == null) {
                return;
            }
            ooms++;
            time += 3;
            w.dict().mark().str("action").str("oom").str("device_free").integer(1L << 20)
                    .str("size").integer(model.scaled(model.embedding, step) * 4).str("stream").integer(0).str("time_us").integer(time)
                    .str("frames");
            frames(model.stacks.get(model.embeddingSite));
            w.setItems();
            entries++;
            flushBatch();
        }

        private void entry(String action, long addr, long size, int site) throws IOException {
            time += 3;
            w.dict().mark().str("action").str(action).str("addr").integer(addr).str("size").integer(size).str("stream").integer(0)
                    .str("time_us").integer(time);
            w.str("frames");
            if (site >= 0) {
                frames(model.stacks.get(site));
            } else {
                w.list();
            }
            w.setItems();
            entries++;
            flushBatch();
        }

        private void flushBatch() throws IOException {
            if (++batch == 1000) {
                w.appends().mark();
                batch = 0;
            }
        }

        private void frames(Frame[] stack) throws IOException {
            w.list().mark();
            for (Frame f : stack) {
                w.dict().mark().str("name").str(f.function()).str("filename").str(f.file()).str("line").integer(f.line()).setItems();
            }
            w.appends();
        }
    }

    private static long roundUp(long v, long unit) {
        return (v + unit - 1) / unit * unit;
    }

    /**
     * A spec whose ranks' snapshots come to about {@code bytesPerRank} each (the steps chosen from one
     * step's measured size): the bench's jobs.
     */
    public static Spec sized(long seed, int ranks, long bytesPerRank) throws IOException {
        Spec one = new Spec(seed, ranks, 1, Math.max(4, ranks), 12, 4, 2, false);
        Spec two = new Spec(seed, ranks, 2, one.microBatches(), one.layers(), one.tensorsPerLayer(), one.temporariesPerLayer(), false);
        long a = writeRank(OutputStream.nullOutputStream(), one, 0).bytes();
        long b = writeRank(OutputStream.nullOutputStream(), two, 0).bytes();
        long perStep = Math.max(1, b - a);
        int steps = (int) Math.max(1, Math.min(1_000_000, (bytesPerRank - (a - perStep)) / perStep));
        return new Spec(seed, ranks, steps, one.microBatches(), one.layers(), one.tensorsPerLayer(), one.temporariesPerLayer(), false);
    }
}
