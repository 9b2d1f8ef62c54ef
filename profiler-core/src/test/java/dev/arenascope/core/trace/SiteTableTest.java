package dev.arenascope.core.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class SiteTableTest {

    @Test
    void internsFramesAndPathsAndWalksInnermostFirst() {
        SiteTable t = new SiteTable();
        int main = t.frame("main", "train.py", 10, 0);
        int step = t.frame("step", "train.py", 42, 0);
        int alloc = t.frame("c10::alloc", "", 0, StackFrame.FLAG_INTERNAL);
        assertEquals(main, t.frame("main", "train.py", 10, 0), "the same location is one frame");
        int site = t.stack(main, step, alloc);
        assertEquals(site, t.stack(main, step, alloc), "the same path is one node");
        int other = t.stack(main, alloc);
        assertTrue(other != site);
        assertEquals(3, t.frameCount());
        assertEquals(4, t.nodeCount(), "main, main>step, main>step>alloc, main>alloc");
        assertEquals(List.of("c10::alloc", "step", "main"), t.frames(site).stream().map(StackFrame::function).toList());
        assertTrue(t.frames(site).getFirst().internal());
        assertEquals(List.of(), t.frames(-1));
        assertEquals(-1, t.stack());
    }

    @Test
    void framesInternedByStringIdsAreTheFramesOfTheirStrings() {
        SiteTable t = new SiteTable();
        int main = t.frame("main", "train.py", 10, 0);
        int fn = t.string("main"), file = t.string("train.py");
        assertEquals(fn, t.string("main"), "a string is one id");
        assertEquals(main, t.frame(fn, file, 10, 0), "the same location by ids is the same frame");
        int step = t.frame(t.string("step"), file, 42, 0);
        assertEquals(step, t.frame("step", "train.py", 42, 0), "and a frame made by ids is found by its strings");
        assertEquals(List.of("step"), t.frames(t.stack(step)).stream().map(StackFrame::function).toList());
        assertEquals(2, t.frameCount());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.frame(99, file, 1, 0));
        assertEquals("no string 99 (the table has 3)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.frame(fn, file, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> t.string(null));
    }

    @Test
    void nodesMadeUnderTheNewestNodeAreFoundAgainByEveryPath() {
        SiteTable t = new SiteTable();
        int[] f = new int[6];
        for (int i = 0; i < f.length; i++) {
            f[i] = t.frame("fn" + i, "m.py", i, 0);
        }
        int deep = t.stack(f[0], f[1], f[2], f[3]); // each node below the first made under the newest one
        assertEquals(4, t.nodeCount());
        assertEquals(deep, t.stack(f[0], f[1], f[2], f[3]), "the same path again: the same nodes, none added");
        assertEquals(4, t.nodeCount());
        int mid = t.node(t.node(-1, f[0]), f[1]);
        assertEquals(t.nodeParent(t.nodeParent(deep)), mid, "a prefix finds the nodes made along the deeper path");
        int branch = t.stack(f[0], f[1], f[4], f[5]);
        assertEquals(6, t.nodeCount(), "a branch shares its callers' nodes");
        assertEquals(mid, t.nodeParent(t.nodeParent(branch)));
        assertEquals(t.stack(f[0], f[1], f[4], f[5]), branch);
        assertEquals(List.of("fn5", "fn4", "fn1", "fn0"), t.frames(branch).stream().map(StackFrame::function).toList());
        for (int n = 0; n < t.nodeCount(); n++) {
            assertEquals(n, t.node(t.nodeParent(n), t.nodeFrame(n)), "node " + n + " is found by its parent and frame");
        }
    }

    @Test
    void announcesEachEntryOnceInAnOrderTheStoreAccepts() {
        SiteTable t = new SiteTable();
        List<String> heard = new ArrayList<>();
        SiteTable copy = new SiteTable();
        EventSink sink = new EventSink() {
            @Override
            public void onFrame(StackFrame frame) {
                heard.add("f" + frame.id());
                copy.add(frame);
            }

            @Override
            public void onStack(StackNode node) {
                heard.add("n" + node.id());
                copy.add(node);
            }

            @Override
            public void onEvents(EventBatch batch) {}
        };
        int a = t.frame("a", "x.java", 1, 0);
        t.stack(a);
        t.announceNew(sink);
        t.announceNew(sink);
        int b = t.frame("b", "x.java", 2, 0);
        int site = t.stack(a, b);
        t.announceNew(sink);
        assertEquals(List.of("f0", "n0", "f1", "n1"), heard);
        assertEquals(t.frames(site), copy.frames(site));
    }

    @Test
    void refusesForgedIdsWithoutGrowing() {
        SiteTable t = new SiteTable();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> t.add(new StackFrame(2_000_000_000, "f", "g", 1, 0)));
        assertTrue(e.getMessage().contains("announced before frame 0"), e.getMessage());
        t.add(new StackFrame(0, "f", "g", 1, 0));
        t.add(new StackFrame(0, "f", "g", 1, 0)); // the same again: a reconnecting sender
        assertThrows(IllegalArgumentException.class, () -> t.add(new StackFrame(0, "h", "g", 1, 0)));
        assertThrows(IllegalArgumentException.class, () -> t.add(new StackNode(0, 5, -1)), "names a frame not announced");
        assertThrows(IllegalArgumentException.class, () -> new StackNode(3, 0, 3), "a node cannot be its own parent");
        assertThrows(IllegalArgumentException.class, () -> t.add(new StackNode(1, 0, -1)), "skips node 0");
        t.add(new StackNode(0, 0, -1));
        assertEquals(1, t.nodeCount());
        assertNull(t.node(1));
    }

    @Test
    void batchesCarrySitesOnlyWhenSomeEventHasOne() {
        EventBatch b = new EventBatch(16);
        b.add(new Event(1, EventKind.ALLOC, 0, 0, 0, 0, 8, 8, 8, 0, -1, -1));
        assertTrue(!b.hasSites());
        b.add(new Event(2, EventKind.ALLOC, 0, 0, 0, 8, 8, 8, 16, 0, -1, -1, 3, 7));
        for (int i = 0; i < 40; i++) { // grows past the first capacity
            b.add(new Event(3 + i, EventKind.ALLOC, 0, 0, 0, 16, 8, 8, 24, 0, -1, -1));
        }
        assertEquals(-1, b.site(0));
        assertEquals(3, b.site(1));
        assertEquals(7, b.category(1));
        assertEquals(-1, b.site(41));
        EventBatch c = new EventBatch();
        c.addRange(b, 1, 3);
        assertEquals(new Event(2, EventKind.ALLOC, 0, 0, 0, 8, 8, 8, 16, 0, -1, -1, 3, 7), c.get(0));
        assertEquals(-1, c.get(1).site());
        c.clear();
        c.add(new Event(9, EventKind.FREE, 0, 0, 0, 0, 8, 0, 0, 0, -1, -1));
        assertEquals(-1, c.site(0), "a cleared batch forgets its sites");
    }
}
