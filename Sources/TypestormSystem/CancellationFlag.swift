import Synchronization

/// Set once, from any thread, when nobody wants a piece of work any more: a search whose client
/// went away, a queued job, a phase the worker was told to stop. Remembers when it was set.
///
/// The one cancellation flag of Typestorm: the engine's scans, the server's searches, the
/// in-process backend's jobs and the workloads' stop requests all read this type, so "was it
/// cancelled, and when was that noticed" means the same everywhere. Reading it is one atomic
/// load, cheap enough for a scan loop to poll every few KiB.
package final class CancellationFlag: Sendable {
    /// When the flag was set on the monotonic clock (at least 1), 0 while it is not.
    private let setAt = Atomic<UInt64>(0)

    package init() {}

    /// Whether `cancel` has been called.
    package var isCancelled: Bool { setAt.load(ordering: .acquiring) != 0 }

    /// When the cancellation was noticed (the first `cancel`'s time), or nil.
    package var noticedNanos: UInt64? {
        let value = setAt.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    /// Sets the flag, noting `nanos` as the time it was noticed. The first call wins: it returns
    /// true, later calls change nothing and return false (so a caller can act exactly once).
    @discardableResult
    package func cancel(at nanos: UInt64 = MonotonicClock.now()) -> Bool {
        setAt.compareExchange(expected: 0, desired: max(1, nanos), ordering: .acquiringAndReleasing).exchanged
    }
}
