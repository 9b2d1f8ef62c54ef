package dev.arenascope.app.commands.pool;

import java.io.PrintStream;
import java.util.List;
import java.util.Set;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.pool.Bins;
import dev.arenascope.core.pool.MemoryPool;

/**
 * {@code arenascope pool-bins}: what bin and block size a {@code MemoryPool} gives each request size,
 * so a user can see what a choice of mantissa bits costs in rounding.
 */
public final class PoolBinsCommand implements Command {

    @Override
    public String name() {
        return "pool-bins";
    }

    @Override
    public String summary() {
        return "show the bin and block size a memory pool gives each request size";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope pool-bins [--mantissa-bits M] SIZE...

                Prints one line per SIZE: the size, its bin and the bytes the pool allocates for it
                (the largest size of the bin), all in decimal:

                  SIZE BIN ALLOC_SIZE

                The bin math is pyopencl's: the binary exponent of SIZE followed by the M bits below
                its leading one. More bits: less rounding waste (under 2^-M of a request), fewer reuses.

                  --mantissa-bits M   bits below the leading one, 0..16 (default 4)

                SIZE is a byte count: a plain integer (up to 9223372036854775807) or a number with a
                binary unit (4KiB, 1.5M, 2G). Exit 2 on a size that is not one.
                """;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) {
        Args a = new Args(name(), args, Set.of());
        int bits = a.intValue("mantissa-bits", MemoryPool.DEFAULT_MANTISSA_BITS);
        a.finish();
        if (bits < 0 || bits > Bins.MAX_MANTISSA_BITS) {
            throw new UsageException(name() + ": --mantissa-bits must be in 0.." + Bins.MAX_MANTISSA_BITS + ", got " + bits);
        }
        List<String> sizes = a.positionals();
        if (sizes.isEmpty()) {
            throw new UsageException(name() + ": no SIZE given (see arenascope pool-bins --help)");
        }
        long[] parsed = new long[sizes.size()];
        for (int i = 0; i < parsed.length; i++) {
            String text = sizes.get(i);
            if (text.trim().startsWith("-")) {
                throw new UsageException(name() + ": SIZE " + (i + 1) + ": '" + text + "' is negative; sizes are byte counts >= 0");
            }
            try {
                parsed[i] = Bytes.parse(text);
            } catch (IllegalArgumentException e) {
                throw new UsageException(name() + ": SIZE " + (i + 1) + ": " + e.getMessage());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (long size : parsed) {
            int bin = Bins.binNumber(size, bits);
            sb.append(size).append(' ').append(bin).append(' ').append(Bins.allocSize(bin, bits)).append('\n');
        }
        out.print(sb);
        return 0;
    }
}
