package dev.arenascope.workloads.inference;

import java.util.ArrayList;
import java.util.List;

import dev.arenascope.workloads.inference.NetworkGraph.Role;

/**
 * A stack of transformer encoder blocks (post-norm, as in BERT) as a {@link NetworkGraph}: per
 * layer a fused QKV projection, attention scores and softmax per head, the context, the output
 * projection, residual add + layer norm, a GELU feed-forward of four times the width, and a second
 * residual add + layer norm. Keys and values are also written to a per-layer KV cache sized for
 * {@code maxSequence} tokens: the persistent state a decoder-style runtime keeps between runs.
 * With width 768, 12 heads and 3072 feed-forward units a layer has ≈ 7.1 M parameters (BERT-base).
 */
public final class TransformerEncoder {
    private TransformerEncoder() {}

    /**
     * @param batch       sequences per run
     * @param sequence    tokens per sequence
     * @param layers      encoder blocks
     * @param width       model width (d_model)
     * @param heads       attention heads (must divide width)
     * @param maxSequence tokens the KV cache holds (≥ sequence)
     */
    public static NetworkGraph build(int batch, int sequence, int layers, int width, int heads, int maxSequence) {
        if (sequence < 1 || layers < 1 || width < 1 || heads < 1 || width % heads != 0 || maxSequence < sequence) {
            throw new IllegalArgumentException("transformer: need sequence >= 1, layers >= 1, heads dividing width and maxSequence >= sequence; got sequence "
                    + sequence + ", layers " + layers + ", width " + width + ", heads " + heads + ", maxSequence " + maxSequence);
        }
        NetworkGraph.Builder g = new NetworkGraph.Builder("transformer", batch);
        int ffn = 4 * width;
        int x = g.tensor("embeddings", Role.ACTIVATION, batch, sequence, width);
        g.step("input", "input", List.of(), List.of(), List.of(x));
        List<Integer> caches = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            String p = "layer" + l;
            int kCache = g.tensor(p + ".k_cache", Role.STATE, batch, heads, maxSequence, width / heads);
            int vCache = g.tensor(p + ".v_cache", Role.STATE, batch, heads, maxSequence, width / heads);
            caches.add(kCache);
            caches.add(vCache);
            int wqkv = g.tensor(p + ".qkv.weight", Role.WEIGHT, 3 * width, width);
            int bqkv = g.tensor(p + ".qkv.bias", Role.WEIGHT, 3 * width);
            int qkv = g.tensor(p + ".qkv.out", Role.ACTIVATION, batch, sequence, 3 * width);
            g.step("linear", p + ".qkv", List.of(x), List.of(wqkv, bqkv), List.of(qkv));
            g.step("kv_cache_write", p + ".kv_cache", List.of(qkv), List.of(), List.of(kCache, vCache));
            int scores = g.tensor(p + ".scores", Role.ACTIVATION, batch, heads, sequence, sequence);
            g.step("matmul_qk", p + ".scores", List.of(qkv, kCache), List.of(), List.of(scores));
            int probs = g.tensor(p + ".probs", Role.ACTIVATION, batch, heads, sequence, sequence);
            g.step("softmax", p + ".softmax", List.of(scores), List.of(), List.of(probs));
            int ctx = g.tensor(p + ".context", Role.ACTIVATION, batch, sequence, width);
            g.step("matmul_pv", p + ".context", List.of(probs, vCache), List.of(), List.of(ctx));
            int wo = g.tensor(p + ".out_proj.weight", Role.WEIGHT, width, width);
            int bo = g.tensor(p + ".out_proj.bias", Role.WEIGHT, width);
            int attn = g.tensor(p + ".attention.out", Role.ACTIVATION, batch, sequence, width);
            g.step("linear", p + ".out_proj", List.of(ctx), List.of(wo, bo), List.of(attn));
            int ln1w = g.tensor(p + ".ln1.weight", Role.WEIGHT, 2, width);
            int res1 = g.tensor(p + ".ln1.out", Role.ACTIVATION, batch, sequence, width);
            g.step("add_layernorm", p + ".ln1", List.of(x, attn), List.of(ln1w), List.of(res1));
            int w1 = g.tensor(p + ".ffn1.weight", Role.WEIGHT, ffn, width);
            int b1 = g.tensor(p + ".ffn1.bias", Role.WEIGHT, ffn);
            int h1 = g.tensor(p + ".ffn1.out", Role.ACTIVATION, batch, sequence, ffn);
            g.step("linear_gelu", p + ".ffn1", List.of(res1), List.of(w1, b1), List.of(h1));
            int w2 = g.tensor(p + ".ffn2.weight", Role.WEIGHT, width, ffn);
            int b2 = g.tensor(p + ".ffn2.bias", Role.WEIGHT, width);
            int h2 = g.tensor(p + ".ffn2.out", Role.ACTIVATION, batch, sequence, width);
            g.step("linear", p + ".ffn2", List.of(h1), List.of(w2, b2), List.of(h2));
            int ln2w = g.tensor(p + ".ln2.weight", Role.WEIGHT, 2, width);
            int out = g.tensor(p + ".out", Role.ACTIVATION, batch, sequence, width);
            g.step("add_layernorm", p + ".ln2", List.of(res1, h2), List.of(ln2w), List.of(out));
            x = out;
        }
        return g.build();
    }
}
