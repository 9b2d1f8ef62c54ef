package dev.arenascope.core.pool.torch;

/**
 * What the caching allocator asks of the device: {@code cudaMalloc} / {@code cudaFree} for ordinary
 * segments; for expandable segments an address range reserved once ({@code cuMemAddressReserve}) and
 * pages mapped into it and unmapped ({@code cuMemCreate} + {@code cuMemMap}, {@code cuMemUnmap}).
 * {@link VirtualGpu} answers from a capacity; a check answers as a recorded file says.
 */
public interface SegmentDevice {
    /** A new segment of {@code bytes}: its address, or -1 when the device has no room. */
    long malloc(long bytes);

    /** Gives a segment back. */
    void free(long address, long bytes);

    /** Reserves {@code bytes} of address space (no memory) for an expandable segment: its base. */
    long reserve(long bytes);

    /** Backs {@code bytes} at {@code address} (inside a reserved range) with memory: false when the device has no room. */
    boolean map(long address, long bytes);

    /** Gives back the memory behind {@code bytes} at {@code address}. */
    void unmap(long address, long bytes);

    /** Bytes free on the device, for an out-of-memory entry's {@code device_free}. */
    long freeBytes();
}
