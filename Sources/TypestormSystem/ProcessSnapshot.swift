/// What one process used, for run records and load reports (docs/metrics.md, "Requests and load"): CPU seconds, peak
/// RSS, and jemalloc's heap figures when jemalloc serves `malloc`.
package struct ProcessSnapshot: Sendable, Equatable, Codable {
    package var allocator: AllocatorKind
    package var usage: ResourceUsage
    /// nil on the system allocator (see `AllocatorStats.current()`).
    package var heap: AllocatorStats?

    /// This process, now.
    package static func current() throws(SystemError) -> ProcessSnapshot {
        ProcessSnapshot(allocator: Allocator.current, usage: try ResourceUsage.current(), heap: AllocatorStats.current())
    }
}
