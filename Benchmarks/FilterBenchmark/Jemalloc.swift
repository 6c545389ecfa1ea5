#if !TYPESTORM_NO_JEMALLOC
import CJemalloc
#endif

/// jemalloc's own count of allocated bytes (Platform does not wrap it yet on this branch).
enum Jemalloc {
    /// `stats.allocated` after refreshing the statistics epoch; nil if jemalloc is not the
    /// allocator (then the benchmark reports the engine's own byte count only).
    static func allocatedBytes() -> Int? {
        #if TYPESTORM_NO_JEMALLOC
        return nil
        #else
        var epoch: UInt64 = 1
        var size = MemoryLayout<UInt64>.size
        guard mallctl("epoch", nil, nil, &epoch, size) == 0 else { return nil }
        var allocated: Int = 0
        size = MemoryLayout<Int>.size
        guard mallctl("stats.allocated", &allocated, &size, nil, 0) == 0 else { return nil }
        return allocated
        #endif
    }
}
