package dev.arenascope.core.pool.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The free blocks' tree against {@link TreeSet} with PyTorch's two block orders, on random adds and removes. */
class BlockTreeTest {
    static final Comparator<CachingAllocatorModel.Block> BY_SIZE = Comparator.<CachingAllocatorModel.Block>comparingLong(b -> b.stream)
            .thenComparingLong(b -> b.size).thenComparingLong(b -> b.addr);
    static final Comparator<CachingAllocatorModel.Block> BY_ADDRESS = Comparator.<CachingAllocatorModel.Block>comparingLong(b -> b.stream)
            .thenComparingLong(b -> b.addr);

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void answersAsATreeSetOfTheSameOrderWould(boolean bySize) {
        Random r = new Random(7);
        BlockTree tree = new BlockTree(bySize);
        TreeSet<CachingAllocatorModel.Block> set = new TreeSet<>(bySize ? BY_SIZE : BY_ADDRESS);
        List<CachingAllocatorModel.Block> in = new ArrayList<>();
        long addr = 0;
        for (int step = 0; step < 20_000; step++) {
            if (in.isEmpty() || r.nextInt(10) < 6) {
                // few sizes and two streams, so equal sizes and the address tie-break are common
                addr += 512L * (1 + r.nextInt(4));
                CachingAllocatorModel.Block b = new CachingAllocatorModel.Block(addr, 512L * (1 + r.nextInt(20)), r.nextInt(2), null);
                tree.add(b);
                set.add(b);
                in.add(b);
            } else {
                CachingAllocatorModel.Block b = in.remove(r.nextInt(in.size()));
                tree.remove(b);
                set.remove(b);
                assertTrue(!tree.contains(b));
            }
            assertEquals(set.size(), tree.size());
            long stream = r.nextInt(2);
            long size = 512L * r.nextInt(22);
            long at = r.nextLong(addr + 1);
            CachingAllocatorModel.Block key = new CachingAllocatorModel.Block(bySize ? Long.MIN_VALUE : at, size, stream, null);
            CachingAllocatorModel.Block want = set.ceiling(key);
            CachingAllocatorModel.Block got = tree.ceiling(stream, size, bySize ? Long.MIN_VALUE : at);
            assertSame(want, got, "ceiling at step " + step);
            if (got != null) {
                assertSame(set.higher(got), BlockTree.next(got), "next at step " + step);
                assertSame(set.lower(got), BlockTree.previous(got), "previous at step " + step);
            }
            assertSame(set.isEmpty() ? null : set.first(), tree.first());
            assertSame(set.isEmpty() ? null : set.last(), tree.last());
        }
        List<CachingAllocatorModel.Block> walked = new ArrayList<>();
        for (CachingAllocatorModel.Block b = tree.first(); b != null; b = BlockTree.next(b)) {
            walked.add(b);
        }
        assertEquals(new ArrayList<>(set), walked);
    }

    @Test
    void aBlockIsInOneTreeAtATime() {
        BlockTree a = new BlockTree(true);
        BlockTree b = new BlockTree(false);
        CachingAllocatorModel.Block x = new CachingAllocatorModel.Block(0, 512, 0, null);
        a.add(x);
        assertThrows(IllegalStateException.class, () -> b.add(x));
        b.remove(x); // not there: nothing
        assertTrue(a.contains(x));
        a.remove(x);
        b.add(x);
        assertTrue(b.contains(x));
    }
}
