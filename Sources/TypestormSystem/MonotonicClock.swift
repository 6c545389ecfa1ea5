#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds on the monotonic clock, the one clock for latencies, timeouts and intervals in
/// every process.
///
/// `CLOCK_MONOTONIC` is served from the vDSO (tens of nanoseconds), never jumps with NTP steps,
/// and is shared by all processes on a machine, so a server and a client in different processes
/// can subtract each other's timestamps.
package enum MonotonicClock {
    /// The current monotonic time in nanoseconds.
    @inlinable
    package static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Nanoseconds elapsed since `start`, zero if `start` is in the future.
    @inlinable
    package static func since(_ start: UInt64) -> UInt64 {
        let current = now()
        return current > start ? current - start : 0
    }

    /// Sleeps the calling thread for `nanos` (nothing if not positive), resuming after signals
    /// until the whole interval has passed.
    package static func sleep(_ nanos: Int64) {
        guard nanos > 0 else { return }
        var request = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR {
            request = remaining
        }
    }
}
