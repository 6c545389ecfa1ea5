#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock time (`CLOCK_REALTIME`) in nanoseconds since 1970.
///
/// Shared by the processes on one machine and, roughly, across machines, so it names a common
/// instant (the start of a phase all workers begin together) and dates records. It jumps with
/// NTP steps: measure intervals with `MonotonicClock`.
package enum WallClock {
    package static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
