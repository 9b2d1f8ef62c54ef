package dev.arenascope.workloads.inference;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.plan.PlanRuntime;
import dev.arenascope.core.plan.PlanTensor;
import dev.arenascope.core.plan.Planner;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.WorkloadOption;
import dev.arenascope.workloads.WorkloadOptions;
import dev.arenascope.workloads.WorkloadResult;
import dev.arenascope.workloads.inference.NetworkGraph.StepSpec;

/**
 * The plan workload: ResNet-50 and a transformer encoder stack, each planned ahead of time into a
 * {@link dev.arenascope.core.plan.MemoryPlan} ({@link NetworkPlans}) and executed step by step by a
 * {@link PlanRuntime}: arenas allocated once, every tensor bound, the weights hydrated from their
 * blob, then each run walks the steps while the window can draw the slot map fill and drain.
 *
 * <p>Each step does real work on its bound tensors: on the host, an elementwise pass over every
 * output element reading the step's inputs and weights (a stand-in for the operator with the same
 * memory traffic pattern, not the convolution arithmetic); on CUDA the same on the first MiB of each
 * output through device copies; on the virtual device nothing (accounting only). The transformer's
 * KV cache is persistent: each run appends its keys and values at the next position.
 */
public final class InferenceWorkload implements Workload {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final int DEVICE_WINDOW = 1 << 20;

    @Override
    public String name() {
        return "inference";
    }

    @Override
    public String summary() {
        return "ResNet-50 and a transformer encoder planned into a MemoryPlan and executed step by step";
    }

    @Override
    public List<WorkloadOption> options() {
        return List.of(
                new WorkloadOption("model", "both", "resnet50, transformer or both"),
                new WorkloadOption("batch", "2", "batch size (images or sequences)"),
                new WorkloadOption("resolution", "224", "ResNet-50 input edge in pixels (a multiple of 32)"),
                new WorkloadOption("sequence", "128", "transformer tokens per sequence"),
                new WorkloadOption("layers", "4", "transformer encoder blocks"),
                new WorkloadOption("width", "768", "transformer model width"),
                new WorkloadOption("heads", "12", "transformer attention heads"),
                new WorkloadOption("max-sequence", "512", "tokens the KV cache holds"),
                new WorkloadOption("runs", "2", "inferences per model"),
                new WorkloadOption("strategy", "greedy", "scratch planner: greedy or search"),
                new WorkloadOption("alignment", "256", "offset alignment in bytes (a power of two)"),
                new WorkloadOption("seed", "3", "random seed of the weights"));
    }

    @Override
    public void validate(WorkloadOptions o) {
        graphs(o);
        planner(o);
        o.longValue("seed", Long.MIN_VALUE, Long.MAX_VALUE);
    }

    private static Planner planner(WorkloadOptions o) {
        long alignment = o.longValue("alignment", 1, 1 << 20);
        if (Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("inference: --alignment must be a power of two, got " + alignment);
        }
        try {
            return Planner.named(o.string("strategy"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("inference: --strategy: " + e.getMessage());
        }
    }

    private static List<NetworkGraph> graphs(WorkloadOptions o) {
        String model = o.choice("model", List.of("resnet50", "transformer", "both"));
        int batch = o.intValue("batch", 1, 4096);
        o.intValue("runs", 1, 1_000_000);
        List<NetworkGraph> graphs = new ArrayList<>();
        int resolution = o.intValue("resolution", 32, 4096);
        int sequence = o.intValue("sequence", 1, 1 << 20);
        int layers = o.intValue("layers", 1, 1000);
        int width = o.intValue("width", 1, 1 << 16);
        int heads = o.intValue("heads", 1, 1 << 12);
        int maxSequence = o.intValue("max-sequence", 1, 1 << 22);
        try {
            if (!model.equals("transformer")) {
                graphs.add(ResNet50.build(batch, resolution));
            }
            if (!model.equals("resnet50")) {
                graphs.add(TransformerEncoder.build(batch, sequence, layers, width, heads, maxSequence));
            }
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException("inference: " + e.getMessage());
        }
        return graphs;
    }

    @Override
    public WorkloadResult run(Session session, MemoryDevice device, WorkloadOptions o, Progress progress) {
        int batch = o.intValue("batch", 1, 4096);
        int runs = o.intValue("runs", 1, 1_000_000);
        long alignment = o.longValue("alignment", 1, 1 << 20);
        Planner planner = planner(o);
        List<NetworkGraph> graphs = graphs(o);
        long seed = o.longValue("seed", Long.MIN_VALUE, Long.MAX_VALUE);
        session.addDevice(device.info());
        Map<String, Long> figures = new LinkedHashMap<>();
        StringBuilder summary = new StringBuilder();
        final long totalSteps = graphs.stream().mapToLong(g -> (long) g.steps().size() * runs).sum();
        long done = 0;
        for (NetworkGraph g : graphs) {
            if (progress.isCancelled()) {
                break;
            }
            NetworkPlans.Planned planned = NetworkPlans.plan(g, alignment, planner, 5_000_000_000L);
            boolean bytes = device.info().kind() != DeviceKind.VIRTUAL;
            Map<String, byte[]> blobs = bytes
                    ? Map.of(NetworkPlans.DEVICE_BANK, NetworkPlans.weightBlob(g, planned.plan(), seed))
                    : Map.of();
            Executor exec = new Executor(g, device.info().kind());
            try (PlanRuntime rt = PlanRuntime.load(planned.plan(), device, session, blobs)) {
                for (int r = 0; r < runs && !progress.isCancelled(); r++) {
                    int run = r;
                    final long base = done;
                    rt.run((step, runtime) -> {
                        exec.step(g.steps().get((int) step), runtime, run);
                        progress.update(base + step + 1, totalSteps, g.name() + " step");
                    });
                    done += g.steps().size();
                }
                figures.put(g.name() + ".steps", (long) g.steps().size());
                figures.put(g.name() + ".tensors", (long) g.tensors().size());
                figures.put(g.name() + ".scratch_bytes", planned.scratch().height());
                figures.put(g.name() + ".scratch_lower_bound", planned.scratch().lowerBound());
                figures.put(g.name() + ".weight_bytes", g.bytes(NetworkGraph.Role.WEIGHT));
                figures.put(g.name() + ".state_bytes", g.bytes(NetworkGraph.Role.STATE));
                figures.put(g.name() + ".hydrated_bytes", rt.hydratedBytes());
                figures.put(g.name() + ".elements_written", exec.written);
                if (!summary.isEmpty()) {
                    summary.append("; ");
                }
                summary.append(g.name()).append(" batch ").append(batch).append(": ").append(g.steps().size()).append(" steps x ")
                        .append(runs).append(", scratch ").append(Bytes.format(planned.scratch().height())).append(" (lower bound ")
                        .append(Bytes.format(planned.scratch().lowerBound())).append("), weights ")
                        .append(Bytes.format(g.bytes(NetworkGraph.Role.WEIGHT)));
                if (g.bytes(NetworkGraph.Role.STATE) > 0) {
                    summary.append(", KV cache ").append(Bytes.format(g.bytes(NetworkGraph.Role.STATE)));
                }
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("inference: " + g.name() + ": " + e.getMessage(), e);
            }
        }
        return new WorkloadResult(name(), device.info().id(), summary.toString(), figures);
    }

    /** Runs one step's stand-in arithmetic on the bound tensors. */
    static final class Executor {
        final NetworkGraph graph;
        final DeviceKind kind;
        long written;

        Executor(NetworkGraph graph, DeviceKind kind) {
            this.graph = graph;
            this.kind = kind;
        }

        void step(StepSpec step, PlanRuntime rt, int run) {
            if (kind == DeviceKind.VIRTUAL) {
                return;
            }
            List<PlanTensor> ins = new ArrayList<>();
            for (int id : step.inputs()) {
                ins.add(rt.tensor(graph.tensors().get(id).name()));
            }
            List<PlanTensor> ws = new ArrayList<>();
            for (int id : step.weights()) {
                ws.add(rt.tensor(graph.tensors().get(id).name()));
            }
            for (int id : step.outputs()) {
                PlanTensor out = rt.tensor(graph.tensors().get(id).name());
                if (step.op().equals("kv_cache_write")) {
                    cacheWrite(ins.getFirst(), out, run, id % 2 == 0);
                } else if (kind == DeviceKind.HOST) {
                    hostPass(step, ins, ws, out);
                } else {
                    devicePass(step, ins, ws, out);
                }
            }
        }

        /** out[i] = max(0, 0.5·a[i mod |a|]·(1 + w[i mod |w|]) + 0.1·b[i mod |b|] + c), over the whole output. */
        private void hostPass(StepSpec step, List<PlanTensor> ins, List<PlanTensor> ws, PlanTensor out) {
            MemorySegment o = segment(out);
            long n = out.size() / 4;
            MemorySegment a = ins.isEmpty() ? null : segment(ins.get(0));
            MemorySegment b = ins.size() > 1 ? segment(ins.get(1)) : null;
            MemorySegment w = ws.isEmpty() ? null : segment(ws.get(0));
            long na = a == null ? 1 : a.byteSize() / 4;
            long nb = b == null ? 1 : b.byteSize() / 4;
            long nw = w == null ? 1 : w.byteSize() / 4;
            float bias = 0.01f * (step.index() % 7 + 1);
            for (long i = 0; i < n; i++) {
                float va = a == null ? (float) ((i * 2654435761L) % 1000) / 1000f : a.get(F, (i % na) * 4);
                float vw = w == null ? 0f : w.get(F, (i % nw) * 4);
                float vb = b == null ? 0f : b.get(F, (i % nb) * 4);
                float v = 0.5f * va * (1 + vw) + 0.1f * vb + bias;
                o.set(F, i * 4, v > 0 ? v : 0f);
            }
            written += n;
        }

        /** The same arithmetic on the first MiB of each tensor, through device copies (CUDA). */
        private void devicePass(StepSpec step, List<PlanTensor> ins, List<PlanTensor> ws, PlanTensor out) {
            int len = (int) Math.min(out.size(), DEVICE_WINDOW);
            byte[] o = new byte[len];
            byte[] a = ins.isEmpty() ? null : readWindow(ins.get(0));
            byte[] w = ws.isEmpty() ? null : readWindow(ws.get(0));
            MemorySegment os = MemorySegment.ofArray(o);
            MemorySegment as = a == null ? null : MemorySegment.ofArray(a);
            MemorySegment wsg = w == null ? null : MemorySegment.ofArray(w);
            float bias = 0.01f * (step.index() % 7 + 1);
            for (int i = 0; i < len / 4; i++) {
                float va = as == null ? 0.5f : as.get(F, (long) (i % (a.length / 4)) * 4);
                float vw = wsg == null ? 0f : wsg.get(F, (long) (i % (w.length / 4)) * 4);
                float v = 0.5f * va * (1 + vw) + bias;
                os.set(F, i * 4L, v > 0 ? v : 0f);
            }
            out.write(0, o, 0, len);
            written += len / 4;
        }

        private static byte[] readWindow(PlanTensor t) {
            int len = (int) Math.min(t.size(), DEVICE_WINDOW);
            byte[] b = new byte[Math.max(4, len)];
            t.read(0, b, 0, len);
            return b;
        }

        /** Appends this run's keys (or values) from the QKV projection to the cache at the run's position. */
        private void cacheWrite(PlanTensor qkv, PlanTensor cache, int run, boolean keys) {
            long tokens = qkv.size() / 4 / 3; // batch × sequence × width floats per third
            long slot = Math.min(tokens, cache.size() / 4);
            long at = ((long) run * slot) % Math.max(1, cache.size() / 4 - slot + 1);
            long from = keys ? tokens : 2 * tokens; // k is the second third, v the third
            if (kind == DeviceKind.HOST) {
                MemorySegment src = segment(qkv);
                MemorySegment dst = segment(cache);
                MemorySegment.copy(src, from * 4, dst, at * 4, slot * 4);
                written += slot;
            } else {
                int len = (int) Math.min(slot * 4, DEVICE_WINDOW);
                byte[] b = new byte[len];
                qkv.read(from * 4, b, 0, len);
                cache.write(at * 4, b, 0, len);
                written += len / 4;
            }
        }

        private static MemorySegment segment(PlanTensor t) {
            return t.buffer().hostSegment().orElseThrow().asSlice(t.offset(), t.size());
        }
    }
}
