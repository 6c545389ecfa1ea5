#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CPosixShims
import Dispatch

/// Turns SIGINT/SIGTERM into bytes on a pipe, so a `poll` loop sees them next to its other
/// descriptors instead of the process dying mid-write.
///
/// While a trap is installed the signals are ignored at the process level (Dispatch delivers
/// them to its sources); children must reset them (`SpawnOptions.defaultSignals` does).
package final class SignalTrap: Sendable {
    /// Readable when a trapped signal arrived; `received()` drains it.
    package let fileDescriptor: Int32
    private let writeEnd: Int32
    private let signals: [Int32]
    /// DispatchSourceSignal is not declared Sendable; the array is written once in `init` and
    /// only `cancel()`ed afterwards, which Dispatch allows from any thread.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]
    private let cancelled = CancellationFlag()

    package init(_ signals: [Int32] = [SIGINT, SIGTERM]) throws(ProcessError) {
        var fds: [Int32] = [-1, -1]
        _ = try retryingEINTR("pipe2") { CPosixShims_pipe_cloexec(&fds, 1) }
        fileDescriptor = fds[0]
        writeEnd = fds[1]
        self.signals = signals
        let writeEnd = fds[1]
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in signals {
            Glibc.signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                var byte = UInt8(truncatingIfNeeded: signalNumber)
                _ = write(writeEnd, &byte, 1)
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit {
        cancel()
        _ = close(fileDescriptor)
        _ = close(writeEnd)
    }

    /// The signals that arrived since the last call, in order.
    package func received() -> [Int32] {
        var result: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, 64) }
            if count <= 0 { break }
            result += buffer[0..<count].map { Int32($0) }
        }
        return result
    }

    /// Restores the default action for the trapped signals.
    package func cancel() {
        guard cancelled.cancel() else { return }
        for source in sources { source.cancel() }
        for signalNumber in signals { Glibc.signal(signalNumber, SIG_DFL) }
    }

    /// Makes writes to a closed pipe fail with EPIPE instead of killing the process: a driver
    /// must survive a worker that died before reading its last message.
    package static func ignoreBrokenPipes() {
        Glibc.signal(SIGPIPE, SIG_IGN)
    }

    /// Asks the kernel to send `signal` to this process when its parent dies (Linux
    /// `PR_SET_PDEATHSIG`), and returns false if the parent is already gone (not `expectedParent`).
    ///
    /// A worker calls this first thing, so a driver killed with SIGKILL leaves no orphans.
    /// Note: "parent" is the thread that spawned us; the driver spawns from a thread that lives
    /// until every child is reaped.
    @discardableResult
    package static func dieWithParent(signal: Int32 = SIGTERM, expectedParent: pid_t? = nil) -> Bool {
        _ = CPosixShims_set_parent_death_signal(signal)
        if let expectedParent { return getppid() == expectedParent }
        return getppid() != 1
    }
}
