package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.testsupport.Fixtures;

/**
 * The snapshot import with the reader's fast path for dicts of atoms and without it (every opcode
 * one by one) gives the same event stream, or the same one-line refusal: on both fixtures, on
 * generated snapshots with every optional part, and on thousands of mutations of them (flipped bytes
 * land in the middle of frame and entry dicts, where the fast path has to hand over to the ordinary
 * one at the exact opcode).
 */
class FastPathEquivalenceTest {
    /** Opcodes worth planting: the ones the fast path reads, and those that end it. */
    private static final String OPCODES = "}]()uehjqrKMJN\u0094\u008a\u008c\u0088";

    /** The events, strings, memories and session of an import, or the refusal's message. */
    private static String outcome(byte[] pickle, boolean fast) {
        CollectingSink sink = new CollectingSink(false);
        try {
            Snapshot s = SnapshotReader.read(pickle, "t.pickle", fast);
            new SnapshotEmitter(s, "t.pickle", sink).run();
        } catch (TraceFormatException e) {
            return "refused: " + e.getMessage();
        } catch (IOException e) {
            return "io: " + e;
        }
        return sink.session + "\n" + sink.memories + "\n" + new TreeMap<>(sink.strings) + "\n" + sink.threads + "\n" + sink.events;
    }

    private static void same(byte[] pickle, String what) {
        assertEquals(outcome(pickle, false), outcome(pickle, true), what);
    }

    private static List<byte[]> seeds() throws IOException {
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(Files.readAllBytes(Fixtures.torch("cs336-a2-magma27.pickle")));
        seeds.add(Files.readAllBytes(Fixtures.torch("cs336-a2-bcrafton.pickle")));
        for (var spec : List.of(new SyntheticSnapshot.Spec(3, 600, 100, 70, 6, 2, true, false),
                new SyntheticSnapshot.Spec(4, 400, 80, 0, 0, 0, false, true))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            SyntheticSnapshot.write(out, spec);
            seeds.add(out.toByteArray());
        }
        for (String name : List.of("small-snapshot-p2.pickle", "small-snapshot-p4.pickle", "small-snapshot-p5.pickle",
                "stacks-all-snapshot-p4.pickle")) {
            seeds.add(PickleReaderTest.resource(name));
        }
        return seeds;
    }

    @Test
    void wholeSnapshotsImportTheSame() throws IOException {
        int i = 0;
        for (byte[] s : seeds()) {
            String o = outcome(s, true);
            assertTrue(!o.startsWith("refused"), "seed " + i + " imports: " + o.substring(0, Math.min(200, o.length())));
            same(s, "seed " + i++);
        }
    }

    @Test
    void aFrameDictChangedAfterItWasReadIsRefusedInTheSameWords() {
        // strings into the memo, a frame dict of memo strings (the fast path leaves only its stand-in on
        // the stack), then SETITEMS on it again: the ordinary path still holds the emptied dict
        String names = "\u008c\u0004name\u0094\u008c\u0001f\u0094\u008c\u0008filename\u0094\u008c\u0004a.py\u0094\u008c\u0004line\u0094";
        String frame = "}\u0094(h\u0001h\u0002h\u0003h\u0004h\u0005K\u0001u";
        for (String after : List.of("(h\u0001h\u0002u", "(h\u0001u", "h\u0001h\u0002s", "(K\u0001e", "(\u0094\u008f(h\u0006\u0090")) {
            byte[] b = ("\u0080\u0004]\u0094(" + names + frame + after + "e.").getBytes(StandardCharsets.ISO_8859_1);
            String slow = outcome(b, false);
            assertTrue(slow.startsWith("refused: t.pickle"), slow);
            assertEquals(slow, outcome(b, true), after);
        }
        byte[] b = ("\u0080\u0004]\u0094(" + names + frame + "(h\u0001h\u0002ue.").getBytes(StandardCharsets.ISO_8859_1);
        assertTrue(outcome(b, true).endsWith("a dict is changed after it was read as a stack frame"), outcome(b, true));
    }

    /**
     * A snapshot whose trace holds {@code entries} entries, each with the same stack of the same frame
     * twice, written anew (f at a.py:100000); {@code between.apply(i, m)} is written raw before entry i,
     * above a mark of its own, {@code m} being the memo slot the next MEMOIZE takes there; {@code tail}
     * is written raw after the last entry, inside the trace list.
     */
    private static byte[] traceOfFrames(int entries, BiFunction<Integer, Integer, byte[]> between, byte[] tail)
            throws IOException {
        return traceOfFrames(entries, between, tail, -1);
    }

    /** As above; entry {@code grown}'s frames list gets a third frame by APPEND after its APPENDS. */
    private static byte[] traceOfFrames(int entries, BiFunction<Integer, Integer, byte[]> between, byte[] tail,
                                        int grown) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PickleWriter w = new PickleWriter(out);
        w.dict().mark().str("segments").list().str("device_traces").list().list().mark();
        for (int i = 0; i < entries; i++) {
            w.mark(); // the raw bytes between entries sit above a mark of their own, dropped by POP_MARK
            out.write(between.apply(i, w.nextMemo()));
            out.write('1');
            w.dict().mark().str("action").str("alloc").str("addr").integer(4096L * (i + 1)).str("size").integer(512).str("frames").list().mark();
            for (int k = 0; k < 2; k++) {
                // 23 bytes from MARK to SETITEMS once every string is in the memo: the reader's memory of
                // dict bodies (PickleBodies) finds such a body again by its own bytes only, whatever follows
                // it, and the frames list, 54 bytes, is found again by its own bytes (PickleFrameLists)
                w.dict().mark().str("name").str("f").str("filename").str("a.py").str("line").integer(100_000).str("x").integer(70_000)
                        .setItems();
            }
            w.appends();
            if (i == grown) {
                w.dict().mark().str("name").str("h").str("filename").str("a.py").str("line").integer(7).setItems().append();
            }
            w.setItems();
        }
        out.write(tail);
        w.appends().append().setItems().stop();
        return out.toByteArray();
    }

    private static byte[] traceOfFrames(int entries, IntFunction<byte[]> between) throws IOException {
        return traceOfFrames(entries, (i, m) -> between.apply(i), new byte[0]);
    }

    @Test
    void aFramesListGrownAfterItsAppendsGetsItsOwnStack() throws IOException {
        // the third entry's list, the same bytes as the second's (taken from the memory of lists), gets one
        // frame more by APPEND before it is placed: its stack is (f, f, h), not the (f, f) noted for the list
        byte[] b = traceOfFrames(4, (i, m) -> new byte[0], new byte[0], 2);
        same(b, "a grown frames list");
        Snapshot s = SnapshotReader.read(b, "t.pickle", true);
        List<Integer> depths = new ArrayList<>();
        for (int row = 0; row < s.entries().size(); row++) {
            depths.add(s.stacks().frames(s.entries().stack(row)).length);
        }
        assertEquals(List.of(2, 2, 3, 2), depths);
    }

    @Test
    void aFramesListReadWholeThenGrownGetsItsOwnStack() throws IOException {
        // the second entry's list is the first read whole by the fast path (its frames' ids told to the
        // placement at its APPENDS); an APPEND after that adds a third frame before it is placed: its stack
        // is (f, f, h), not the two frames whose ids were told
        byte[] b = traceOfFrames(4, (i, m) -> new byte[0], new byte[0], 1);
        same(b, "a frames list grown after its ids were told");
        Snapshot s = SnapshotReader.read(b, "t.pickle", true);
        List<Integer> depths = new ArrayList<>();
        for (int row = 0; row < s.entries().size(); row++) {
            depths.add(s.stacks().frames(s.entries().stack(row)).length);
        }
        assertEquals(List.of(2, 3, 2, 2), depths);
    }

    @Test
    void aFramesListWhoseMemoSlotsAreTakenIsReadTheOrdinaryWay() throws IOException {
        // before the third entry a string goes by LONG_BINPUT to the slot its frames list's MEMOIZE will
        // take (the entry dict takes the one before): MEMOIZE then overwrites it and, the memo's count not
        // moving, both frame dicts go to that same slot too, so the slot after it stays empty, and the
        // LONG_BINGET of it at the end is refused; a list taken from the memory of lists must not fill it
        int[] slot = new int[1];
        byte[] b = traceOfFrames(4, (i, m) -> {
            if (i != 2) {
                return new byte[0];
            }
            slot[0] = m + 2;
            return new byte[] {(byte) 0x8c, 1, 'z', 'r', (byte) slot[0], (byte) (slot[0] >> 8), 0, 0};
        }, new byte[0]);
        byte[] c = traceOfFrames(4, (i, m) -> i != 2 ? new byte[0] : new byte[] {(byte) 0x8c, 1, 'z', 'r', (byte) slot[0], (byte) (slot[0] >> 8), 0, 0},
                new byte[] {'j', (byte) (slot[0] + 1), (byte) ((slot[0] + 1) >> 8), 0, 0});
        same(b, "a frames list over a taken slot");
        String slow = outcome(c, false);
        assertTrue(slow.endsWith("memo index " + (slot[0] + 1) + " was never stored"), slow);
        same(c, "the slot after it stays empty");
    }

    @Test
    void aFrameOfTheSameBytesAfterItsStringWasOverwrittenReadsTheNewString() throws IOException {
        // before the third entry, BINPUT stores "g" over the memo slot of "f": the third frame's bytes are
        // those of the second, which the fast path read and kept
        byte[] b = traceOfFrames(4, i -> i == 2 ? new byte[] {(byte) 0x8c, 1, 'g', 'q', 0} : new byte[0]);
        int slot = -1;
        for (int i = 0; i + 2 < b.length; i++) { // the "f" string's MEMOIZE gives its slot: find BINGET of it instead
            if (b[i] == (byte) 0x8c && b[i + 1] == 1 && b[i + 2] == 'f') {
                slot = slotOf(b, i + 3);
                break;
            }
        }
        for (int i = 0; i + 4 < b.length; i++) { // aim the BINPUT at that slot
            if (b[i] == (byte) 0x8c && b[i + 1] == 1 && b[i + 2] == 'g' && b[i + 3] == 'q') {
                b[i + 4] = (byte) slot;
            }
        }
        same(b, "overwritten string");
        Snapshot s = SnapshotReader.read(b, "t.pickle", true);
        assertEquals(2, s.stacks().frameCount(), "frames f and g");
        assertEquals(3, s.stacks().stackCount(), "no stack, (f, f) and (g, g)");
        List<String> names = new ArrayList<>();
        for (int row = 0; row < s.entries().size(); row++) {
            int[] frames = s.stacks().frames(s.entries().stack(row));
            names.add(s.stacks().name(frames[0]) + s.stacks().name(frames[1]));
        }
        assertEquals(List.of("ff", "ff", "gg", "gg"), names);
    }

    @Test
    void aFrameDictStoredOverItsOwnStringIsReadTheOrdinaryWay() throws IOException {
        // the third entry's frame dict goes to the memo slot of its own "f" (BINPUT instead of MEMOIZE):
        // its BINGET of that slot then fetches the dict itself, which no frame may have as its name
        byte[] b = traceOfFrames(3, i -> new byte[0]);
        int slot = -1, frame = 0;
        for (int i = 0; i + 2 < b.length; i++) {
            if (b[i] == (byte) 0x8c && b[i + 1] == 1 && b[i + 2] == 'f') {
                slot = slotOf(b, i + 3);
            }
        }
        for (int i = 3; i + 3 < b.length; i++) { // the last "EMPTY_LIST MEMOIZE MARK EMPTY_DICT MEMOIZE MARK": the third frame dict
            if (b[i - 3] == ']' && b[i - 2] == (byte) 0x94 && b[i - 1] == '(' && b[i] == '}' && b[i + 1] == (byte) 0x94 && b[i + 2] == '(') {
                frame = i;
            }
        }
        byte[] c = new byte[b.length + 1];
        System.arraycopy(b, 0, c, 0, frame + 1);
        c[frame + 1] = 'q';
        c[frame + 2] = (byte) slot;
        System.arraycopy(b, frame + 2, c, frame + 3, b.length - frame - 2);
        String slow = outcome(c, false);
        assertTrue(slow.startsWith("refused: t.pickle") && slow.endsWith("a stack frame's 'name' is a dict, not a str"), slow);
        same(c, "a frame dict stored over its own string");
    }

    /** The memo slot a MEMOIZE at {@code b[at]} takes: MEMOIZE opcodes before it (this writer memoizes every value once). */
    private static int slotOf(byte[] b, int at) {
        assertEquals((byte) 0x94, b[at]);
        int n = 0;
        for (int i = 2; i < at; i++) {
            n += b[i] == (byte) 0x94 ? 1 : 0; // the small test pickles hold no 0x94 byte in an argument
        }
        return n;
    }

    @Test
    void mutatedSnapshotsImportOrFailTheSame() throws IOException {
        mutations(1616, 800);
    }

    /** {@code rounds} mutations of the smaller seeds, from a random generator seeded {@code seed}. */
    private static void mutations(long rndSeed, int rounds) throws IOException {
        List<byte[]> seeds = seeds();
        SplittableRandom rnd = new SplittableRandom(rndSeed);
        int refused = 0;
        for (int round = 0; round < rounds; round++) {
            byte[] seed = seeds.get(2 + rnd.nextInt(seeds.size() - 2)); // the smaller seeds: many rounds
            byte[] b = seed.clone();
            int flips = 1 + rnd.nextInt(3);
            for (int k = 0; k < flips; k++) {
                int at = rnd.nextInt(b.length);
                b[at] = (byte) switch (rnd.nextInt(4)) {
                    case 0 -> rnd.nextInt(256);
                    case 1 -> OPCODES.charAt(rnd.nextInt(OPCODES.length()));
                    case 2 -> b[at] + 1;
                    default -> 0;
                };
            }
            String slow = outcome(b, false);
            assertEquals(slow, outcome(b, true), "seed " + rndSeed + " round " + round);
            if (slow.startsWith("refused")) {
                refused++;
            }
        }
        assertTrue(refused > rounds / 16, "some mutations are refused: " + refused);
    }
}
