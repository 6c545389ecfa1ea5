import Glibc

/// CPU time and peak memory of this process, from `getrusage(RUSAGE_SELF)`.
///
/// Load reports put client and server CPU seconds and peak RSS next to throughput so that a
/// faster run that merely burned more CPU shows itself (docs/metrics.md, "Requests and load").
package struct ResourceUsage: Sendable, Equatable, Codable {
    package var userCPUSeconds: Double
    package var systemCPUSeconds: Double
    /// Peak resident set size in bytes (the kernel reports KiB on Linux).
    package var peakRSSBytes: UInt64

    package var cpuSeconds: Double { userCPUSeconds + systemCPUSeconds }

    /// Usage of the calling process so far.
    package static func current() throws(SystemError) -> ResourceUsage {
        try read(RUSAGE_SELF)
    }

    /// Usage of the terminated and waited-for children of this process.
    package static func children() throws(SystemError) -> ResourceUsage {
        try read(RUSAGE_CHILDREN)
    }

    /// The kernel's `rusage` for `who`, through the one syscall wrapper.
    static func raw(_ who: __rusage_who) throws(SystemError) -> rusage {
        var usage = rusage()
        _ = try Syscall.call("getrusage") { getrusage(__rusage_who_t(who.rawValue), &usage) }
        return usage
    }

    private static func read(_ who: __rusage_who) throws(SystemError) -> ResourceUsage {
        let usage = try raw(who)
        func seconds(_ value: timeval) -> Double { Double(value.tv_sec) + Double(value.tv_usec) / 1_000_000 }
        let rssBytes = UInt64(max(0, usage.ru_maxrss)) * 1024
        return ResourceUsage(
            userCPUSeconds: seconds(usage.ru_utime),
            systemCPUSeconds: seconds(usage.ru_stime),
            peakRSSBytes: rssBytes
        )
    }
}
