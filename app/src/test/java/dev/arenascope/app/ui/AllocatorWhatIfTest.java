package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javafx.scene.image.Image;
import javafx.scene.image.PixelReader;
import javafx.scene.paint.Color;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.app.ui.slots.AddressMap;
import dev.arenascope.app.ui.slots.AllocatorWhatIf;
import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.app.ui.timeline.WhatIfLine;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.pool.torch.CachingAllocatorModel;
import dev.arenascope.core.pool.torch.WhatIfReplay;
import dev.arenascope.testsupport.Fixtures;

/**
 * The allocator state's what-if, on both PyTorch fixtures: the settings chosen in the window are
 * replayed by the model {@code arenascope whatif} uses, and every figure the window shows (reserved
 * peak, its make-up into live, rounding, split remainders and cached blocks, the first out-of-memory under
 * the capacity, the recorded and the file-settings peaks) is the command's JSON for the same file and
 * settings; the timeline draws the what-if's reserved line over the recorded one, and the map shows the
 * model's state at the recorded map's instant.
 */
class AllocatorWhatIfTest extends WindowTestBase {

    @ParameterizedTest(name = "{0}: {1} {2} {3} {4}, capacity {5}")
    @CsvSource(delimiter = '|', value = {
            "cs336-a2-magma27.pickle|true|||| 13GiB",
            "cs336-a2-magma27.pickle|false|128|4||",
            "cs336-a2-bcrafton.pickle|true|||| 3GiB",
            "cs336-a2-bcrafton.pickle|false|256||0.8| 3584MiB"})
    void theWindowsWhatIfIsTheCommandsOnTheSameFileAndSettings(String name, boolean expandable, String maxSplit, String roundup,
                                                                String gc, String capacity) throws Exception {
        Path f = Fixtures.torch(name);
        openUntilLoaded(f);
        fxRun(() -> {
            window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-allocator"))
                    .findFirst().orElseThrow());
            window.model().cursorProperty().set(window.model().trace().endNs() / 2);
        });
        waitForSettled(30, "the recorded map", () -> window.allocator().addressMapShown() != null);
        assertTrue(fx(() -> !window.allocator().whatIfButton().isDisabled()), "a snapshot read from a file offers the what-if");
        fxRun(() -> {
            var a = window.allocator();
            a.whatIfButton().setSelected(true);
            a.expandableBox().setSelected(expandable);
            a.maxSplitBox().setValue(maxSplit == null ? "" : maxSplit);
            a.roundupBox().setValue(roundup == null ? "" : roundup);
            a.gcThresholdBox().setValue(gc == null ? "" : gc);
            a.capacityField().setText(capacity == null ? "" : capacity.strip());
            a.capacityField().fireEvent(new javafx.event.ActionEvent());
        });
        List<String> args = new ArrayList<>(List.of("whatif", f.toString(), "--format", "json", "--floor-time", "0"));
        List<String> sets = new ArrayList<>();
        if (expandable) {
            sets.add("expandable_segments=true");
        }
        if (maxSplit != null) {
            sets.add("max_split_size_mb=" + maxSplit);
        }
        if (roundup != null) {
            sets.add("roundup_power2_divisions=" + roundup);
        }
        if (gc != null) {
            sets.add("garbage_collection_threshold=" + gc);
        }
        for (String s : sets) {
            args.addAll(List.of("--set", s));
        }
        if (capacity != null) {
            args.addAll(List.of("--capacity", capacity.strip()));
        }
        assertEquals(sets, fx(() -> window.allocator().whatIfSets()), "the chooser says what --set says");
        waitForSettled(120, "the what-if replayed", () -> {
            AllocatorWhatIf.Result r = window.allocator().whatIfProperty().get();
            return !window.allocator().whatIfBusy() && r != null && r.settings().expandableSegments() == expandable
                    && window.allocator().whatIfMapShown() != null;
        }, () -> window.allocator().whatIfLabel().getText());

        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertEquals(0, run.code(), run.err());
        JsonNode j = new ObjectMapper().readTree(run.out());
        JsonNode w = j.at("/whatifs/0");
        AllocatorWhatIf.Result r = fx(() -> window.allocator().whatIfProperty().get());
        WhatIfReplay.Outcome o = r.outcome();
        assertEquals(w.get("settings").asText(), o.settings().describe());
        assertEquals(w.get("reserved_peak").asLong(), o.reservedPeak(), "reserved peak");
        assertEquals(w.get("live_peak").asLong(), o.requestedPeak(), "live peak");
        CachingAllocatorModel.Peak p = o.peak();
        JsonNode at = w.get("at_peak");
        assertEquals(at.get("live").asLong(), p.requested());
        assertEquals(at.get("rounding").asLong(), p.rounding(), "rounding");
        assertEquals(at.get("split_remainders").asLong(), p.splitRemainders(), "split remainders");
        assertEquals(at.get("cached").asLong(), p.cached(), "cached free blocks");
        JsonNode oom = w.get("out_of_memory");
        assertEquals(oom.isNull() ? -1 : oom.get("entry").asLong(), o.oomEntry(), "first out-of-memory");
        if (!oom.isNull()) {
            assertEquals(oom.get("bytes").asLong(), o.oomBytes());
            assertEquals(oom.get("reserved").asLong(), o.oomReserved());
        }
        assertEquals(j.at("/baseline/reserved_peak").asLong(), r.baseline().reservedPeak(), "the file's settings replayed");
        assertEquals(j.at("/recorded/reserved_peak").asLong(), fx(() -> window.allocator().whatIfRecorded().reservedPeak()), "the recording");

        // what the window says is those figures
        String label = fx(() -> window.allocator().whatIfLabel().getText());
        assertTrue(label.startsWith("reserved peak " + Bytes.format(w.get("reserved_peak").asLong())), label);
        assertTrue(label.contains("(recorded " + Bytes.format(j.at("/recorded/reserved_peak").asLong())), label);
        assertTrue(label.contains("file settings replayed " + Bytes.format(j.at("/baseline/reserved_peak").asLong())), label);
        assertTrue(label.contains("rounding " + Bytes.format(at.get("rounding").asLong()) + " + split remainders "
                + Bytes.format(at.get("split_remainders").asLong()) + " + cached " + Bytes.format(at.get("cached").asLong())), label);
        assertTrue(label.contains(oom.isNull() ? "first out-of-memory: none"
                : String.format(Locale.ROOT, "first out-of-memory: entry %,d, %s", oom.get("entry").asLong(), Bytes.format(oom.get("bytes").asLong()))),
                label);

        // shown whole (a row of its own under the settings, wrapped), not cut with an ellipsis as it was even at 1920 px
        waitForSettled(10, "the what-if's figures shown whole", () -> {
            var text = (javafx.scene.text.Text) window.allocator().whatIfLabel().lookup(".text");
            return text != null && label.equals(text.getText());
        }, () -> String.valueOf(window.allocator().whatIfLabel().lookup(".text")));

        // the timeline's what-if line: the replay's reserved bytes, its peak the command's, drawn over the lane
        WhatIfLine line = fx(() -> window.timeline().whatIfLineProperty().get());
        assertNotNull(line);
        assertTrue(line.label().startsWith("what-if reserved (" + o.settings().describe()), line.label());
        if (capacity != null) { // the capacity is part of the settings replayed, so the titles name it
            assertTrue(line.label().contains(", capacity " + Bytes.format(Bytes.parse(capacity.strip())) + ")"), line.label());
        }
        assertEquals(w.get("reserved_peak").asLong(), line.peak(), "the line's peak is the reserved peak");
        waitForSettled(20, "the timeline drawn", () -> window.timeline().drawListProperty().get() != null);
        DrawList d = fx(() -> window.timeline().drawListProperty().get());
        DrawList.Lane lane = d.lanes().stream().filter(l -> l.memory().id() == line.memory()).findFirst().orElseThrow();
        Image img = fx(() -> window.timeline().canvas().snapshot(null, null));
        PixelReader px = img.getPixelReader();
        int violet = 0;
        Color want = Color.web("#6d28d9");
        for (int y = (int) lane.gaugeTop(); y < (int) (lane.gaugeTop() + lane.gaugeHeight()) && y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                Color c = px.getColor(x, y);
                if (Math.abs(c.getRed() - want.getRed()) < 0.08 && Math.abs(c.getGreen() - want.getGreen()) < 0.08
                        && Math.abs(c.getBlue() - want.getBlue()) < 0.08) {
                    violet++;
                }
            }
        }
        assertTrue(violet > 50, "the what-if's line and key are drawn in the lane: " + violet + " px");

        // the map: the model's state at the recorded map's instant, its reserved bytes the line's there
        AddressMap.Snapshot rec = fx(() -> window.allocator().addressMapShown());
        AddressMap.Snapshot wi = fx(() -> window.allocator().whatIfMapShown());
        assertEquals(rec.atNs(), wi.atNs(), "the same instant");
        long reserved = wi.blocks().stream().filter(b -> b.state() == AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum();
        assertEquals(line.at(rec.atNs()), reserved, "the map's segments are the line's reserved bytes at the instant");
        String card = "";
        double top = fx(() -> window.allocator().canvas().getHeight()) / 2;
        double width = fx(() -> window.allocator().canvas().getWidth());
        for (double x = 110; x < width - 14 && !card.startsWith("what-if: in use"); x += 4) {
            double cx = x;
            card = fx(() -> window.allocator().hoverAt(cx, top + 30));
        }
        assertTrue(card.startsWith("what-if: in use") && card.contains("requested "), card);
    }
}
