#if !TYPESTORM_NO_JEMALLOC
import CJemalloc
#endif

/// jemalloc's own count of allocated bytes.
enum Jemalloc {
    /// `stats.allocated` after refreshing the statistics epoch; nil if jemalloc is not the
    /// allocator (then the benchmark reports the engine's own byte count only).
    static func allocatedBytes() -> Int? {
        #if TYPESTORM_NO_JEMALLOC
        return nil
        #else
        var allocated = 0
        return CJemalloc_read_size("stats.allocated", &allocated) == 0 ? allocated : nil
        #endif
    }
}
