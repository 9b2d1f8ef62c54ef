package dev.arenascope.workloads.inference;

import java.util.List;

import dev.arenascope.workloads.inference.NetworkGraph.Role;

/**
 * ResNet-50 (v1.5: stride on the 3×3 convolution) as a {@link NetworkGraph}, from its layer shapes:
 * a 7×7/2 stem to 64 channels, a 3×3/2 max pool, four stages of 3, 4, 6 and 3 bottleneck blocks of
 * width 64, 128, 256 and 512 (outputs four times as wide, a projection shortcut on each stage's first
 * block), global average pooling and a 1000-way classifier. Batch norm is folded into the
 * convolutions (scale and bias per output channel, as inference compilers do); ReLU is fused.
 * About 25.6 M parameters (≈ 102 MB of float32 weights).
 */
public final class ResNet50 {
    private ResNet50() {}

    /** The graph for {@code batch} images of {@code resolution}² pixels (224 for the standard network). */
    public static NetworkGraph build(int batch, int resolution) {
        if (resolution < 32 || resolution % 32 != 0) {
            throw new IllegalArgumentException("resnet50: resolution must be a multiple of 32, at least 32; got " + resolution);
        }
        NetworkGraph.Builder g = new NetworkGraph.Builder("resnet50", batch);
        int n = batch;
        int input = g.tensor("input", Role.ACTIVATION, n, 3, resolution, resolution);
        g.step("input", "input", List.of(), List.of(), List.of(input));
        int size = resolution / 2;
        int x = conv(g, "conv1", input, 3, 64, 7, size);
        size /= 2;
        int pooled = g.tensor("maxpool.out", Role.ACTIVATION, n, 64, size, size);
        g.step("maxpool3x3", "maxpool", List.of(x), List.of(), List.of(pooled));
        x = pooled;
        int channels = 64;
        int[] blocks = {3, 4, 6, 3};
        int[] widths = {64, 128, 256, 512};
        for (int stage = 0; stage < 4; stage++) {
            for (int b = 0; b < blocks[stage]; b++) {
                String prefix = "layer" + (stage + 1) + "." + b;
                int width = widths[stage];
                int outSize = b == 0 && stage > 0 ? size / 2 : size;
                int a = conv(g, prefix + ".conv1", x, channels, width, 1, size);
                int c = conv(g, prefix + ".conv2", a, width, width, 3, outSize);
                int d = conv(g, prefix + ".conv3", c, width, width * 4, 1, outSize);
                int shortcut = x;
                if (b == 0) {
                    shortcut = conv(g, prefix + ".downsample", x, channels, width * 4, 1, outSize);
                }
                int sum = g.tensor(prefix + ".out", Role.ACTIVATION, n, width * 4, outSize, outSize);
                g.step("add_relu", prefix + ".add", List.of(d, shortcut), List.of(), List.of(sum));
                x = sum;
                channels = width * 4;
                size = outSize;
            }
        }
        int avg = g.tensor("avgpool.out", Role.ACTIVATION, n, channels);
        g.step("avgpool", "avgpool", List.of(x), List.of(), List.of(avg));
        int fcW = g.tensor("fc.weight", Role.WEIGHT, 1000, channels);
        int fcB = g.tensor("fc.bias", Role.WEIGHT, 1000);
        int logits = g.tensor("logits", Role.ACTIVATION, n, 1000);
        g.step("linear", "fc", List.of(avg), List.of(fcW, fcB), List.of(logits));
        return g.build();
    }

    private static int conv(NetworkGraph.Builder g, String name, int in, int cin, int cout, int k, int outSize) {
        int w = g.tensor(name + ".weight", Role.WEIGHT, cout, cin, k, k);
        int bn = g.tensor(name + ".bn", Role.WEIGHT, 2, cout);
        int out = g.tensor(name + ".out", Role.ACTIVATION, g.batch(), cout, outSize, outSize);
        g.step("conv" + k + "x" + k, name, List.of(in), List.of(w, bn), List.of(out));
        return out;
    }
}
