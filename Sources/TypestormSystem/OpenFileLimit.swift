#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many files (sockets among them) this process may hold open: the one reading of
/// `RLIMIT_NOFILE`, for the HTTP client's connection cap.
package enum OpenFileLimit {
    /// Raises the soft limit to the hard one (as far as the kernel allows) and returns the soft
    /// limit then in force; `nil` when the kernel cannot say.
    package static func raised() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var wanted = limit
            wanted.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &wanted) == 0 { limit = wanted }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
