package dev.arenascope.core.pool.torch;

/**
 * An ordered set of {@link CachingAllocatorModel.Block}s threaded through the blocks themselves (a treap:
 * the links and the heap priority live in each block), so that adding or removing a free block allocates
 * nothing and a search compares fields of the blocks it visits, without the entry objects and comparator
 * calls of a {@link java.util.TreeSet}. Ordered by stream, then (when {@code bySize}) by size, then by
 * address: the order of PyTorch's {@code BlockPool::blocks} ({@code BlockComparatorSize}) or of its
 * {@code unmapped} set ({@code BlockComparatorAddress}). A block is in at most one tree at a time (free
 * mapped blocks in their pool's free tree, unmapped ranges in its unmapped tree). Expected O(log n) per
 * operation; priorities come from a fixed xorshift sequence, so a replay's work is the same each run.
 * Not thread-safe.
 */
final class BlockTree {
    private final boolean bySize;
    private CachingAllocatorModel.Block root;
    private int count;
    private int seed = 0x2545F491;

    BlockTree(boolean bySize) {
        this.bySize = bySize;
    }

    boolean isEmpty() {
        return root == null;
    }

    int size() {
        return count;
    }

    /** Whether {@code b} is in this tree. */
    boolean contains(CachingAllocatorModel.Block b) {
        return b.tree == this;
    }

    /** Whether {@code b} sorts before the key (stream, size, address). */
    private boolean before(CachingAllocatorModel.Block b, long stream, long size, long addr) {
        if (b.stream != stream) {
            return b.stream < stream;
        }
        if (bySize && b.size != size) {
            return b.size < size;
        }
        return b.addr < addr;
    }

    /** The first block at or after the key (size is ignored in an address-ordered tree), or null. */
    CachingAllocatorModel.Block ceiling(long stream, long size, long addr) {
        CachingAllocatorModel.Block n = root;
        CachingAllocatorModel.Block best = null;
        while (n != null) {
            if (before(n, stream, size, addr)) {
                n = n.right;
            } else {
                best = n;
                n = n.left;
            }
        }
        return best;
    }

    CachingAllocatorModel.Block first() {
        CachingAllocatorModel.Block n = root;
        if (n == null) {
            return null;
        }
        while (n.left != null) {
            n = n.left;
        }
        return n;
    }

    CachingAllocatorModel.Block last() {
        CachingAllocatorModel.Block n = root;
        if (n == null) {
            return null;
        }
        while (n.right != null) {
            n = n.right;
        }
        return n;
    }

    /** The block after {@code b} in its tree, or null. */
    static CachingAllocatorModel.Block next(CachingAllocatorModel.Block b) {
        CachingAllocatorModel.Block n = b.right;
        if (n != null) {
            while (n.left != null) {
                n = n.left;
            }
            return n;
        }
        CachingAllocatorModel.Block c = b;
        n = b.parent;
        while (n != null && n.right == c) {
            c = n;
            n = n.parent;
        }
        return n;
    }

    /** The block before {@code b} in its tree, or null. */
    static CachingAllocatorModel.Block previous(CachingAllocatorModel.Block b) {
        CachingAllocatorModel.Block n = b.left;
        if (n != null) {
            while (n.right != null) {
                n = n.right;
            }
            return n;
        }
        CachingAllocatorModel.Block c = b;
        n = b.parent;
        while (n != null && n.left == c) {
            c = n;
            n = n.parent;
        }
        return n;
    }

    /** Adds {@code b} (in no tree; no equal block in this one). */
    void add(CachingAllocatorModel.Block b) {
        if (b.tree != null) {
            throw new IllegalStateException("block at 0x" + Long.toHexString(b.addr) + " is already in a tree");
        }
        int x = seed;
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        seed = x;
        b.prio = x;
        b.left = null;
        b.right = null;
        b.tree = this;
        count++;
        if (root == null) {
            b.parent = null;
            root = b;
            return;
        }
        CachingAllocatorModel.Block n = root;
        while (true) {
            if (before(b, n.stream, n.size, n.addr)) {
                if (n.left == null) {
                    n.left = b;
                    break;
                }
                n = n.left;
            } else {
                if (n.right == null) {
                    n.right = b;
                    break;
                }
                n = n.right;
            }
        }
        b.parent = n;
        while (b.parent != null && b.prio < b.parent.prio) {
            rotateUp(b);
        }
    }

    /** Removes {@code b}; nothing when it is not in this tree. */
    void remove(CachingAllocatorModel.Block b) {
        if (b.tree != this) {
            return;
        }
        while (b.left != null && b.right != null) {
            rotateUp(b.left.prio < b.right.prio ? b.left : b.right);
        }
        CachingAllocatorModel.Block c = b.left != null ? b.left : b.right;
        CachingAllocatorModel.Block p = b.parent;
        if (c != null) {
            c.parent = p;
        }
        if (p == null) {
            root = c;
        } else if (p.left == b) {
            p.left = c;
        } else {
            p.right = c;
        }
        b.left = null;
        b.right = null;
        b.parent = null;
        b.tree = null;
        count--;
    }

    /** Lifts {@code x} above its parent, keeping the order. */
    private void rotateUp(CachingAllocatorModel.Block x) {
        CachingAllocatorModel.Block p = x.parent;
        CachingAllocatorModel.Block g = p.parent;
        if (p.left == x) {
            p.left = x.right;
            if (x.right != null) {
                x.right.parent = p;
            }
            x.right = p;
        } else {
            p.right = x.left;
            if (x.left != null) {
                x.left.parent = p;
            }
            x.left = p;
        }
        p.parent = x;
        x.parent = g;
        if (g == null) {
            root = x;
        } else if (g.left == p) {
            g.left = x;
        } else {
            g.right = x;
        }
    }
}
