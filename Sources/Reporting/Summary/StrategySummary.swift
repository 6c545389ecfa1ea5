import TypestormMetrics

/// What the reports know about one metric group (a strategy, possibly under labels): the raw
/// counters and histograms by meaning rather than by name, and the ratios derived from them.
///
/// Built once from a `MetricGroup`; every view (HTML, verdicts, compare, sweep) reads this, so
/// a ratio is defined in exactly one place.
package struct StrategySummary: Sendable {
    package var name: String
    package var labels: [String: String]

    package var keystrokes: Int64
    package var settles: Int64
    package var committedQueries: Int64
    package var requestsStarted: Int64
    package var requestsCompleted: Int64
    package var debounceChurn: Int64
    package var outOfOrderApplies: Int64
    package var staleSettles: Int64
    /// Searches that ended on the answer for another (older) query; `nil` in records written
    /// before the recorder counted them.
    package var olderAnswerSettles: Int64?
    /// The first search of each flaw kind, by `FlawKind` (empty in older records).
    package var examples: [FlawKind: FlawExample]
    package var mismatchNanos: Int64
    package var neverFresh: Int64
    package var clientServiceNanos: Int64
    package var backendServiceNanos: Int64
    package var displayChanges: Int64
    package var blinks: Int64
    /// `nil` when answers came without a result count (an empty screen cannot be told then).
    package var falseEmpties: Int64?
    /// Requests whose work was wasted; `nil` when not recorded.
    package var wastedRequests: Int64?
    /// Failed requests by cause ("connection refused", "HTTP 503", "timeout"), most frequent
    /// first; only causes that occurred.
    package var errors: [(reason: String, count: Int64)]
    /// Failed requests (server errors, timeouts, transport failures; not cancellations), `nil`
    /// when the runner counted none of those classes.
    package var failedRequests: Int64?
    package var inFlightMax: Int64?
    package var sessionNanos: Int64
    package var runEndNanos: Int64?

    package var ttfr: Histogram?
    package var requestLatency: Histogram?
    package var fanOut: Histogram?
    package var cancelSignal: Histogram?
    package var cancelStopClient: Histogram?
    package var cancelStopBackend: Histogram?
    package var timeline: Timeline?
    /// The ratios of the group's metrics, divided as every other view divides them.
    package var derived: DerivedMetrics

    package init(_ group: MetricGroup) {
        let m = group.metrics
        name = group.name
        labels = group.labels
        keystrokes = m.counter(MetricName.keystrokes)
        settles = m.counter(MetricName.settles)
        committedQueries = m.counter(MetricName.distinctCommits)
        requestsStarted = m.counter(MetricName.requestsStarted)
        requestsCompleted = m.counter(MetricName.requestsCompleted)
        debounceChurn = m.counter(MetricName.taskChurn)
        outOfOrderApplies = m.counter(MetricName.outOfOrderApplies)
        staleSettles = m.counter(MetricName.staleSettles)
        olderAnswerSettles = m.counters[MetricName.olderAnswerSettles]
        var examples: [FlawKind: FlawExample] = [:]
        for (kind, example) in m.examples ?? [:] { if let kind = FlawKind(rawValue: kind) { examples[kind] = example } }
        self.examples = examples
        mismatchNanos = m.counter(MetricName.mismatchNs)
        neverFresh = m.counter(MetricName.neverFresh)
        clientServiceNanos = m.counter(MetricName.clientNs)
        backendServiceNanos = m.counter(MetricName.serviceNs)
        displayChanges = m.counter(MetricName.displayChanges)
        blinks = m.counter(MetricName.blinks)
        falseEmpties = m.counters[MetricName.falseEmpties]
        wastedRequests = m.counters[MetricName.wastedRequests]
        errors = m.errorBreakdown.map { ($0.cause.label, $0.count) }
        failedRequests = m.failedRequests
        inFlightMax = m.maxima[MetricName.maxInFlight]
        sessionNanos = m.counter(MetricName.sessionNs)
        runEndNanos = m.maxima[MetricName.runEndNs]
        ttfr = m.histograms[MetricName.timeToFresh].flatMap(Self.nonEmpty)
        requestLatency = m.histograms[MetricName.requestLatency].flatMap(Self.nonEmpty)
        fanOut = m.histograms[MetricName.fanOutPerSettle].flatMap(Self.nonEmpty)
        cancelSignal = m.histograms[MetricName.signalLatency].flatMap(Self.nonEmpty)
        cancelStopClient = m.histograms[MetricName.stopLatencyClient].flatMap(Self.nonEmpty)
        cancelStopBackend = m.histograms[MetricName.stopLatencyBackend].flatMap(Self.nonEmpty)
        timeline = Timeline(m)
        derived = DerivedMetrics(m)
    }

    private static func nonEmpty(_ histogram: Histogram) -> Histogram? {
        histogram.isEmpty ? nil : histogram
    }

    /// The name with its labels, as a column title: `naive (runner=virtual)`.
    package var title: String {
        guard !labels.isEmpty else { return name }
        return name + " (" + labels.keys.sorted().map { "\($0)=\(labels[$0]!)" }.joined(separator: ", ") + ")"
    }

    /// A stable key that identifies this group across records (same as `MetricGroup.key`).
    package var key: String {
        ([name] + labels.keys.sorted().map { "\($0)=\(labels[$0]!)" }).joined(separator: "|")
    }

    private func perSettle(_ value: Int64) -> Double? {
        settles > 0 ? Double(value) / Double(settles) : nil
    }

    /// Share of settles whose final screen was wrong (terminal staleness).
    package var staleShare: Double? { derived.staleSettleShare }
    /// Share of settles that never showed fresh results.
    package var neverFreshShare: Double? { derived.neverFreshShare }
    /// Share of settles that ended on an older query's answer; `nil` when not counted.
    package var olderAnswerShare: Double? { olderAnswerSettles.flatMap(perSettle) }
    /// Requests per settle: from the fan-out histogram's exact mean, else from the counters.
    package var fanOutMean: Double? { fanOut?.mean ?? derived.requestsPerSettle }
    package var requestsPerKeystroke: Double? { derived.requestsPerKeystroke }
    package var requestsPerQuery: Double? { derived.requestsPerDistinctQuery }
    package var churnPerSettle: Double? { derived.taskChurnPerSettle }
    /// Mean mismatch time per settle in nanoseconds.
    package var mismatchPerSettleNanos: Double? { perSettle(mismatchNanos) }
    /// Share of typing-session time the screen showed results for another query.
    package var mismatchShare: Double? { derived.mismatchShare }
    /// Requests completed per second of run time.
    package var completedPerSecond: Double? {
        guard let end = runEndNanos, end > 0 else { return nil }
        return Double(requestsCompleted) * 1e9 / Double(end)
    }
    /// Wasted share of service time, client view and backend view.
    package var clientWastedShare: Double? { derived.wastedClientShare }
    package var backendWastedShare: Double? { derived.wastedServiceShare }
    package var displayChangesPerSettle: Double? { derived.displayChangesPerSettle }
    package var blinksPerSettle: Double? { derived.blinksPerSettle }
    package var falseEmptiesPerSettle: Double? { derived.falseEmptiesPerSettle }
    package var errorCount: Int64 { errors.reduce(0) { $0 + $1.count } }
}

extension RunRecord {
    /// One summary per group, in the record's stable group order.
    package var summaries: [StrategySummary] { groups.map(StrategySummary.init) }
}
