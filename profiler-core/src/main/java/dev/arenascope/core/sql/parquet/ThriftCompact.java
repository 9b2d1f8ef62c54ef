package dev.arenascope.core.sql.parquet;

import java.nio.charset.StandardCharsets;

/**
 * The Thrift compact protocol, writing only, as far as Parquet's page headers and footer need it: fields
 * of i32, i64, binary, bool, struct and list, with the field-id deltas and zigzag varints of the
 * protocol. A struct is {@link #beginStruct}, its fields in increasing id order, {@link #endStruct}.
 * Not thread-safe.
 */
final class ThriftCompact {
    static final int BOOL_TRUE = 1;
    static final int BOOL_FALSE = 2;
    static final int I16 = 4;
    static final int I32 = 5;
    static final int I64 = 6;
    static final int BINARY = 8;
    static final int LIST = 9;
    static final int STRUCT = 12;

    private final ByteSink out;
    private final int[] lastField = new int[32];
    private int depth;

    ThriftCompact(ByteSink out) {
        this.out = out;
    }

    private void header(int id, int type) {
        int delta = id - lastField[depth];
        if (delta > 0 && delta <= 15) {
            out.write(delta << 4 | type);
        } else {
            out.write(type);
            out.zigzag(id);
        }
        lastField[depth] = id;
    }

    ThriftCompact i32(int id, int v) {
        header(id, I32);
        out.zigzag(v);
        return this;
    }

    ThriftCompact i64(int id, long v) {
        header(id, I64);
        out.zigzag(v);
        return this;
    }

    ThriftCompact bool(int id, boolean v) {
        header(id, v ? BOOL_TRUE : BOOL_FALSE);
        return this;
    }

    ThriftCompact binary(int id, byte[] v) {
        header(id, BINARY);
        out.varint(v.length);
        out.write(v, 0, v.length);
        return this;
    }

    ThriftCompact string(int id, String v) {
        return binary(id, v.getBytes(StandardCharsets.UTF_8));
    }

    /** A struct-valued field; its fields follow, then {@link #endStruct}. */
    ThriftCompact struct(int id) {
        header(id, STRUCT);
        return beginStruct();
    }

    /** A struct as a list element, or the outermost one. */
    ThriftCompact beginStruct() {
        lastField[++depth] = 0;
        return this;
    }

    ThriftCompact endStruct() {
        out.write(0);
        depth--;
        return this;
    }

    /** A list-valued field of {@code size} elements of {@code elementType}; the elements follow. */
    ThriftCompact list(int id, int elementType, int size) {
        header(id, LIST);
        if (size < 15) {
            out.write(size << 4 | elementType);
        } else {
            out.write(0xF0 | elementType);
            out.varint(size);
        }
        return this;
    }

    /** An i32 list element. */
    ThriftCompact element(int v) {
        out.zigzag(v);
        return this;
    }

    /** A binary list element. */
    ThriftCompact element(String v) {
        byte[] b = v.getBytes(StandardCharsets.UTF_8);
        out.varint(b.length);
        out.write(b, 0, b.length);
        return this;
    }
}
