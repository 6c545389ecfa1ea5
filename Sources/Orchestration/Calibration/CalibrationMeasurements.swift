import LiveLoad
import TypestormMetrics

/// What one concurrency step of `typestorm calibrate` measured.
package struct CalibrationStep: Sendable, Equatable {
    /// Requests kept in flight (each completion sends the next).
    package var concurrency: Int
    /// From the first send to the last completion.
    package var elapsedNanos: Int64
    /// Latencies of the successful (2xx) requests, sorted.
    package var latencies: [Int64]
    /// Failed requests by cause (`HTTP 503`, `connection refused`, `timeout`, …).
    package var failures: [ErrorCause: Int]
    /// Successful requests that opened a connection instead of reusing one.
    package var newConnections: Int
    /// TCP connect times of the requests that opened a connection (one round trip each).
    package var connectNanos: [Int64]

    package init(concurrency: Int, elapsedNanos: Int64, latencies: [Int64], failures: [ErrorCause: Int], newConnections: Int, connectNanos: [Int64]) {
        self.concurrency = concurrency
        self.elapsedNanos = elapsedNanos
        self.latencies = latencies.sorted()
        self.failures = failures
        self.newConnections = newConnections
        self.connectNanos = connectNanos
    }

    package var requests: Int { latencies.count + failures.values.reduce(0, +) }
    /// Answers that were HTTP errors (the server answered, with a non-2xx status).
    package var serverErrors: Int { failures.filter { $0.key.httpStatus != nil }.values.reduce(0, +) }
    /// Requests that got no answer (refused, reset, timed out, …).
    package var transportErrors: Int { failures.filter { $0.key.httpStatus == nil }.values.reduce(0, +) }
    /// Successful requests per second.
    package var throughput: Double { elapsedNanos > 0 ? Double(latencies.count) * 1e9 / Double(elapsedNanos) : 0 }
    /// Share of successful requests that reused an open connection; nil without any.
    package var connectionReuse: Double? {
        latencies.isEmpty ? nil : Double(latencies.count - min(newConnections, latencies.count)) / Double(latencies.count)
    }
    /// The `q` quantile of the successful latencies (nearest rank); nil without any.
    package func quantile(_ q: Double) -> Int64? { latencies.nearestRank(q) }
}

/// The cancellation probe: the latency of one probe request sent right after a burst that was
/// aborted early, against one sent after a burst of the same size left to complete.
package struct CancellationProbe: Sendable, Equatable {
    /// Requests per burst (more than the server's estimated workers, so they queue).
    package var burst: Int
    /// How long after the burst's start it was aborted and the probe sent.
    package var abortAfterNanos: Int64
    /// Probe latencies after an aborted burst, one per trial.
    package var afterAbortedNanos: [Int64]
    /// Probe latencies after a burst left to complete, one per trial.
    package var afterCompletedNanos: [Int64]
}

/// Everything `typestorm calibrate` measured, before fitting.
package struct CalibrationMeasurements: Sendable, Equatable {
    package var steps: [CalibrationStep]
    /// Absent when the probe could not run (no step had enough successful requests).
    package var cancellation: CancellationProbe?
}

extension Array where Element == Int64 {
    /// The nearest-rank `q` quantile of sorted values; nil when empty.
    func nearestRank(_ q: Double) -> Int64? {
        guard !isEmpty else { return nil }
        let rank = Int((q * Double(count)).rounded(.up))
        return self[Swift.min(Swift.max(rank, 1), count) - 1]
    }

    /// The median of unsorted values; nil when empty.
    var median: Int64? { sorted().nearestRank(0.5) }
}
