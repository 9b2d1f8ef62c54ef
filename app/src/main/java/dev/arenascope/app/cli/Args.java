package dev.arenascope.app.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.arenascope.core.format.Bytes;

/**
 * A sub-command's arguments: {@code --name value}, {@code --name=value}, {@code --flag} and positionals.
 * Every getter names the option in its error, and {@link #finish()} rejects options nobody asked for.
 */
public final class Args {
    private final String command;
    private final Map<String, String> options = new LinkedHashMap<>();
    private final List<String> positionals = new ArrayList<>();
    private final Set<String> flags;
    private final HashSet<String> consumed = new HashSet<>();
    /** A last word {@code --name} with no value after it: "needs a value" if the command reads it, else unknown. */
    private String valueMissing;

    /**
     * @param command  the sub-command, for messages
     * @param raw      the words after the sub-command
     * @param flags    option names that take no value
     */
    public Args(String command, List<String> raw, Set<String> flags) {
        this.command = command;
        this.flags = flags;
        boolean onlyPositionals = false;
        for (int i = 0; i < raw.size(); i++) {
            String w = raw.get(i);
            if (onlyPositionals || !w.startsWith("--") || w.equals("-")) {
                positionals.add(w);
            } else if (w.equals("--")) {
                onlyPositionals = true;
            } else {
                String name = w.substring(2);
                String value;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                } else if (flags.contains(name)) {
                    value = "true";
                } else if (i + 1 < raw.size()) {
                    value = raw.get(++i);
                } else {
                    valueMissing = name;    // judged when read, or by finish(): it may be no option at all
                    continue;
                }
                if (options.put(name, value) != null) {
                    throw new UsageException(command + ": option --" + name + " given twice");
                }
            }
        }
    }

    public String command() {
        return command;
    }

    public List<String> positionals() {
        return positionals;
    }

    public boolean flag(String name) {
        consumed.add(name);
        requireValue(name);
        return "true".equals(options.get(name));
    }

    public boolean has(String name) {
        return options.containsKey(name) || name.equals(valueMissing);
    }

    public String string(String name, String fallback) {
        consumed.add(name);
        requireValue(name);
        return options.getOrDefault(name, fallback);
    }

    private void requireValue(String name) {
        if (name.equals(valueMissing)) {
            throw new UsageException(command + ": option --" + name + " needs a value");
        }
    }

    public String required(String name) {
        consumed.add(name);
        requireValue(name);
        String v = options.get(name);
        if (v == null) {
            throw new UsageException(command + ": missing required option --" + name);
        }
        return v;
    }

    public long longValue(String name, long fallback) {
        String v = string(name, null);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(command + ": --" + name + " expects an integer, got '" + v + "'");
        }
    }

    public int intValue(String name, int fallback) {
        long v = longValue(name, fallback);
        if (v != (int) v) {
            throw new UsageException(command + ": --" + name + " is out of range: " + v);
        }
        return (int) v;
    }

    public double doubleValue(String name, double fallback) {
        String v = string(name, null);
        if (v == null) {
            return fallback;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException(command + ": --" + name + " expects a number, got '" + v + "'");
        }
    }

    /** A byte count such as {@code 1048576}, {@code 512MiB} or {@code 2G}. */
    public long bytes(String name, long fallback) {
        String v = string(name, null);
        if (v == null) {
            return fallback;
        }
        try {
            return Bytes.parse(v);
        } catch (IllegalArgumentException e) {
            throw new UsageException(command + ": --" + name + ": " + e.getMessage());
        }
    }

    /**
     * The options not read so far, in the order given (for commands that pass them on, as
     * {@code record} does to its workload); marks them read.
     */
    public Map<String, String> unread() {
        if (valueMissing != null && !consumed.contains(valueMissing)) {
            requireValue(valueMissing);     // passed on, so the receiver would take it as given: say so here
        }
        Map<String, String> out = new LinkedHashMap<>();
        options.forEach((name, value) -> {
            if (!consumed.contains(name) && !name.equals("debug")) {
                out.put(name, value);
            }
        });
        consumed.addAll(out.keySet());
        return out;
    }

    /** Rejects options the command did not read, naming the first one. */
    public void finish() {
        for (String name : options.keySet()) {
            if (!consumed.contains(name) && !name.equals("debug")) {
                throw new UsageException(command + ": unknown option --" + name + " (see arenascope " + command + " --help)");
            }
        }
        if (valueMissing != null) {
            if (!consumed.contains(valueMissing) && !valueMissing.equals("debug")) {
                throw new UsageException(command + ": unknown option --" + valueMissing + " (see arenascope " + command + " --help)");
            }
            requireValue(valueMissing);
        }
    }
}
