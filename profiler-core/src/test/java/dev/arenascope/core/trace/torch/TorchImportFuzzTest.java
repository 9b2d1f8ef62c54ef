package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.testsupport.Fixtures;

/**
 * Bounded fuzzing of the pickle reader and the snapshot importer: flipped bytes, truncations, spliced
 * opcodes and forged lengths over real and hand-made pickles. Every input must either import or fail
 * with a one-line {@link PickleFormatException} / {@link SnapshotFormatException} naming the source;
 * nothing else may escape, and nothing may hang. A fixed set of {@value #ROUNDS} inputs (the seed's), the same
 * on a fast machine and a loaded one.
 */
class TorchImportFuzzTest {
    static final int ROUNDS = 400;
    /** What no one input may take: a hang guard, not a measure. */
    private static final Duration HANG = Duration.ofSeconds(20);
    private static final int[] INTERESTING = {0x00, 0x01, 0x7f, 0x80, 0xff, '(', ')', '.', ']', '}', 'a', 'e', 'u', 's', 't',
            'h', 'j', 'q', 'r', 0x94, 0x95, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 'X', 'J', 'K', 'M', 'N', 'G', '0', '1', '2'};

    @Test
    void mutatedPicklesFailCleanlyOrImport() throws Exception {
        List<byte[]> seeds = new ArrayList<>();
        for (String name : List.of("small-snapshot-p2.pickle", "small-snapshot-p4.pickle", "small-snapshot-p5.pickle",
                "core-p0.pickle", "core-p2.pickle", "full-p5.pickle")) {
            seeds.add(PickleReaderTest.resource(name));
        }
        byte[] big = Files.readAllBytes(Fixtures.torch("cs336-a2-magma27.pickle"));
        SplittableRandom rnd = new SplittableRandom(20261129);
        int[] counts = new int[3];
        for (int round = 0; round < ROUNDS; round++) {
            byte[] input;
            if (big != null && round % 50 == 49) {
                input = mutate(big, rnd, 1 + rnd.nextInt(4)); // a few flips in the real file
            } else {
                input = mutate(seeds.get(rnd.nextInt(seeds.size())), rnd, 1 + rnd.nextInt(6));
            }
            String name = "fuzz-" + round + ".pickle";
            counts[assertTimeoutPreemptively(HANG, () -> check(input, name), name)]++;
        }
        assertEquals(ROUNDS, counts[0] + counts[1] + counts[2]);
        assertTrue(counts[1] > 0, "some mutations must be refused");
    }

    /** Runs the importer; 0 = imported, 1 = refused with a proper error, 2 = parsed but not a snapshot. */
    private static int check(byte[] input, String source) {
        try {
            TorchSnapshotToTrace.convert(input, source, new CollectingSink());
            return 0;
        } catch (PickleFormatException e) {
            assertOneLine(e, source);
            assertTrue(e.getMessage().startsWith(source + " at byte "), e.getMessage());
            assertTrue(e.offset() >= 0 && e.offset() <= input.length, e.getMessage());
            return 1;
        } catch (SnapshotFormatException e) {
            assertOneLine(e, source);
            return 2;
        } catch (IOException | RuntimeException | Error e) {
            fail("input " + source + " (" + input.length + " bytes) escaped with " + e, e);
            return -1;
        }
    }

    private static void assertOneLine(Exception e, String source) {
        assertTrue(e.getMessage().startsWith(source + ": ") || e.getMessage().startsWith(source + " at byte "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

    static byte[] mutate(byte[] seed, SplittableRandom rnd, int edits) {
        byte[] b = seed.clone();
        for (int k = 0; k < edits; k++) {
            switch (rnd.nextInt(5)) {
                case 0 -> b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
                case 1 -> b[rnd.nextInt(b.length)] = (byte) INTERESTING[rnd.nextInt(INTERESTING.length)];
                case 2 -> b = Arrays.copyOf(b, rnd.nextInt(b.length + 1));
                case 3 -> { // forge a length: four 0xff or 0x7f bytes somewhere
                    int at = rnd.nextInt(Math.max(1, b.length - 4));
                    for (int i = 0; i < 4 && at + i < b.length; i++) {
                        b[at + i] = (byte) (rnd.nextBoolean() ? 0xff : 0x7f);
                    }
                }
                default -> { // splice a copy of a random range elsewhere
                    if (b.length > 2) {
                        int from = rnd.nextInt(b.length - 1);
                        int len = 1 + rnd.nextInt(Math.min(64, b.length - from));
                        int to = rnd.nextInt(b.length);
                        byte[] n = new byte[b.length + len];
                        System.arraycopy(b, 0, n, 0, to);
                        System.arraycopy(b, from, n, to, len);
                        System.arraycopy(b, to, n, to + len, b.length - to);
                        b = n;
                    }
                }
            }
            if (b.length == 0) {
                break;
            }
        }
        return b;
    }
}
