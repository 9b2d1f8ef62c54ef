package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.torch.SyntheticSnapshot;

/**
 * A job member a reader refused is said in words first, what the file is against what a member should be,
 * and the reader's exact detail after (the Ranks view said only "at byte 0: unknown opcode 0x6e").
 */
class MemberRefusalTest {

    private static String words(Path f) {
        String line = FileKind.memberRefusal(f, f + " at byte 0: the reader's detail");
        assertEquals(f + ": ", line.substring(0, f.toString().length() + 2), line);
        int cut = line.indexOf(FileKind.READER_STOPPED);
        assertEquals("at byte 0: the reader's detail", line.substring(cut + FileKind.READER_STOPPED.length()), "the detail kept whole, the file not repeated");
        return line.substring(f.toString().length() + 2, cut);
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
}
