import TypestormMetrics

/// What the reports know about one metric group (a strategy, possibly under labels): the raw
/// counters and histograms by meaning rather than by name, and the ratios derived from them.
///
/// Built once from a `MetricGroup`; every view (HTML, verdicts, compare, sweep) reads this, so
/// a ratio is defined in exactly one place.
public struct StrategySummary: Sendable {
    public var name: String
    public var labels: [String: String]

    public var keystrokes: Int64
    public var settles: Int64
    public var committedQueries: Int64
    public var requestsStarted: Int64
    public var requestsCompleted: Int64
    public var debounceChurn: Int64
    public var outOfOrderApplies: Int64
    public var staleSettles: Int64
    public var mismatchNanos: Int64
    public var neverFresh: Int64
    public var clientServiceNanos: Int64
    public var clientWastedNanos: Int64
    public var backendServiceNanos: Int64
    public var backendWastedNanos: Int64
    public var displayChanges: Int64
    public var blinks: Int64
    public var falseEmpties: Int64
    /// Requests whose work was wasted; `nil` when not recorded.
    public var wastedRequests: Int64?
    /// Failed requests by cause ("connection refused", "HTTP 503", "timeout"), most frequent
    /// first; only causes that occurred.
    public var errors: [(reason: String, count: Int64)]
    /// Failed requests (server errors, timeouts, transport failures; not cancellations), `nil`
    /// when the runner counted none of those classes.
    public var failedRequests: Int64?
    public var inFlightMax: Int64?
    public var sessionNanos: Int64
    public var runEndNanos: Int64?

    public var ttfr: Histogram?
    public var requestLatency: Histogram?
    public var fanOut: Histogram?
    public var cancelSignal: Histogram?
    public var cancelStopClient: Histogram?
    public var cancelStopBackend: Histogram?
    public var timeline: Timeline?

    public init(_ group: MetricGroup) {
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
        mismatchNanos = m.counter(MetricName.mismatchNs)
        neverFresh = m.counter(MetricName.neverFresh)
        clientServiceNanos = m.counter(MetricName.clientNs)
        clientWastedNanos = m.counter(MetricName.wastedClientNs)
        backendServiceNanos = m.counter(MetricName.serviceNs)
        backendWastedNanos = m.counter(MetricName.wastedServiceNs)
        displayChanges = m.counter(MetricName.displayChanges)
        blinks = m.counter(MetricName.blinks)
        falseEmpties = m.counter(MetricName.falseEmpties)
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
    }

    private static func nonEmpty(_ histogram: Histogram) -> Histogram? {
        histogram.isEmpty ? nil : histogram
    }

    /// The name with its labels, as a column title: `naive (runner=virtual)`.
    public var title: String {
        guard !labels.isEmpty else { return name }
        return name + " (" + labels.keys.sorted().map { "\($0)=\(labels[$0]!)" }.joined(separator: ", ") + ")"
    }

    /// A stable key that identifies this group across records (same as `MetricGroup.key`).
    public var key: String {
        ([name] + labels.keys.sorted().map { "\($0)=\(labels[$0]!)" }).joined(separator: "|")
    }

    private func perSettle(_ value: Int64) -> Double? {
        settles > 0 ? Double(value) / Double(settles) : nil
    }

    /// Share of settles whose final screen was wrong (terminal staleness).
    public var staleShare: Double? { perSettle(staleSettles) }
    /// Share of settles that never showed fresh results.
    public var neverFreshShare: Double? { perSettle(neverFresh) }
    /// Requests per settle: from the fan-out histogram's exact mean, else from the counters.
    public var fanOutMean: Double? { fanOut?.mean ?? perSettle(requestsStarted) }
    public var requestsPerKeystroke: Double? {
        keystrokes > 0 ? Double(requestsStarted) / Double(keystrokes) : nil
    }
    public var requestsPerQuery: Double? {
        committedQueries > 0 ? Double(requestsStarted) / Double(committedQueries) : nil
    }
    public var churnPerSettle: Double? { perSettle(debounceChurn) }
    /// Mean mismatch time per settle in nanoseconds.
    public var mismatchPerSettleNanos: Double? { perSettle(mismatchNanos) }
    /// Share of typing-session time the screen showed results for another query.
    public var mismatchShare: Double? {
        sessionNanos > 0 ? Double(mismatchNanos) / Double(sessionNanos) : nil
    }
    /// Requests completed per second of run time.
    public var completedPerSecond: Double? {
        guard let end = runEndNanos, end > 0 else { return nil }
        return Double(requestsCompleted) * 1e9 / Double(end)
    }
    /// Wasted share of service time, client view and backend view.
    public var clientWastedShare: Double? {
        clientServiceNanos > 0 ? Double(clientWastedNanos) / Double(clientServiceNanos) : nil
    }
    public var backendWastedShare: Double? {
        backendServiceNanos > 0 ? Double(backendWastedNanos) / Double(backendServiceNanos) : nil
    }
    public var displayChangesPerSettle: Double? { perSettle(displayChanges) }
    public var blinksPerSettle: Double? { perSettle(blinks) }
    public var falseEmptiesPerSettle: Double? { perSettle(falseEmpties) }
    public var errorCount: Int64 { errors.reduce(0) { $0 + $1.count } }
}

extension RunRecord {
    /// One summary per group, in the record's stable group order.
    public var summaries: [StrategySummary] { groups.map(StrategySummary.init) }
}
