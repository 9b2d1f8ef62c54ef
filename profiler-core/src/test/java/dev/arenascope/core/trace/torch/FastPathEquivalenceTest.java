package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

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
        return sink.session + "\n" + sink.memories + "\n" + new java.util.TreeMap<>(sink.strings) + "\n" + sink.threads + "\n" + sink.events;
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
            byte[] b = ("\u0080\u0004]\u0094(" + names + frame + after + "e.").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            String slow = outcome(b, false);
            assertTrue(slow.startsWith("refused: t.pickle"), slow);
            assertEquals(slow, outcome(b, true), after);
        }
        byte[] b = ("\u0080\u0004]\u0094(" + names + frame + "(h\u0001h\u0002ue.").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        assertTrue(outcome(b, true).endsWith("a dict is changed after it was read as a stack frame"), outcome(b, true));
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
