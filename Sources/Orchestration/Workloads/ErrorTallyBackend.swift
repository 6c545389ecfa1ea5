import LiveLoad
import Measurement
import Synchronization

/// One strategy's view of the shared live backend that counts its failed requests by cause as
/// they happen, so the progress line can name them while the recorder's metrics are still open.
///
/// Several strategies share one backend; each gets its own tally around it. The wrapped backend
/// is shut down by its owner, not through a tally.
final class ErrorTallyBackend: LiveSearchBackend {
    let base: any LiveSearchBackend
    private let counts = Mutex<[String: Int64]>([:])

    init(_ base: any LiveSearchBackend) {
        self.base = base
    }

    var reportsBackendWork: Bool { base.reportsBackendWork }

    func start(_ request: LiveSearchRequest, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) -> any LiveSearchTicket {
        base.start(request) { [self] outcome in
            if let cause = outcome.errorCause { counts.withLock { $0[cause.key, default: 0] += 1 } }
            completion(outcome)
        }
    }

    func shutdown() {}

    /// The failures so far as `error_cause.<key>` counters.
    func add(to metrics: inout MetricSet) {
        for (key, count) in counts.withLock({ $0 }) { metrics.add(MetricName.errorCausePrefix + key, count) }
    }
}
