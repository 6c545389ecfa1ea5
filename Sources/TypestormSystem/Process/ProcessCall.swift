#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed process-management call (spawn, pipe, poll, waitpid, kill): the one errno-based
/// error of Platform, under the name the process code has always used.
package typealias ProcessError = SystemError

/// Retries `body` while it fails with `EINTR`; -1 becomes an error made from errno
/// (`Syscall.call`, the one syscall wrapper).
@usableFromInline
func retryingEINTR<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(ProcessError) -> T {
    try Syscall.call(name, body)
}
