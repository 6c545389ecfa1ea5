#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which call, and the errno it left.
///
/// Made at the boundary so callers never read `errno` themselves (it is thread-local and any
/// later libc call may overwrite it).
package struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call that failed, e.g. `"recv"`.
    package var call: String
    package var errno: Int32

    package init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    package var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// The one wrapper every syscall in Typestorm goes through.
package enum Syscall {
    /// Runs `body` until it does not fail with `EINTR`; a result of -1 becomes a `SystemError`.
    ///
    /// Signals (SIGINT for graceful shutdown, SIGCHLD from workers) interrupt blocking calls; a
    /// retry here keeps every call site free of that loop.
    @inlinable
    package static func call<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SystemError(call: name, errno: code)
        }
    }

    /// Like `call`, but `EAGAIN`/`EWOULDBLOCK` come back as `nil` instead of an error, for
    /// non-blocking descriptors.
    @inlinable
    package static func nonBlocking<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> T? {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw SystemError(call: name, errno: code)
        }
    }
}
