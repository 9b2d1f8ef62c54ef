package dev.arenascope.core.record;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A session's interned strings: each distinct string gets one id, announced once to the sinks. */
final class StringTable {
    private final Map<String, Integer> ids = new ConcurrentHashMap<>();
    private final List<String> values = new ArrayList<>();

    int intern(String value, Drain drain) {
        Integer id = ids.get(value);
        if (id != null) {
            return id;
        }
        synchronized (this) {
            id = ids.get(value);
            if (id == null) {
                id = values.size();
                values.add(value);
                drain.announceString(id, value);
                ids.put(value, id);
            }
            return id;
        }
    }

    synchronized String get(int id) {
        return id >= 0 && id < values.size() ? values.get(id) : null;
    }

    synchronized List<String> snapshot() {
        return List.copyOf(values);
    }
}
