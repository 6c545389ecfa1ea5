/// Ratios and shares computed from the recorder's integral metrics.
///
/// Stored metrics stay integral so merges are exact; these are derived after merging, in one
/// place, so every report divides the same way. `nil` when the denominator is zero.
public struct DerivedMetrics: Sendable, Equatable, Codable {
    /// Requests started per settle (`requests_started / settles`); `nil` without settles.
    @ExplicitNull
    public var requestsPerSettle: Double?
    /// Requests started per keystroke; `nil` without keystrokes.
    @ExplicitNull
    public var requestsPerKeystroke: Double?
    /// Requests started per distinct committed query (`requests_started / distinct_commits`): above 1
    /// means the same query was searched more than once in a burst; `nil` without commits.
    @ExplicitNull
    public var requestsPerDistinctQuery: Double?
    /// Debounce waits cancelled per settle.
    @ExplicitNull
    public var taskChurnPerSettle: Double?
    /// Share of commits answered from the client's cache (`commits_cached / commits`), 0 to 1; `nil`
    /// without commits.
    @ExplicitNull
    public var cacheHitRate: Double?
    /// Applies of an older request after a newer one (``MetricName/outOfOrderApplies``); 0 for a
    /// correct strategy, and 0 (not `nil`) when nothing was applied.
    public var outOfOrderApplies: Int64
    /// Share of settles whose final screen was not fresh (`stale_settles / settles`), 0 to 1; `nil`
    /// without settles.
    @ExplicitNull
    public var staleSettleShare: Double?
    /// Share of session time the screen showed an answer for a query the field no longer had.
    @ExplicitNull
    public var mismatchShare: Double?
    /// Share of settles that never showed fresh results (`never_fresh_settles / settles`), 0 to 1;
    /// `nil` without settles.
    @ExplicitNull
    public var neverFreshShare: Double?
    /// Share of settles whose screen was already right at the last keystroke
    /// (`already_fresh_settles / settles`): searches that needed no answer, left out of time to
    /// fresh results; `nil` without settles.
    @ExplicitNull
    public var alreadyFreshShare: Double?
    /// Share of the backend's service time spent on wasted requests
    /// (`wasted_service_ns / service_ns_total`), 0 to 1; `nil` when no service time was recorded.
    @ExplicitNull
    public var wastedServiceShare: Double?
    /// Share of the client's request time spent on wasted requests
    /// (`wasted_client_ns / client_ns_total`), 0 to 1; `nil` when no client time was recorded.
    @ExplicitNull
    public var wastedClientShare: Double?
    /// Empty or error screens shown for a query the field did not ask for, per settle; `nil` without
    /// settles.
    @ExplicitNull
    public var falseEmptiesPerSettle: Double?
    /// Screen states replaced in under 200 ms, per settle; `nil` without settles.
    @ExplicitNull
    public var blinksPerSettle: Double?
    /// Display changes per settle; `nil` without settles.
    @ExplicitNull
    public var displayChangesPerSettle: Double?
    /// Requests offered and completed per second of run time.
    @ExplicitNull
    public var offeredPerSecond: Double?
    /// Requests completed per second of run time (`requests_completed / run_end_ns`); `nil` when the
    /// run's end time is absent or 0.
    @ExplicitNull
    public var completedPerSecond: Double?
    /// Write-back re-entries per write-back change (how often the field's own write re-triggered it);
    /// `nil` without write-back changes.
    @ExplicitNull
    public var writeBackReentriesPerChange: Double?

    /// Derives every ratio from `metrics`' counters and maxima; a ratio whose denominator is zero or
    /// absent is `nil`.
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
        alreadyFreshShare = ratio(c(N.alreadyFreshSettles), settles)
        wastedServiceShare = ratio(c(N.wastedServiceNs), c(N.serviceNs))
        wastedClientShare = ratio(c(N.wastedClientNs), c(N.clientNs))
        falseEmptiesPerSettle = metrics.counters[N.falseEmpties].flatMap { ratio(Double($0), settles) }
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
        case alreadyFreshShare = "already_fresh_share"
        case wastedServiceShare = "wasted_service_share"
        case wastedClientShare = "wasted_client_share"
        case falseEmptiesPerSettle = "false_empties_per_settle"
        case blinksPerSettle = "blinks_per_settle"
        case displayChangesPerSettle = "display_changes_per_settle"
        case offeredPerSecond = "offered_per_second"
        case completedPerSecond = "completed_per_second"
        case writeBackReentriesPerChange = "writeback_reentries_per_change"
    }
}

/// The numbers a report shows for one histogram.
public struct HistogramSummary: Sendable, Equatable, Codable {
    /// Values recorded (0 for an empty histogram).
    public var count: Int64
    /// Exact mean of the recorded values, in the histogram's unit; `nil` when empty.
    @ExplicitNull
    public var mean: Double?
    /// Median, within the histogram's precision; `nil` when empty.
    @ExplicitNull
    public var p50: Int64?
    /// 90th percentile; `nil` when empty.
    @ExplicitNull
    public var p90: Int64?
    /// 95th percentile; `nil` when empty.
    @ExplicitNull
    public var p95: Int64?
    /// 99th percentile; `nil` when empty.
    @ExplicitNull
    public var p99: Int64?
    /// 99.9th percentile; `nil` when empty.
    @ExplicitNull
    public var p999: Int64?
    /// Largest value recorded, exact; `nil` when empty.
    @ExplicitNull
    public var max: Int64?

    /// Summarises `histogram`: count, mean, p50, p90, p95, p99, p99.9 and max.
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
}
