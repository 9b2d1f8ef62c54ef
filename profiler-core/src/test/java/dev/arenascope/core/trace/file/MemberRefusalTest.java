package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.trace.torch.SyntheticSnapshot;

/**
 * A job member a reader refused is said in words first, what the file is against what a member should be,
 * and the reader's exact detail after (the Ranks view said only "at byte 0: unknown opcode 0x6e").
 */
class MemberRefusalTest {

    private static String words(Path f) {
        MemberRefusal why = FileKind.memberRefusal(f, f + " at byte 0: the reader's detail");
        assertEquals(f + ": ", why.reason().substring(0, f.toString().length() + 2), why.reason());
        assertEquals("at byte 0: the reader's detail", why.detail(), "the detail kept whole and apart, the file not repeated");
        assertEquals(why.reason() + FileKind.READER_STOPPED + why.detail(), why.line(), "one line: the reason, then the reader's words");
        return why.reason().substring(f.toString().length() + 2);
    }

    @Test
    void whatTheFileIsComesBeforeTheReadersDetail(@TempDir Path dir) throws Exception {
        assertEquals("not a PyTorch snapshot or ArenaScope trace: it is text", words(Files.writeString(dir.resolve("r0.pickle"), "not a pickle\n")));
        assertEquals("not a PyTorch snapshot or ArenaScope trace: binary data of no format ArenaScope reads",
                words(Files.write(dir.resolve("r1.pickle"), new byte[] {1, 2, 3, 0, 5})));
        assertEquals("an empty file, not a PyTorch snapshot or ArenaScope trace", words(Files.write(dir.resolve("r2.pickle"), new byte[0])));
        assertEquals("not a PyTorch snapshot or ArenaScope trace: it is a memory plan (.plan.json)",
                words(Files.writeString(dir.resolve("r3.jsonl"), "{\"tensorAllocs\": {}, \"memoryBanks\": {}}\n")));
        // a real snapshot cut short is a damaged one
        Path whole = dir.resolve("whole.pickle");
        SyntheticSnapshot.write(whole, SyntheticSnapshot.Spec.plain(1, 200));
        byte[] b = Files.readAllBytes(whole);
        assertEquals("a damaged PyTorch memory snapshot (.pickle)", words(Files.write(dir.resolve("r4.pickle"), Arrays.copyOf(b, b.length / 2))));
        // a snapshot under a trace's name is named for what it is
        assertEquals("a PyTorch memory snapshot (.pickle) named as another format", words(Files.write(dir.resolve("r5.astrace"), b)));
    }

    /**
     * A job's load keeps the reason and the reader's words apart, as the Ranks view shows them (the reason in its cell,
     * the words on hover), and joins them only for the lines that say everything: they came glued in one string that
     * the view cut again at {@link FileKind#READER_STOPPED}.
     */
    @Test
    void aJobsLoadKeepsTheReasonAndTheReadersWordsApart(@TempDir Path dir) throws Exception {
        Path text = Files.writeString(dir.resolve("rank0.pickle"), "not a pickle\n");
        Path missing = dir.resolve("rank1.pickle");
        List<JobLoad.Loaded<Long>> loaded = JobLoad.load(List.of(new JobMember("rank0", 0, text, false),
                new JobMember("rank1", 1, missing, false)), 1, (m, t) -> t.store().eventCount());
        JobLoad.Loaded<Long> refused = loaded.get(0);
        assertEquals(text + ": not a PyTorch snapshot or ArenaScope trace: it is text", refused.failure());
        assertTrue(refused.failureDetail() != null && refused.failureDetail().startsWith("at byte 0: "), refused.failureDetail());
        assertFalse(refused.failureDetail().contains(text.toString()), "the file not repeated: " + refused.failureDetail());
        assertEquals(refused.failure() + FileKind.READER_STOPPED + refused.failureDetail(), refused.failureLine());
        JobLoad.Loaded<Long> absent = loaded.get(1);
        assertEquals(missing + ": no such file", absent.failure());
        assertNull(absent.failureDetail(), "no reader's words where no reader ran");
        assertEquals(absent.failure(), absent.failureLine());
        RankSummary row = RankSummary.failed("rank0", 0, text.toString(), false, refused.failure(), refused.failureDetail());
        assertEquals(refused.failure(), row.failure());
        assertEquals(refused.failureDetail(), row.failureDetail());
        assertEquals(refused.failureLine(), row.failureLine());
    }
}
