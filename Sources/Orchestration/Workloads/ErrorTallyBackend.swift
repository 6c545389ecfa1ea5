import LiveLoad
import TypestormMetrics
import Locking

/// One strategy's view of the shared live backend that counts its answered and failed requests
/// (by class and cause) as they happen, so the progress line can name the causes and `abort`
/// thresholds can judge the running figures while the recorder's metrics are still open.
///
/// Several strategies share one backend; each gets its own tally around it. The wrapped backend
/// is shut down by its owner, not through a tally.
final class ErrorTallyBackend: LiveSearchBackend {
    let base: any LiveSearchBackend
    private let counts = Locked<[String: Int64]>([:])

    init(_ base: any LiveSearchBackend) {
        self.base = base
    }

    var reportsBackendWork: Bool { base.reportsBackendWork }

    func start(_ request: LiveSearchRequest, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) -> any LiveSearchTicket {
        base.start(request) { [self] outcome in
            counts.withLock { counts in
                if let cause = outcome.errorCause {
                    counts[MetricName.errorCausePrefix + cause.key, default: 0] += 1
                    counts[cause.coarseMetric, default: 0] += 1
                } else if case .results = outcome.result {
                    counts[MetricName.requestsCompleted, default: 0] += 1
                }
            }
            completion(outcome)
        }
    }

    func shutdown() {}

    /// The requests so far as the recorder counts them: `requests_completed`, the failure
    /// classes (`errors_server`, `errors_timeout`, `errors_transport`, each present, 0 or more)
    /// and `error_cause.<key>`, so running thresholds such as `failed_share` can be checked.
    func add(to metrics: inout MetricSet) {
        for name in [MetricName.requestsCompleted] + MetricName.failureCounters { metrics.add(name, 0) }
        for (name, count) in counts.withLock({ $0 }) { metrics.add(name, count) }
    }
}
