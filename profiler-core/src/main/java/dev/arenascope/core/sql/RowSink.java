package dev.arenascope.core.sql;

import java.util.List;

/** Receives a query's answer as it is read: the columns once, then every row in order. */
public interface RowSink {
    /** The answer's column names and SQL types. */
    void columns(List<String> names, List<String> types);

    /** One row; the array is the sink's to keep. Returns false to stop reading (the rest is not fetched). */
    boolean row(Object[] values);
}
