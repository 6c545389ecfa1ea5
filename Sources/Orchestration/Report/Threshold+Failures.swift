import TypestormMetrics

extension MetricExpression {
    /// The name of the failed-request share in thresholds: failed / (completed + failed), where
    /// failed counts server errors, timeouts and transport failures but not cancellations (a
    /// cancelled request is the strategy's choice, not the backend's failure).
    package static let failedShare = "failed_share"

    /// The failed-request share of `metrics`, or `nil` when no request ended (or failures were
    /// not counted, as in runs without requests).
    package static func failedShare(in metrics: MetricSet) -> Double? {
        guard let failed = metrics.failedRequests, metrics.counters[MetricName.requestsCompleted] != nil else { return nil }
        let ended = metrics.counter(MetricName.requestsCompleted) + failed
        return ended > 0 ? Double(failed) / Double(ended) : nil
    }
}

extension Threshold {
    /// The bound on `failed_share` every run gets unless its scenario sets a threshold on that
    /// metric: more than 1 % failed requests fails the run, as k6's `http_req_failed` and
    /// Locust's `--exit-code-on-error` do.
    package static let defaultFailedShare = Threshold(metric: MetricExpression.failedShare, maximum: 0.01)
}

extension Scenario {
    /// Whether the scenario bounds `failed_share` itself (then the default bound is not added).
    package var setsFailedShareBound: Bool {
        thresholds.contains { $0.metric == MetricExpression.failedShare }
    }

    /// Every threshold verdict of a run: the scenario's own, then the default failed-share bound
    /// for each group that ended requests (groups without requests have nothing to fail).
    package func evaluateThresholds(_ record: RunRecord) -> [ThresholdResult] {
        var results = thresholds.flatMap { $0.evaluate(record) }
        if !setsFailedShareBound {
            results += Threshold.defaultFailedShare.evaluate(record).filter { $0.value != nil }
        }
        return results
    }
}
