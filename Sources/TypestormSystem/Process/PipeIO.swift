#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and writing the pipes between a driver and its workers.
package enum PipeIO {
    /// What `poll` reported for one descriptor.
    package struct Readiness: Sendable, Equatable {
        package var fd: Int32
        /// Data to read, or the other end closed (a read then returns 0).
        package var readable: Bool
    }

    /// Waits until one of `fds` can be read or has hung up, or `timeoutMillis` passes.
    /// Returns the descriptors that are ready (empty on timeout or an interrupting signal).
    package static func poll(_ fds: [Int32], timeoutMillis: Int32) throws(ProcessError) -> [Readiness] {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let result = entries.withUnsafeMutableBufferPointer { buffer in
            Glibc.poll(buffer.baseAddress, nfds_t(buffer.count), timeoutMillis)
        }
        if result == -1 {
            if errno == EINTR { return [] }
            throw ProcessError(call: "poll", errno: errno)
        }
        return entries.compactMap { entry in
            let ready = entry.revents & Int16(POLLIN | POLLHUP | POLLERR | POLLNVAL) != 0
            return ready ? Readiness(fd: entry.fd, readable: true) : nil
        }
    }

    /// Reads what is available (one `read`), up to `maximum` bytes; an empty array means end of
    /// file. Call after `poll` said the descriptor is readable, so this does not block.
    package static func readAvailable(_ fd: Int32, maximum: Int = 65_536) throws(ProcessError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        let count = try retryingEINTR("read") {
            buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, maximum) }
        }
        buffer.removeSubrange(count...)
        return buffer
    }

    /// Linux's `F_SETPIPE_SZ` (Glibc does not export it to Swift).
    static let setPipeSizeCommand: Int32 = 1031

    /// Asks the kernel to make the pipe behind `fd` hold `bytes` (Linux rounds up to a power of
    /// two pages). Best effort: `false`, and the default 64 KB stays, when the kernel refuses
    /// (above `fs.pipe-max-size` for an unprivileged process).
    @discardableResult
    package static func setCapacity(_ fd: Int32, bytes: Int) -> Bool {
        (try? Syscall.call("fcntl") { fcntl(fd, setPipeSizeCommand, Int32(bytes)) }) != nil
    }

    /// Writes every byte, resuming after partial writes and signals. A reader that has gone
    /// away gives `EPIPE` (the caller must ignore SIGPIPE, see `SignalTrap.ignoreBrokenPipes`).
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(ProcessError) {
        var offset = 0
        while offset < bytes.count {
            let written = try retryingEINTR("write") {
                bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            }
            offset += written
        }
    }
}

/// Splits a byte stream into lines; a line longer than `maximumLineLength` is an error, so a
/// child that prints megabytes without a newline cannot make its reader grow without bound.
package struct LineBuffer: Sendable {
    package var maximumLineLength: Int
    private var pending: [UInt8] = []

    package init(maximumLineLength: Int = 64 << 20) {
        self.maximumLineLength = maximumLineLength
    }

    package enum Failure: Error, Equatable { case lineTooLong(Int) }

    /// Appends `bytes` and returns the complete lines (without the newline).
    package mutating func append(_ bytes: [UInt8]) throws(Failure) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = 0
        var scanFrom = 0
        pending += bytes
        while let newline = pending[scanFrom...].firstIndex(of: 10) {
            lines.append(Array(pending[start..<newline]))
            start = newline + 1
            scanFrom = start
        }
        pending.removeSubrange(0..<start)
        if pending.count > maximumLineLength { throw .lineTooLong(pending.count) }
        return lines
    }

    /// Bytes after the last newline (what a writer left unterminated when it stopped).
    package var remainder: [UInt8] { pending }
}
