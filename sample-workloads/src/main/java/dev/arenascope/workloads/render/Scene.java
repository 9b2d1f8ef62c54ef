package dev.arenascope.workloads.render;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The geometry the render workload draws: triangles scattered on a ring of blobs around the origin,
 * each with a flat colour. Grows by adding triangles (the "scene grows" case the batch sizing adapts
 * to). Positions are object space in [-1, 1]. Not thread-safe.
 */
public final class Scene {
    /** Floats per triangle in {@link #vertices()}: three vertices of x, y, z. */
    public static final int VERTEX_FLOATS = 9;
    /** Floats per triangle in {@link #colors()}: r, g, b in [0, 1]. */
    public static final int COLOR_FLOATS = 3;

    private final SplittableRandom random;
    private float[] vertices = new float[0];
    private float[] colors = new float[0];
    private int triangles;

    public Scene(long seed, int triangles) {
        this.random = new SplittableRandom(seed);
        grow(triangles);
    }

    /** Adds triangles until there are {@code total}; fewer is ignored. */
    public void grow(int total) {
        if (total <= triangles) {
            return;
        }
        vertices = Arrays.copyOf(vertices, total * VERTEX_FLOATS);
        colors = Arrays.copyOf(colors, total * COLOR_FLOATS);
        for (int t = triangles; t < total; t++) {
            double angle = random.nextDouble() * 2 * Math.PI;
            double radius = 0.35 + 0.45 * random.nextDouble();
            float cx = (float) (Math.cos(angle) * radius);
            float cy = (float) ((random.nextDouble() - 0.5) * 0.9);
            float cz = (float) (Math.sin(angle) * radius);
            float size = (float) (0.015 + 0.05 * random.nextDouble());
            for (int v = 0; v < 3; v++) {
                vertices[t * 9 + v * 3] = cx + (float) (random.nextDouble() - 0.5) * 2 * size;
                vertices[t * 9 + v * 3 + 1] = cy + (float) (random.nextDouble() - 0.5) * 2 * size;
                vertices[t * 9 + v * 3 + 2] = cz + (float) (random.nextDouble() - 0.5) * 2 * size;
            }
            float hue = (float) (angle / (2 * Math.PI));
            colors[t * 3] = 0.5f + 0.5f * (float) Math.cos(2 * Math.PI * hue);
            colors[t * 3 + 1] = 0.5f + 0.5f * (float) Math.cos(2 * Math.PI * (hue - 1 / 3.0));
            colors[t * 3 + 2] = 0.5f + 0.5f * (float) Math.cos(2 * Math.PI * (hue - 2 / 3.0));
        }
        triangles = total;
    }

    public int triangles() {
        return triangles;
    }

    /** The vertex array (triangles × 9 floats); shared, do not modify. */
    public float[] vertices() {
        return vertices;
    }

    /** The colour array (triangles × 3 floats); shared, do not modify. */
    public float[] colors() {
        return colors;
    }
}
