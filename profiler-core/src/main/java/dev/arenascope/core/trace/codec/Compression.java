package dev.arenascope.core.trace.codec;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;

import dev.arenascope.core.trace.TraceFormatException;

/**
 * The zstd side of a codec: one compression and one decompression context (created on first use,
 * native, freed by {@link #close}) and one buffer that every decompressed payload is written to (it
 * is only read while decoding). Not thread-safe.
 */
final class Compression implements AutoCloseable {
    private final int level;
    private ZstdCompressCtx cctx;
    private ZstdDecompressCtx dctx;
    private byte[] rawBuf = new byte[1 << 16];

    Compression(int level) {
        this.level = level;
    }

    /** The most bytes compressing {@code n} bytes may take. */
    static int bound(int n) {
        return (int) Math.min(Integer.MAX_VALUE - 64, Zstd.compressBound(n));
    }

    /** Compresses {@code src[0, srcLen)} into {@code dst} from {@code dstOff}; returns the compressed length. */
    int compress(byte[] src, int srcLen, byte[] dst, int dstOff, int dstCap) {
        if (cctx == null) {
            cctx = new ZstdCompressCtx().setLevel(level).setContentSize(true).setChecksum(false);
        }
        return cctx.compressByteArray(dst, dstOff, dstCap, src, 0, srcLen);
    }

    /**
     * Decompresses {@code src} (whole) into this codec's buffer: bytes {@code [0, rawLen)} of the array
     * returned, valid until the next call. The zstd frame must declare exactly {@code rawLen} bytes.
     *
     * @throws TraceFormatException at {@code offset} when the payload is corrupt or of another size
     */
    byte[] decompress(byte[] src, int rawLen, String source, long offset) throws TraceFormatException {
        if (dctx == null) {
            dctx = new ZstdDecompressCtx();
        }
        long declared = Zstd.getFrameContentSize(src, 0, src.length);
        if (declared != rawLen) {
            throw new TraceFormatException(source, offset, "compressed payload declares " + declared + " bytes, header says " + rawLen);
        }
        if (rawBuf.length < rawLen) {
            rawBuf = new byte[Math.max(rawLen, Math.min(ChunkCodec.MAX_RAW_BYTES, 2 * rawBuf.length))];
        }
        byte[] dst = rawBuf;
        int n;
        try {
            n = dctx.decompressByteArray(dst, 0, rawLen, src, 0, src.length);
        } catch (ZstdException e) {
            throw new TraceFormatException(source, offset, "corrupt compressed payload (" + e.getMessage() + ")");
        }
        if (n != rawLen) {
            throw new TraceFormatException(source, offset, "payload decompressed to " + n + " bytes, header says " + rawLen);
        }
        return dst;
    }

    @Override
    public void close() {
        if (cctx != null) {
            cctx.close();
            cctx = null;
        }
        if (dctx != null) {
            dctx.close();
            dctx = null;
        }
    }
}
