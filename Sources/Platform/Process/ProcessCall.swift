#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed process-management call (spawn, pipe, poll, waitpid, kill): which call and errno.
public struct ProcessError: Error, Sendable, Equatable, CustomStringConvertible {
    public var call: String
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Retries `body` while it fails with `EINTR`; -1 becomes a `ProcessError` made from errno.
///
/// Kept private to this folder: the driver's poll loop is interrupted by SIGCHLD and SIGINT,
/// and every call site would otherwise repeat the loop.
@usableFromInline
func retryingEINTR<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(ProcessError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw ProcessError(call: name, errno: code)
    }
}
