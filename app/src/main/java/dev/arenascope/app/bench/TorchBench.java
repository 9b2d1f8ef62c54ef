package dev.arenascope.app.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;

/**
 * {@code torch.import_ms}: milliseconds to import the magma27 PyTorch snapshot (495 KB, 5,163 trace
 * entries) from its file into an event stream, in this process after a warm-up; median of rounds.
 * The fixture is the repository's {@code fixtures/torch/cs336-a2-magma27.pickle}, packaged in the app
 * ({@link BenchFixtures}), or the file named by {@code ARENASCOPE_TORCH_FIXTURE}.
 */
final class TorchBench implements BenchSuite {
    static final String FIXTURE = "cs336-a2-magma27.pickle";

    @Override
    public String group() {
        return "torch";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        Path file = BenchFixtures.torch(System.getenv("ARENASCOPE_TORCH_FIXTURE"), FIXTURE);
        PeakSink sink = new PeakSink();
        double ms = Medians.medianOf(quick ? 1 : 10, quick ? 3 : 15, () -> {
            long t0 = System.nanoTime();
            TorchSnapshotToTrace.convert(file, sink);
            return (System.nanoTime() - t0) / 1e6;
        });
        Map<String, Double> f = new LinkedHashMap<>();
        f.put("torch.import_ms", ms);
        return f;
    }

    /** Consumes the stream the way a store would at least look at it: the peak of {@code used}. */
    private static final class PeakSink implements EventSink {
        long peak;

        @Override
        public void onEvents(EventBatch batch) {
            for (int i = 0; i < batch.size(); i++) {
                peak = Math.max(peak, batch.used(i));
            }
        }
    }
}
