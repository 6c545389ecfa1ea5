/// Ratios and shares computed from the recorder's integral metrics.
///
/// Stored metrics stay integral so merges are exact; these are derived after merging, in one
/// place, so every report divides the same way. `nil` when the denominator is zero.
public struct DerivedMetrics: Sendable, Equatable, Codable {
    public var requestsPerSettle: Double?
    public var requestsPerKeystroke: Double?
    public var requestsPerDistinctQuery: Double?
    /// Debounce waits cancelled per settle.
    public var taskChurnPerSettle: Double?
    public var cacheHitRate: Double?
    public var outOfOrderApplies: Int64
    public var staleSettleShare: Double?
    /// Share of session time the screen showed an answer for a query the field no longer had.
    public var mismatchShare: Double?
    public var neverFreshShare: Double?
    public var wastedServiceShare: Double?
    public var wastedClientShare: Double?
    public var falseEmptiesPerSettle: Double?
    public var blinksPerSettle: Double?
    public var displayChangesPerSettle: Double?
    /// Requests offered and completed per second of run time.
    public var offeredPerSecond: Double?
    public var completedPerSecond: Double?
    public var writeBackReentriesPerChange: Double?

    public init(_ metrics: MetricSet) {
        typealias N = MetricName
        func c(_ name: String) -> Double { Double(metrics.counter(name)) }
        func ratio(_ a: Double, _ b: Double) -> Double? { b > 0 ? a / b : nil }
        let settles = c(N.settles)
        let seconds = Double(metrics.maxima[N.runEndNs] ?? 0) / 1e9
        requestsPerSettle = ratio(c(N.requestsStarted), settles)
        requestsPerKeystroke = ratio(c(N.requestsStarted), c(N.keystrokes))
        requestsPerDistinctQuery = ratio(c(N.requestsStarted), c(N.distinctCommits))
        taskChurnPerSettle = ratio(c(N.taskChurn), settles)
        cacheHitRate = ratio(c(N.cachedCommits), c(N.commits))
        outOfOrderApplies = metrics.counter(N.outOfOrderApplies)
        staleSettleShare = ratio(c(N.staleSettles), settles)
        mismatchShare = ratio(c(N.mismatchNs), c(N.sessionNs))
        neverFreshShare = ratio(c(N.neverFresh), settles)
        wastedServiceShare = ratio(c(N.wastedServiceNs), c(N.serviceNs))
        wastedClientShare = ratio(c(N.wastedClientNs), c(N.clientNs))
        falseEmptiesPerSettle = ratio(c(N.falseEmpties), settles)
        blinksPerSettle = ratio(c(N.blinks), settles)
        displayChangesPerSettle = ratio(c(N.displayChanges), settles)
        offeredPerSecond = ratio(c(N.requestsStarted), seconds)
        completedPerSecond = ratio(c(N.requestsCompleted), seconds)
        writeBackReentriesPerChange = ratio(c(N.writeBackReentries), c(N.writeBackChanges))
    }

    /// snake_case like the metric names; a value without a denominator is `null`, never left out.
    enum CodingKeys: String, CodingKey {
        case requestsPerSettle = "requests_per_settle"
        case requestsPerKeystroke = "requests_per_keystroke"
        case requestsPerDistinctQuery = "requests_per_distinct_query"
        case taskChurnPerSettle = "task_churn_per_settle"
        case cacheHitRate = "cache_hit_rate"
        case outOfOrderApplies = "out_of_order_applies"
        case staleSettleShare = "stale_settle_share"
        case mismatchShare = "mismatch_share"
        case neverFreshShare = "never_fresh_share"
        case wastedServiceShare = "wasted_service_share"
        case wastedClientShare = "wasted_client_share"
        case falseEmptiesPerSettle = "false_empties_per_settle"
        case blinksPerSettle = "blinks_per_settle"
        case displayChangesPerSettle = "display_changes_per_settle"
        case offeredPerSecond = "offered_per_second"
        case completedPerSecond = "completed_per_second"
        case writeBackReentriesPerChange = "writeback_reentries_per_change"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(requestsPerSettle, forKey: .requestsPerSettle)
        try container.encode(requestsPerKeystroke, forKey: .requestsPerKeystroke)
        try container.encode(requestsPerDistinctQuery, forKey: .requestsPerDistinctQuery)
        try container.encode(taskChurnPerSettle, forKey: .taskChurnPerSettle)
        try container.encode(cacheHitRate, forKey: .cacheHitRate)
        try container.encode(outOfOrderApplies, forKey: .outOfOrderApplies)
        try container.encode(staleSettleShare, forKey: .staleSettleShare)
        try container.encode(mismatchShare, forKey: .mismatchShare)
        try container.encode(neverFreshShare, forKey: .neverFreshShare)
        try container.encode(wastedServiceShare, forKey: .wastedServiceShare)
        try container.encode(wastedClientShare, forKey: .wastedClientShare)
        try container.encode(falseEmptiesPerSettle, forKey: .falseEmptiesPerSettle)
        try container.encode(blinksPerSettle, forKey: .blinksPerSettle)
        try container.encode(displayChangesPerSettle, forKey: .displayChangesPerSettle)
        try container.encode(offeredPerSecond, forKey: .offeredPerSecond)
        try container.encode(completedPerSecond, forKey: .completedPerSecond)
        try container.encode(writeBackReentriesPerChange, forKey: .writeBackReentriesPerChange)
    }
}

/// The numbers a report shows for one histogram.
public struct HistogramSummary: Sendable, Equatable, Codable {
    public var count: Int64
    public var mean: Double?
    public var p50: Int64?
    public var p90: Int64?
    public var p95: Int64?
    public var p99: Int64?
    public var p999: Int64?
    public var max: Int64?

    public init(_ histogram: Histogram) {
        count = histogram.totalCount
        mean = histogram.mean
        p50 = histogram.percentile(50)
        p90 = histogram.percentile(90)
        p95 = histogram.percentile(95)
        p99 = histogram.percentile(99)
        p999 = histogram.percentile(99.9)
        max = histogram.isEmpty ? nil : histogram.max
    }

    enum CodingKeys: String, CodingKey {
        case count, mean, p50, p90, p95, p99, p999, max
    }

    /// Every key always present; `null` for an empty histogram.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(count, forKey: .count)
        try container.encode(mean, forKey: .mean)
        try container.encode(p50, forKey: .p50)
        try container.encode(p90, forKey: .p90)
        try container.encode(p95, forKey: .p95)
        try container.encode(p99, forKey: .p99)
        try container.encode(p999, forKey: .p999)
        try container.encode(max, forKey: .max)
    }
}
