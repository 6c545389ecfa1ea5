import CPosixShims
import Foundation
import Glibc
import Locking

/// SIGINT and SIGTERM turned into a callback on a thread of their own, for graceful shutdown.
///
/// The C handler only writes the signal number to a pipe (async-signal-safe); a reader thread
/// calls `handler`. (Dispatch signal sources were tried first: on Linux they read a `signalfd`
/// and miss signals the kernel delivers to threads that do not block them.) After the first
/// signal its default action is restored, so a second one ends the process for a user who really
/// wants out. One instance at a time per process (the C handler has one pipe).
package final class TerminationSignals: Sendable {
    private let pipe: SystemPipe
    private let reader = DispatchSemaphore(value: 0)
    private let cancelled = Locked(false)

    package init(_ handler: @escaping @Sendable (Int32) -> Void) throws(SystemError) {
        pipe = try SystemPipe()
        let readFD = pipe.readEnd.rawValue
        let writeFD = pipe.writeEnd.rawValue
        _ = fcntl(writeFD, F_SETFL, fcntl(writeFD, F_GETFL) | O_NONBLOCK)
        let done = reader
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readFD, &byte, 1)
                if count == 1 {
                    CPosixShims_signal_restore_default(Int32(byte))
                    handler(Int32(byte))
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
            done.signal()
        }
        thread.name = "typestorm-signals"
        thread.start()
        for number in [SIGINT, SIGTERM] {
            _ = try Syscall.call("sigaction") { CPosixShims_signal_forward_to_fd(number, writeFD) }
        }
    }

    /// Restores the default actions and stops the reader thread. Idempotent.
    package func cancel() {
        let first = cancelled.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        CPosixShims_signal_restore_default(SIGINT)
        CPosixShims_signal_restore_default(SIGTERM)
        try? pipe.writeEnd.close()
        reader.wait()
        try? pipe.readEnd.close()
    }
}
