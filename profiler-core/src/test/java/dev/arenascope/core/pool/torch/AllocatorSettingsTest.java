package dev.arenascope.core.pool.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AllocatorSettingsTest {

    @Test
    void aConfReadsAsPyTorchWritesItAndWithEqualsSigns() {
        AllocatorSettings colon = AllocatorSettings.DEFAULTS.withConf("expandable_segments:True,max_split_size_mb:128");
        AllocatorSettings equals = AllocatorSettings.DEFAULTS.with("expandable_segments", "true").with("max_split_size_mb", "128");
        assertEquals(equals, colon);
        assertEquals(equals, AllocatorSettings.DEFAULTS.withConf("expandable_segments=true, max_split_size_mb=128,"));
        assertEquals("expandable_segments:True,max_split_size_mb:128", colon.describe());
    }

    @Test
    void whatDescribeWritesReadsBackAsTheSameSettings() {
        AllocatorSettings s = AllocatorSettings.DEFAULTS.withConf(
                "roundup_power2_divisions:[256:1,512:2,>:8],garbage_collection_threshold:0.8,max_non_split_rounding_mb:64,capacity=3GiB");
        assertEquals(s, AllocatorSettings.DEFAULTS.with("capacity", "3GiB").withConf(s.describe()), "describe() leaves the capacity out");
        assertEquals(3L << 30, s.capacity());
    }

    @Test
    void aBadPairIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AllocatorSettings.DEFAULTS.withConf("expandable_segments:True,max_split_size_mb"));
        assertTrue(e.getMessage().contains("'max_split_size_mb'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> AllocatorSettings.DEFAULTS.withConf(""));
        assertThrows(IllegalArgumentException.class, () -> AllocatorSettings.DEFAULTS.withConf("roundup_power2_divisions:[256:1"));
    }
}
