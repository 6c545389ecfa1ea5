import Locking
import Glibc

/// An owned file descriptor: closed exactly once, by `close()` or, as a fallback, by `deinit`.
///
/// A leaked descriptor in a long load run exhausts the process's limit far from the bug, so
/// `deinit` asserts in debug builds that the owner closed it explicitly.
package final class FileDescriptor: Sendable {
    // Invariant: `state` guards the raw value; -1 once closed.
    private let state: Locked<Int32>

    package init(taking rawValue: Int32) {
        state = Locked(rawValue)
    }

    /// The raw descriptor, or -1 once closed.
    package var rawValue: Int32 { state.withLock { $0 } }

    /// Closes the descriptor; later calls do nothing.
    package func close() throws(SystemError) {
        let raw = state.withLock { value -> Int32 in
            let old = value
            value = -1
            return old
        }
        guard raw >= 0 else { return }
        // close is not retried on EINTR: on Linux the descriptor is released regardless.
        if Glibc.close(raw) == -1 && errno != EINTR { throw SystemError(call: "close", errno: errno) }
    }

    /// Makes reads and writes return `EAGAIN` instead of blocking (`O_NONBLOCK`), for a
    /// descriptor an event loop watches.
    package func setNonBlocking() throws(SystemError) {
        let raw = rawValue
        let flags = try Syscall.call("fcntl") { fcntl(raw, F_GETFL) }
        _ = try Syscall.call("fcntl") { fcntl(raw, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Writes all of `bytes`, looping over short writes.
    package func writeAll(_ bytes: some Collection<UInt8>) throws(SystemError) {
        let raw = rawValue
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let written = try Syscall.call("write") {
                array.withUnsafeBytes { write(raw, $0.baseAddress! + offset, $0.count - offset) }
            }
            offset += written
        }
    }

    /// Reads up to `maxCount` bytes; an empty result means end of file.
    package func read(maxCount: Int) throws(SystemError) -> [UInt8] {
        let raw = rawValue
        var buffer = [UInt8](repeating: 0, count: maxCount)
        let count = try Syscall.call("read") {
            buffer.withUnsafeMutableBytes { Glibc.read(raw, $0.baseAddress!, maxCount) }
        }
        buffer.removeSubrange(count...)
        return buffer
    }

    deinit {
        let raw = state.withLock { $0 }
        assert(raw < 0, "FileDescriptor \(raw) was not closed by its owner")
        if raw >= 0 { _ = Glibc.close(raw) }
    }
}

/// A pipe (named apart from Foundation's `Pipe`) whose both ends are close-on-exec (so worker processes inherit only what they are
/// given explicitly).
package struct SystemPipe: Sendable {
    package let readEnd: FileDescriptor
    package let writeEnd: FileDescriptor

    package init() throws(SystemError) {
        var fds: [Int32] = [-1, -1]
        _ = try Syscall.call("pipe") { pipe(&fds) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        readEnd = FileDescriptor(taking: fds[0])
        writeEnd = FileDescriptor(taking: fds[1])
    }
}
