#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds on the monotonic clock, the one time base for latencies in every process.
///
/// `CLOCK_MONOTONIC` is served from the vDSO (tens of nanoseconds), never jumps with NTP steps,
/// and is shared by all processes on a machine, so a server and a client in different processes
/// can subtract each other's timestamps.
public enum MonotonicClock {
    /// The current monotonic time in nanoseconds.
    @inlinable
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Nanoseconds elapsed since `start`, zero if `start` is in the future.
    @inlinable
    public static func since(_ start: UInt64) -> UInt64 {
        let current = now()
        return current > start ? current - start : 0
    }
}
