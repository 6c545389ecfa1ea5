#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time (user + system) in nanoseconds, of a thread, this process or its reaped children.
///
/// Load figures put CPU next to throughput, so a faster run that merely burned more CPU shows
/// itself; the driver separates its own thread, the embedded server (the rest of its process)
/// and the workers (its children) this way.
package enum CPUTime {
    /// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`).
    package static func thread() -> Int64 {
        clock(CLOCK_THREAD_CPUTIME_ID)
    }

    /// This process's CPU time, all threads (`CLOCK_PROCESS_CPUTIME_ID`).
    package static func process() -> Int64 {
        clock(CLOCK_PROCESS_CPUTIME_ID)
    }

    /// The CPU time of every terminated and waited-for child of this process
    /// (`getrusage(RUSAGE_CHILDREN)`, microsecond resolution); 0 if the kernel refuses.
    package static func reapedChildren() -> Int64 {
        guard let usage = try? ResourceUsage.raw(RUSAGE_CHILDREN) else { return 0 }
        func nanos(_ t: timeval) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_usec) * 1_000 }
        return nanos(usage.ru_utime) + nanos(usage.ru_stime)
    }

    /// How long the calling thread has waited so far for a core while it was ready to run (ns):
    /// the second field of Linux's `/proc/thread-self/schedstat`; `nil` where it cannot be read.
    package static func threadRunQueueWait() -> Int64? {
        #if os(Linux)
        let file = open("/proc/thread-self/schedstat", O_RDONLY)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = bytes[..<count].split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        guard fields.count >= 2 else { return nil }
        return Int64(String(decoding: fields[1], as: UTF8.self))
        #else
        return nil
        #endif
    }

    private static func clock(_ id: clockid_t) -> Int64 {
        var spec = timespec()
        clock_gettime(id, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
