import Dispatch
import Glibc

/// SIGINT and SIGTERM turned into a callback, for graceful shutdown.
///
/// The default action (die at once) is replaced by a dispatch source, so a server can stop
/// accepting, drain in-flight requests and exit cleanly; a second signal falls through to the
/// default action for a user who really wants out.
public final class TerminationSignals: Sendable {
    // Invariant: the sources are created in init and only cancelled in `cancel()`; Dispatch
    // sources are thread-safe.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    public init(queue: DispatchQueue = DispatchQueue(label: "typestorm.signals"), _ handler: @escaping @Sendable (Int32) -> Void) {
        var made: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                signal(number, SIG_DFL)
                handler(number)
            }
            source.resume()
            made.append(source)
        }
        sources = made
    }

    /// Restores the default actions.
    public func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
