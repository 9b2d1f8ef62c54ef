package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * The reader's frame and stack table: each distinct frame and stack once, with dense ids in the order
 * met, read back exactly, across the frame index's growth and the stack pool's page ends.
 */
class StackTableTest {
    private static StackTable.FrameRef frame(StackTable t, String name, String file, long line) throws PickleFormatException {
        return t.frame(name, file, PickleReader.LONG, line, "test", 0);
    }

    @Test
    void everyDistinctFrameGetsTheNextIdAndTheSameIdAgain() throws PickleFormatException {
        StackTable t = new StackTable();
        int n = 300_000; // the frame index grows many times
        for (int i = 0; i < n; i++) {
            assertEquals(i, frame(t, "fn_" + i % 61, "m_" + i % 97 + ".py", i / 7).id());
        }
        assertEquals(n, t.frameCount());
        SplittableRandom r = new SplittableRandom(7);
        for (int k = 0; k < 100_000; k++) {
            int i = r.nextInt(n);
            StackTable.FrameRef f = frame(t, "fn_" + i % 61, "m_" + i % 97 + ".py", i / 7);
            assertEquals(i, f.id());
            assertEquals("fn_" + i % 61, t.name(i));
            assertEquals("m_" + i % 97 + ".py", t.file(i));
            assertEquals(i / 7, t.line(i));
        }
        assertEquals(n, t.frameCount());
    }

    @Test
    void theRuntimesFramesAreToldByTheirNamesWhoeverSharesThem() throws PickleFormatException {
        StackTable t = new StackTable();
        int py = frame(t, "forward", "model.py", 10).id();
        int capture = frame(t, "torch::unwind::unwind()", "??", 0).id();
        int aten = frame(t, "at::native::empty_cuda(c10::ArrayRef<long>)", "??", 0).id();
        int interp = frame(t, "_PyEval_EvalFrameDefault", "??", 0).id();
        int atInPy = frame(t, "at::native::fake", "model.py", 11).id(); // a C++ name in a Python file: still the capture's
        int pyAgain = frame(t, "forward", "model.py", 12).id(); // the same texts as the first frame: the same answers
        assertEquals(List.of(false, true, true, false, true, false),
                List.of(t.internal(py), t.internal(capture), t.internal(aten), t.internal(interp), t.internal(atInPy), t.internal(pyAgain)));
        assertEquals(List.of(false, true, true, true, true, false),
                List.of(t.runtime(py), t.runtime(capture), t.runtime(aten), t.runtime(interp), t.runtime(atInPy), t.runtime(pyAgain)));
        assertEquals(t.nameText(py), t.nameText(pyAgain));
        assertEquals("forward", t.textOf(t.nameText(pyAgain)));
        assertEquals("??", t.textOf(t.fileText(interp)));
        assertEquals(7, t.textCount(), "forward, model.py, three C++ names, ??, at::native::fake");
    }

    @Test
    void aFramesNameFromAMemoSlotOverwrittenSinceIsTheNewString() throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        PickleWriter w = new PickleWriter(out);
        w.dict().mark().str("segments").list().str("x").list().mark();
        w.dict().mark().str("name");
        int alpha = w.nextMemo();
        w.str("alpha").str("filename").str("a.py").str("line").integer(1).setItems();
        w.dict().mark().str("name").get(alpha).str("filename").str("a.py").str("line").integer(1).setItems(); // the same frame
        w.freshStr("beta").put(alpha); // slot alpha now holds "beta"
        w.dict().mark().str("name").get(alpha).str("filename").str("a.py").str("line").integer(1).setItems();
        w.appends().setItems().stop();
        for (boolean fast : new boolean[] {true, false}) {
            StackTable t = SnapshotReader.read(out.toByteArray(), "t.pickle", fast).stacks();
            assertEquals(2, t.frameCount(), "fast path " + fast);
            assertEquals(List.of("alpha", "beta"), List.of(t.name(0), t.name(1)), "fast path " + fast);
        }
    }

    @Test
    void aSlotsTextIsItsOwnUntilTheMemosEpochChanges() throws PickleFormatException {
        StackTable t = new StackTable();
        assertEquals(0, t.frame("f", "a.py", PickleReader.LONG, 1, 5, 6, 0, "test", 0).id());
        // the same slots in the same epoch: their strings are the ones seen (what is passed is not looked at again)
        assertEquals(0, t.frame("f", "a.py", PickleReader.LONG, 1, 5, 6, 0, "test", 0).id());
        // slot 5 overwritten (the epoch moved on): its new string is read
        assertEquals(1, t.frame("g", "a.py", PickleReader.LONG, 1, 5, 6, 1, "test", 0).id());
        assertEquals("g", t.name(1));
        assertEquals(0, t.frame("f", "a.py", PickleReader.LONG, 1, 7, 6, 1, "test", 0).id());
        assertEquals(2, t.frameCount());
    }

    @Test
    void linesOutsideTheIntRangeAreTheirOwnFrames() throws PickleFormatException {
        StackTable t = new StackTable();
        int small = frame(t, "f", "a.py", 5).id();
        int wide = frame(t, "f", "a.py", (1L << 40) + 5).id(); // the same low 32 bits as line 5
        int negative = frame(t, "f", "a.py", Long.MIN_VALUE + 5).id();
        int none = t.frame("f", "a.py", null, 0, "test", 0).id();
        assertEquals(List.of(0, 1, 2, 3), List.of(small, wide, negative, none));
        assertEquals(wide, frame(t, "f", "a.py", (1L << 40) + 5).id());
        assertEquals(negative, frame(t, "f", "a.py", Long.MIN_VALUE + 5).id());
        assertEquals(small, frame(t, "f", "a.py", 5).id());
        assertEquals((1L << 40) + 5, t.line(wide));
        assertEquals(-1, t.line(none));
        assertEquals(4, t.frameCount());
    }

    @Test
    void stacksAcrossThePoolsPageEndsReadBackAndAreFoundAgain() throws PickleFormatException {
        StackTable t = new StackTable();
        int frames = 5_000;
        for (int i = 0; i < frames; i++) {
            frame(t, "fn", "f.py", i);
        }
        SplittableRandom r = new SplittableRandom(26);
        List<int[]> stacks = new ArrayList<>();
        long total = 0;
        while (total < 3L * StackTable.POOL_PAGE + 1234) { // several pages, runs crossing their ends
            int[] s = new int[1 + r.nextInt(12)];
            for (int i = 0; i < s.length; i++) {
                s[i] = r.nextInt(frames);
            }
            stacks.add(s);
            total += s.length;
        }
        int[] deep = new int[StackTable.POOL_PAGE + 17]; // longer than a page
        for (int i = 0; i < deep.length; i++) {
            deep[i] = i % frames;
        }
        stacks.add(deep);
        List<Integer> ids = new ArrayList<>();
        for (int[] s : stacks) {
            ids.add(t.stack(s).id());
        }
        for (int k = 0; k < stacks.size(); k++) {
            int id = ids.get(k);
            int[] s = stacks.get(k);
            assertArrayEquals(s, t.frames(id));
            assertEquals(s.length, t.depth(id));
            assertEquals(s[s.length - 1], t.frameAt(id, s.length - 1));
            assertEquals(id, t.stack(s.clone()).id()); // the same frames: the same stack
        }
        int[] first = stacks.get(0);
        int[] longer = java.util.Arrays.copyOf(first, first.length + 1); // a stack and its extension differ
        longer[first.length] = first[0];
        assertNotEquals((int) ids.get(0), t.stack(longer).id());
        assertEquals(0, t.stack(new int[0]).id());
    }
}
