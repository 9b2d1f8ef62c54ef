package dev.arenascope.core.trace.codec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.trace.ByteReader;
import dev.arenascope.core.trace.ByteWriter;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.TraceFormatException;

/**
 * The metadata records ({@link MetaRecord}) that travel in file headers and ahead of each chunk's
 * events, and the session record of file headers and the live hello. A record is a {@code u8} tag
 * then its fields (varints, zigzag varints, {@link ByteWriter#string} strings):
 * <pre>
 *   1 memory   varint id, name, u8 kind, device, zigzag capacity, attributes
 *   2 string   zigzag id, value
 *   3 thread   zigzag id, name
 *   4 loss     varint count of events lost
 * </pre>
 * Attributes are a varint count then key, value strings (sorted by key when written).
 *
 * <p><b>Adding a record kind</b> (say frames or stacks for layout 3): add its {@link MetaRecord}
 * variant, a tag here with the first layout that may carry it in {@link #firstLayout}, a case in
 * {@link #encodeMeta} and in {@link #decodeMeta}. A reader of an older layout then refuses the tag as
 * unknown, exactly as before, and the switch over the sealed {@code MetaRecord} will not compile until
 * the encoder handles it.
 *
 * <p>Bad input: counts are checked against the bytes left, strings against
 * {@link DecodeBudget#MAX_STRING_BYTES}; unknown tags and codes throw {@link TraceFormatException}
 * at their offset. Static and thread-safe.
 */
public final class MetaCodec {
    static final int TAG_MEMORY = 1;
    static final int TAG_STRING = 2;
    static final int TAG_THREAD = 3;
    static final int TAG_LOSS = 4;
    static final int TAG_FRAME = 5;
    static final int TAG_STACK = 6;

    private MetaCodec() {
    }

    /** The first event layout whose chunks may carry records of {@code tag}; 0 for an unknown tag. */
    static int firstLayout(int tag) {
        return switch (tag) {
            case TAG_MEMORY, TAG_STRING, TAG_THREAD, TAG_LOSS -> 1;
            case TAG_FRAME, TAG_STACK -> 3;
            default -> 0;
        };
    }

    /** Writes one metadata record. */
    public static void encodeMeta(MetaRecord rec, ByteWriter w) {
        switch (rec) {
            case MetaRecord.Memory(MemoryInfo mi) -> {
                w.u8(TAG_MEMORY);
                encodeMemory(mi, w);
            }
            case MetaRecord.Str(int id, String value) -> {
                w.u8(TAG_STRING);
                w.svarint(id);
                w.string(value);
            }
            case MetaRecord.Thread(int id, String name) -> {
                w.u8(TAG_THREAD);
                w.svarint(id);
                w.string(name);
            }
            case MetaRecord.Loss(long count) -> {
                w.u8(TAG_LOSS);
                w.varint(count);
            }
            case MetaRecord.Frame(StackFrame f) -> {
                w.u8(TAG_FRAME);
                w.varint(f.id());
                w.string(f.function());
                w.string(f.file());
                w.varint(f.line());
                w.varint(f.flags());
            }
            case MetaRecord.Stack(StackNode n) -> {
                w.u8(TAG_STACK);
                w.varint(n.id());
                w.varint(n.frame());
                w.svarint(n.parent());
            }
        }
    }

    /** Reads one metadata record of any layout this build knows. */
    public static MetaRecord decodeMeta(ByteReader r) throws TraceFormatException {
        return decodeMeta(r, EventLayout.CURRENT);
    }

    /** Reads one metadata record, refusing tags that {@code layout} may not carry. */
    public static MetaRecord decodeMeta(ByteReader r, EventLayout layout) throws TraceFormatException {
        long at = r.sourceOffset();
        int tag = r.u8();
        int since = firstLayout(tag);
        if (since == 0 || since > layout.version()) {
            throw new TraceFormatException(r.source(), at, "unknown metadata record tag " + tag);
        }
        return switch (tag) {
            case TAG_MEMORY -> new MetaRecord.Memory(decodeMemory(r));
            case TAG_STRING -> new MetaRecord.Str(r.svarint32("string id"), str(r));
            case TAG_THREAD -> new MetaRecord.Thread(r.svarint32("thread id"), str(r));
            case TAG_LOSS -> {
                long n = r.varint();
                if (n < 0) {
                    throw r.error("negative loss count");
                }
                yield new MetaRecord.Loss(n);
            }
            case TAG_FRAME -> {
                int id = r.count(Integer.MAX_VALUE - 1, "frame id");
                String function = str(r);
                String file = str(r);
                int line = r.count(Integer.MAX_VALUE, "frame line");
                int flags = r.count(0xff, "frame flags");
                if (function == null || file == null) {
                    throw new TraceFormatException(r.source(), at, "frame " + id + " has a null function or file");
                }
                yield new MetaRecord.Frame(new StackFrame(id, function, file, line, flags));
            }
            case TAG_STACK -> {
                int id = r.count(Integer.MAX_VALUE - 1, "stack node id");
                int frame = r.count(Integer.MAX_VALUE - 1, "stack node frame");
                int parent = r.svarint32("stack node parent");
                if (parent < -1 || parent >= id) {
                    throw new TraceFormatException(r.source(), at, "stack node " + id + " has parent " + parent
                            + " (a node's parent is announced before it, or is -1)");
                }
                yield new MetaRecord.Stack(new StackNode(id, frame, parent));
            }
            default -> throw new TraceFormatException(r.source(), at, "unknown metadata record tag " + tag);
        };
    }

    /** Writes a memory's registration. */
    public static void encodeMemory(MemoryInfo m, ByteWriter w) {
        w.varint(m.id());
        w.string(m.name());
        w.u8(m.kind().code());
        w.string(m.device());
        w.svarint(m.capacity());
        encodeMap(m.attributes(), w);
    }

    /** Reads a memory's registration. */
    public static MemoryInfo decodeMemory(ByteReader r) throws TraceFormatException {
        int id = r.count(EventBatch.MAX_MEMORY_ID, "memory id");
        String name = str(r);
        int kindCode = r.u8();
        MemoryKind kind = MemoryKind.ofCode(kindCode);
        if (kind == null) {
            throw r.error("unknown memory kind code " + kindCode);
        }
        String device = str(r);
        long capacity = r.svarint();
        Map<String, String> attrs = decodeMap(r);
        return new MemoryInfo(id, name == null ? "" : name, kind, device == null ? "" : device, capacity, attrs);
    }

    /** Writes session metadata (file headers, the live handshake). */
    public static void encodeSession(SessionInfo s, ByteWriter w) {
        w.string(s.name());
        w.string(s.host());
        w.svarint(s.startEpochNs());
        w.varint(s.devices().size());
        for (DeviceInfo d : s.devices()) {
            w.string(d.kind().name());
            w.svarint(d.index());
            w.string(d.name());
            w.svarint(d.totalBytes());
            w.svarint(d.freeBytes());
        }
        encodeMap(s.attributes(), w);
    }

    /** Reads session metadata written by {@link #encodeSession}. */
    public static SessionInfo decodeSession(ByteReader r) throws TraceFormatException {
        String name = str(r);
        String host = str(r);
        long start = r.svarint();
        int n = r.count(r.remaining(), "device count");
        List<DeviceInfo> devices = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String kindName = str(r);
            DeviceKind kind;
            try {
                kind = DeviceKind.valueOf(kindName);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw r.error("unknown device kind '" + kindName + "'");
            }
            int index = r.svarint32("device index");
            String dn = str(r);
            long total = r.svarint();
            long free = r.svarint();
            devices.add(new DeviceInfo(kind, index, dn == null ? "" : dn, total, free));
        }
        Map<String, String> attrs = decodeMap(r);
        return new SessionInfo(name == null ? "" : name, host == null ? "" : host, start, devices, attrs);
    }

    /** A string of a record, at most {@link DecodeBudget#MAX_STRING_BYTES}. */
    private static String str(ByteReader r) throws TraceFormatException {
        return r.string(DecodeBudget.MAX_STRING_BYTES);
    }

    private static void encodeMap(Map<String, String> map, ByteWriter w) {
        w.varint(map.size());
        for (var e : new TreeMap<>(map).entrySet()) {
            w.string(e.getKey());
            w.string(e.getValue());
        }
    }

    private static Map<String, String> decodeMap(ByteReader r) throws TraceFormatException {
        int n = r.count(r.remaining() / 2, "attribute count");
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            String k = str(r);
            String v = str(r);
            if (k == null || v == null) {
                throw r.error("null attribute key or value");
            }
            m.put(k, v);
        }
        return m;
    }
}
