package dev.arenascope.workloads.render;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The render workload's kernels: a tiled triangle rasterizer with flat Lambert shading, a box blur
 * and a luminance tonemap, each reading and writing plain memory segments (the arena's buffers on the
 * host device, staging copies for CUDA). The passes mirror a wavefront GPU renderer:
 *
 * <ol>
 * <li>{@link #setup}: per triangle and frame, project to the screen and precompute edge functions,
 *     bounding box, depth plane and shade: {@value #SETUP_BYTES} bytes each (the raster precompute);
 * <li>{@link #countTiles}: how many tiles each triangle's box covers, per tile (the COUNT pass,
 *     whose total, the fragment count, sizes the tile lists);
 * <li>{@link #fillTiles}: the per-tile triangle lists;
 * <li>{@link #raster}: per tile, per listed triangle, per pixel: edge tests, depth test, shading into
 *     an RGBA8 frame and a float depth buffer;
 * <li>{@link #blur} and {@link #tonemap}: post-processing over float temporaries.
 * </ol>
 *
 * All layouts are unaligned accesses in native byte order, so heap staging segments work as well.
 * Stateless; thread-safe for disjoint outputs.
 */
public final class Rasterizer {
    /** Tile edge in pixels. */
    public static final int TILE = 16;
    /** Bytes of raster precompute per triangle and frame (16 floats). */
    public static final int SETUP_BYTES = 64;
    private static final int SETUP_FLOATS = SETUP_BYTES / 4;
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;

    private final int width;
    private final int height;
    private final int tilesX;
    private final int tilesY;

    public Rasterizer(int width, int height) {
        if (width < 1 || height < 1) {
            throw new IllegalArgumentException("frame size must be positive, got " + width + "x" + height);
        }
        this.width = width;
        this.height = height;
        this.tilesX = (width + TILE - 1) / TILE;
        this.tilesY = (height + TILE - 1) / TILE;
    }

    public int width() {
        return width;
    }

    public int height() {
        return height;
    }

    public int pixels() {
        return width * height;
    }

    /** Tiles per frame. */
    public int tiles() {
        return tilesX * tilesY;
    }

    /**
     * Projects every triangle for frame {@code frame} (the camera turns with the frame number) and
     * writes its {@value #SETUP_BYTES}-byte record at {@code out[base + t * 64]}: x0 y0 x1 y1 x2 y2,
     * z0 z1 z2, 1/area, min x, min y, max x, max y, shade, visible. A culled or off-screen triangle
     * gets visible = 0.
     */
    public void setup(float[] vertices, int triangles, long frame, MemorySegment out, long base) {
        double angle = frame * 0.045;
        float cos = (float) Math.cos(angle);
        float sin = (float) Math.sin(angle);
        float[] sx = new float[3];
        float[] sy = new float[3];
        float[] sz = new float[3];
        float[] wx = new float[3];
        float[] wy = new float[3];
        float[] wz = new float[3];
        for (int t = 0; t < triangles; t++) {
            long rec = base + (long) t * SETUP_BYTES;
            boolean visible = true;
            for (int v = 0; v < 3; v++) {
                float x = vertices[t * 9 + v * 3];
                float y = vertices[t * 9 + v * 3 + 1];
                float z = vertices[t * 9 + v * 3 + 2];
                float rx = cos * x + sin * z;
                float rz = -sin * x + cos * z + 2.2f; // camera 2.2 units back
                wx[v] = rx;
                wy[v] = y;
                wz[v] = rz;
                if (rz < 0.1f) {
                    visible = false;
                }
                float inv = 1.0f / Math.max(rz, 0.1f);
                sx[v] = (rx * inv * 1.4f * 0.5f + 0.5f) * width;
                sy[v] = (0.5f - y * inv * 1.4f * 0.5f * width / height) * height;
                sz[v] = rz;
            }
            float area = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
            float minX = Math.max(0, Math.min(sx[0], Math.min(sx[1], sx[2])));
            float minY = Math.max(0, Math.min(sy[0], Math.min(sy[1], sy[2])));
            float maxX = Math.min(width - 1, Math.max(sx[0], Math.max(sx[1], sx[2])));
            float maxY = Math.min(height - 1, Math.max(sy[0], Math.max(sy[1], sy[2])));
            if (Math.abs(area) < 1e-6f || minX > maxX || minY > maxY) {
                visible = false;
            }
            // flat Lambert shade from the world-space normal and a light up and to the left
            float ux = wx[1] - wx[0], uy = wy[1] - wy[0], uz = wz[1] - wz[0];
            float vx = wx[2] - wx[0], vy = wy[2] - wy[0], vz = wz[2] - wz[0];
            float nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
            float len = (float) Math.sqrt(nx * nx + ny * ny + nz * nz);
            float shade = len == 0 ? 0 : Math.abs(nx * -0.5f + ny * 0.7f + nz * -0.5f) / (len * 0.9899f);
            for (int v = 0; v < 3; v++) {
                out.set(F, rec + v * 8L, sx[v]);
                out.set(F, rec + v * 8L + 4, sy[v]);
                out.set(F, rec + 24 + v * 4L, sz[v]);
            }
            out.set(F, rec + 36, visible ? 1.0f / area : 0f);
            out.set(F, rec + 40, minX);
            out.set(F, rec + 44, minY);
            out.set(F, rec + 48, maxX);
            out.set(F, rec + 52, maxY);
            out.set(F, rec + 56, 0.15f + 0.85f * Math.min(1f, shade));
            out.set(F, rec + 60, visible ? 1f : 0f);
        }
    }

    /**
     * The COUNT pass: adds, per tile, the triangles whose box covers it into {@code counts} (one int
     * per tile at {@code countBase}, zeroed here) and returns the total: the frame's fragment count.
     */
    public long countTiles(MemorySegment setup, long setupBase, int triangles, MemorySegment counts, long countBase) {
        for (int i = 0; i < tiles(); i++) {
            counts.set(I, countBase + i * 4L, 0);
        }
        long total = 0;
        for (int t = 0; t < triangles; t++) {
            long rec = setupBase + (long) t * SETUP_BYTES;
            if (setup.get(F, rec + 60) == 0f) {
                continue;
            }
            int tx0 = (int) setup.get(F, rec + 40) / TILE, ty0 = (int) setup.get(F, rec + 44) / TILE;
            int tx1 = (int) setup.get(F, rec + 48) / TILE, ty1 = (int) setup.get(F, rec + 52) / TILE;
            for (int ty = ty0; ty <= ty1; ty++) {
                for (int tx = tx0; tx <= tx1; tx++) {
                    long at = countBase + (ty * (long) tilesX + tx) * 4;
                    counts.set(I, at, counts.get(I, at) + 1);
                }
            }
            total += (long) (tx1 - tx0 + 1) * (ty1 - ty0 + 1);
        }
        return total;
    }

    /**
     * Turns the counts into start offsets (written at {@code offsetBase}, one int per tile) and fills
     * the triangle lists at {@code lists[listBase + 4 * (start + k)]}. Uses the counts as cursors.
     */
    public void fillTiles(MemorySegment setup, long setupBase, int triangles, MemorySegment tileState, long countBase,
                          long offsetBase, MemorySegment lists, long listBase) {
        int running = 0;
        for (int i = 0; i < tiles(); i++) {
            int c = tileState.get(I, countBase + i * 4L);
            tileState.set(I, offsetBase + i * 4L, running);
            tileState.set(I, countBase + i * 4L, running); // cursor
            running += c;
        }
        for (int t = 0; t < triangles; t++) {
            long rec = setupBase + (long) t * SETUP_BYTES;
            if (setup.get(F, rec + 60) == 0f) {
                continue;
            }
            int tx0 = (int) setup.get(F, rec + 40) / TILE, ty0 = (int) setup.get(F, rec + 44) / TILE;
            int tx1 = (int) setup.get(F, rec + 48) / TILE, ty1 = (int) setup.get(F, rec + 52) / TILE;
            for (int ty = ty0; ty <= ty1; ty++) {
                for (int tx = tx0; tx <= tx1; tx++) {
                    long at = countBase + (ty * (long) tilesX + tx) * 4;
                    int cursor = tileState.get(I, at);
                    lists.set(I, listBase + cursor * 4L, t);
                    tileState.set(I, at, cursor + 1);
                }
            }
        }
    }

    /**
     * Rasterizes one frame: clears nothing (the caller clears), then per tile draws its listed
     * triangles into the RGBA8 {@code frame} and float {@code depth} buffers with a depth test.
     * After {@link #fillTiles}, the count slots hold each tile's end offset.
     *
     * @return pixels written
     */
    public long raster(MemorySegment setup, long setupBase, float[] colors, MemorySegment tileState, long countBase,
                       long offsetBase, MemorySegment lists, long listBase, MemorySegment frame, long frameBase,
                       MemorySegment depth, long depthBase) {
        long written = 0;
        for (int ty = 0; ty < tilesY; ty++) {
            for (int tx = 0; tx < tilesX; tx++) {
                int tile = ty * tilesX + tx;
                int start = tileState.get(I, offsetBase + tile * 4L);
                int end = tileState.get(I, countBase + tile * 4L);
                int px0 = tx * TILE, py0 = ty * TILE;
                int px1 = Math.min(width - 1, px0 + TILE - 1), py1 = Math.min(height - 1, py0 + TILE - 1);
                for (int k = start; k < end; k++) {
                    int t = lists.get(I, listBase + k * 4L);
                    long rec = setupBase + (long) t * SETUP_BYTES;
                    float x0 = setup.get(F, rec), y0 = setup.get(F, rec + 4);
                    float x1 = setup.get(F, rec + 8), y1 = setup.get(F, rec + 12);
                    float x2 = setup.get(F, rec + 16), y2 = setup.get(F, rec + 20);
                    float z0 = setup.get(F, rec + 24), z1 = setup.get(F, rec + 28), z2 = setup.get(F, rec + 32);
                    float invArea = setup.get(F, rec + 36);
                    int bx0 = Math.max(px0, (int) setup.get(F, rec + 40)), by0 = Math.max(py0, (int) setup.get(F, rec + 44));
                    int bx1 = Math.min(px1, (int) setup.get(F, rec + 48)), by1 = Math.min(py1, (int) setup.get(F, rec + 52));
                    float shade = setup.get(F, rec + 56);
                    int r = (int) (255 * shade * colors[t * 3]);
                    int g = (int) (255 * shade * colors[t * 3 + 1]);
                    int b = (int) (255 * shade * colors[t * 3 + 2]);
                    int rgba = r | g << 8 | b << 16 | 0xff << 24;
                    for (int y = by0; y <= by1; y++) {
                        float py = y + 0.5f;
                        for (int x = bx0; x <= bx1; x++) {
                            float px = x + 0.5f;
                            float w0 = ((x2 - x1) * (py - y1) - (y2 - y1) * (px - x1)) * invArea;
                            float w1 = ((x0 - x2) * (py - y2) - (y0 - y2) * (px - x2)) * invArea;
                            float w2 = 1 - w0 - w1;
                            if (w0 < 0 || w1 < 0 || w2 < 0) {
                                continue;
                            }
                            float z = w0 * z0 + w1 * z1 + w2 * z2;
                            long p = (long) y * width + x;
                            if (z < depth.get(F, depthBase + p * 4)) {
                                depth.set(F, depthBase + p * 4, z);
                                frame.set(I, frameBase + p * 4, rgba);
                                written++;
                            }
                        }
                    }
                }
            }
        }
        return written;
    }

    /** Fills a depth buffer of one frame with +infinity. */
    public void clearDepth(MemorySegment depth, long base) {
        for (long p = 0; p < pixels(); p++) {
            depth.set(F, base + p * 4, Float.POSITIVE_INFINITY);
        }
    }

    /**
     * A 3×3 box blur of one RGBA8 frame through a float RGB temporary ({@code 12} bytes per pixel at
     * {@code tmp[tmpBase..]}), mixed back over the frame as a soft glow.
     */
    public void blur(MemorySegment frame, long frameBase, MemorySegment tmp, long tmpBase) {
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                float r = 0, g = 0, b = 0;
                int n = 0;
                for (int dy = -1; dy <= 1; dy++) {
                    int yy = y + dy;
                    if (yy < 0 || yy >= height) {
                        continue;
                    }
                    for (int dx = -1; dx <= 1; dx++) {
                        int xx = x + dx;
                        if (xx < 0 || xx >= width) {
                            continue;
                        }
                        int c = frame.get(I, frameBase + ((long) yy * width + xx) * 4);
                        r += c & 0xff;
                        g += (c >>> 8) & 0xff;
                        b += (c >>> 16) & 0xff;
                        n++;
                    }
                }
                long at = tmpBase + ((long) y * width + x) * 12;
                tmp.set(F, at, r / n);
                tmp.set(F, at + 4, g / n);
                tmp.set(F, at + 8, b / n);
            }
        }
        for (long p = 0; p < pixels(); p++) {
            int c = frame.get(I, frameBase + p * 4);
            long at = tmpBase + p * 12;
            int r = Math.min(255, (int) ((c & 0xff) * 0.8f + tmp.get(F, at) * 0.35f));
            int g = Math.min(255, (int) (((c >>> 8) & 0xff) * 0.8f + tmp.get(F, at + 4) * 0.35f));
            int b = Math.min(255, (int) (((c >>> 16) & 0xff) * 0.8f + tmp.get(F, at + 8) * 0.35f));
            frame.set(I, frameBase + p * 4, r | g << 8 | b << 16 | 0xff << 24);
        }
    }

    /**
     * Tonemaps one frame: luminance into a float temporary ({@code 4} bytes per pixel at
     * {@code lum[lumBase..]}), a 256-bin histogram ({@code hist[histBase..]}, ints), and an exposure
     * that maps the 95th percentile to near white.
     *
     * @return the exposure applied
     */
    public float tonemap(MemorySegment frame, long frameBase, MemorySegment lum, long lumBase, MemorySegment hist, long histBase) {
        for (int i = 0; i < 256; i++) {
            hist.set(I, histBase + i * 4L, 0);
        }
        for (long p = 0; p < pixels(); p++) {
            int c = frame.get(I, frameBase + p * 4);
            float l = 0.2126f * (c & 0xff) + 0.7152f * ((c >>> 8) & 0xff) + 0.0722f * ((c >>> 16) & 0xff);
            lum.set(F, lumBase + p * 4, l);
            int bin = Math.min(255, (int) l);
            hist.set(I, histBase + bin * 4L, hist.get(I, histBase + bin * 4L) + 1);
        }
        long target = (long) (pixels() * 0.95);
        long seen = 0;
        int p95 = 255;
        for (int i = 0; i < 256; i++) {
            seen += hist.get(I, histBase + i * 4L);
            if (seen >= target) {
                p95 = i;
                break;
            }
        }
        float exposure = Math.min(2.5f, 230f / Math.max(16, p95));
        for (long p = 0; p < pixels(); p++) {
            int c = frame.get(I, frameBase + p * 4);
            float l = lum.get(F, lumBase + p * 4);
            float mapped = l * exposure / (1 + l * exposure / 255f) * 2f;
            float k = l > 0 ? mapped / l : 0;
            int r = Math.min(255, (int) ((c & 0xff) * k));
            int g = Math.min(255, (int) (((c >>> 8) & 0xff) * k));
            int b = Math.min(255, (int) (((c >>> 16) & 0xff) * k));
            frame.set(I, frameBase + p * 4, r | g << 8 | b << 16 | 0xff << 24);
        }
        return exposure;
    }
}
