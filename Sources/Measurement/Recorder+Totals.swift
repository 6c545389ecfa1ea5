/// The names under which `Recorder.metrics()` reports (METRICS.md); drivers and reports read them.
///
/// Times are nanoseconds, counts are plain numbers. Ratios (per keystroke, shares, rates) are
/// not stored: they are derived from these at report time so that merging stays exact.
public enum MetricName {
    // Counters.
    public static let keystrokes = "keystrokes"
    public static let submits = "submits"
    public static let settles = "settles"
    public static let commits = "commits"
    public static let cachedCommits = "commits_cached"
    /// Sum over settles of the distinct queries committed in each.
    public static let distinctCommits = "distinct_commits"
    public static let requestsStarted = "requests_started"
    public static let requestsCompleted = "requests_completed"
    public static let requestsCancelled = "requests_cancel_requested"
    public static let cancelsObserved = "requests_cancel_observed"
    public static let requestsAbandoned = "requests_abandoned"
    public static let serverErrors = "errors_server"
    public static let timeouts = "errors_timeout"
    public static let transportErrors = "errors_transport"
    public static let unfinishedRequests = "requests_unfinished"
    public static let discards = "responses_discarded"
    public static let debounceWaits = "debounce_waits"
    /// Debounce waits cancelled before they sent anything (no backend cost).
    public static let taskChurn = "task_churn"
    /// Cancels of work that was still current (no input change had made it obsolete).
    public static let cancelsWhileCurrent = "cancels_while_current"
    public static let applies = "applies"
    public static let outOfOrderApplies = "out_of_order_applies"
    public static let staleSettles = "stale_settles"
    public static let neverFresh = "never_fresh_settles"
    public static let mismatchNs = "mismatch_ns"
    /// Sum over typists of session length (first keystroke to session end).
    public static let sessionNs = "session_ns"
    public static let serviceNs = "service_ns_total"
    public static let wastedServiceNs = "wasted_service_ns"
    public static let clientNs = "client_ns_total"
    public static let wastedClientNs = "wasted_client_ns"
    public static let itemsScanned = "items_scanned"
    public static let wastedItems = "wasted_items"
    public static let wastedRequests = "wasted_requests"
    public static let displayChanges = "display_changes"
    public static let blinks = "blinks"
    public static let falseEmpties = "false_empties"
    public static let writeBackChanges = "writeback_changes"
    public static let writeBackReentries = "writeback_reentries"
    public static let writeBackRunaways = "writeback_runaways"
    public static let compositionBreaks = "composition_breaks"
    public static let cpuNs = "cpu_ns"
    public static let allocatedBytes = "allocated_bytes"
    // Maxima.
    public static let runEndNs = "run_end_ns"
    public static let maxInFlight = "max_in_flight"
    public static let peakRSS = "peak_rss_bytes"
    // Histograms.
    public static let fanOutPerSettle = "fanout_per_settle"
    public static let displayChangesPerSettle = "display_changes_per_settle"
    public static let blinksPerSettle = "blinks_per_settle"
    public static let timeToFresh = "ttfr_ns"
    public static let signalLatency = "cancel_signal_ns"
    public static let stopLatencyClient = "cancel_stop_client_ns"
    public static let stopLatencyBackend = "cancel_stop_backend_ns"
    public static let requestLatency = "request_latency_ns"
    public static let queueTime = "server_queue_ns"
    public static let serviceTime = "server_service_ns"
    public static let inFlight = "in_flight"
    /// Maximum: the width of the timeline's buckets (see `Timeline`).
    public static let timelineBucket = "timeline_bucket_ns"
    /// Counter prefixes of the timeline, one counter per non-empty bucket: `<prefix>.<index>`.
    public static let timelineStarted = "timeline_started"
    public static let timelineCompleted = "timeline_completed"
    public static let timelineInFlight = "timeline_in_flight_ns"
    public static let scheduleLag = "schedule_lag_ns"
    public static let timerLateness = "timer_lateness_ns"
    public static let inputLag = "input_lag_ns"
}

/// The recorder's running totals, as typed fields: the hot path adds to these, and
/// `metricSet()` names them once at the end.
struct Totals: Sendable {
    var timeline = Timeline()
    var keystrokes: Int64 = 0
    var submits: Int64 = 0
    var settles: Int64 = 0
    var commits: Int64 = 0
    var cachedCommits: Int64 = 0
    var distinctCommits: Int64 = 0
    var requestsStarted: Int64 = 0
    var requestsCompleted: Int64 = 0
    var requestsCancelled: Int64 = 0
    var cancelsObserved: Int64 = 0
    var requestsAbandoned: Int64 = 0
    var serverErrors: Int64 = 0
    var timeouts: Int64 = 0
    var transportErrors: Int64 = 0
    var unfinishedRequests: Int64 = 0
    var discards: Int64 = 0
    var waits: Int64 = 0
    var taskChurn: Int64 = 0
    var cancelsWhileCurrent: Int64 = 0
    var applies: Int64 = 0
    var outOfOrderApplies: Int64 = 0
    var staleSettles: Int64 = 0
    var neverFresh: Int64 = 0
    var mismatchNs: Int64 = 0
    var sessionStartSum: Int64 = 0
    var sessionEndSum: Int64 = 0
    var serviceNs: Int64 = 0
    var wastedServiceNs: Int64 = 0
    var clientNs: Int64 = 0
    var wastedClientNs: Int64 = 0
    var itemsScanned: Int64 = 0
    var wastedItems: Int64 = 0
    var wastedRequests: Int64 = 0
    var displayChanges: Int64 = 0
    var blinks: Int64 = 0
    var falseEmpties: Int64 = 0
    var writeBackChanges: Int64 = 0
    var writeBackReentries: Int64 = 0
    var writeBackRunaways: Int64 = 0
    var compositionBreaks: Int64 = 0
    var cpuNs: Int64 = 0
    var allocatedBytes: Int64 = 0
    var runEnd: Int64 = 0
    var maxInFlight: Int64 = 0
    var peakRSS: Int64 = 0
    var fanOutPerSettle = Histogram(.counts)
    var displayChangesPerSettle = Histogram(.counts)
    var blinksPerSettle = Histogram(.counts)
    var timeToFresh = Histogram(.latency)
    var signalLatency = Histogram(.latency)
    var stopLatencyClient = Histogram(.latency)
    var stopLatencyBackend = Histogram(.latency)
    var requestLatency = Histogram(.latency)
    var queueTime = Histogram(.latency)
    var serviceTime = Histogram(.latency)
    var inFlight = Histogram(.counts)
    var scheduleLag = Histogram(.latency)
    var timerLateness = Histogram(.latency)
    var inputLag = Histogram(.latency)
    /// Failed requests by cause (`ErrorCause.key`), for the breakdown in reports.
    var errorCauses: [String: Int64] = [:]

    func metricSet() -> MetricSet {
        typealias N = MetricName
        var counters: [String: Int64] = [
            N.keystrokes: keystrokes, N.submits: submits, N.settles: settles, N.commits: commits,
            N.cachedCommits: cachedCommits, N.distinctCommits: distinctCommits,
            N.requestsStarted: requestsStarted, N.requestsCompleted: requestsCompleted,
            N.requestsCancelled: requestsCancelled, N.cancelsObserved: cancelsObserved,
            N.requestsAbandoned: requestsAbandoned, N.serverErrors: serverErrors, N.timeouts: timeouts,
            N.transportErrors: transportErrors, N.unfinishedRequests: unfinishedRequests, N.discards: discards,
            N.debounceWaits: waits, N.taskChurn: taskChurn, N.cancelsWhileCurrent: cancelsWhileCurrent,
            N.applies: applies, N.outOfOrderApplies: outOfOrderApplies, N.staleSettles: staleSettles,
            N.neverFresh: neverFresh, N.mismatchNs: mismatchNs, N.sessionNs: sessionEndSum - sessionStartSum,
            N.serviceNs: serviceNs, N.wastedServiceNs: wastedServiceNs, N.clientNs: clientNs,
            N.wastedClientNs: wastedClientNs, N.itemsScanned: itemsScanned, N.wastedItems: wastedItems,
            N.wastedRequests: wastedRequests, N.displayChanges: displayChanges, N.blinks: blinks,
            N.falseEmpties: falseEmpties, N.writeBackChanges: writeBackChanges,
            N.writeBackReentries: writeBackReentries, N.writeBackRunaways: writeBackRunaways,
            N.compositionBreaks: compositionBreaks, N.cpuNs: cpuNs, N.allocatedBytes: allocatedBytes,
        ]
        for (key, count) in errorCauses { counters[N.errorCausePrefix + key] = count }
        var maxima: [String: Int64] = [N.runEndNs: runEnd, N.maxInFlight: maxInFlight, N.peakRSS: peakRSS]
        timeline.write(into: &counters, maxima: &maxima)
        let histograms: [String: Histogram] = [
            N.fanOutPerSettle: fanOutPerSettle, N.displayChangesPerSettle: displayChangesPerSettle,
            N.blinksPerSettle: blinksPerSettle, N.timeToFresh: timeToFresh, N.signalLatency: signalLatency,
            N.stopLatencyClient: stopLatencyClient, N.stopLatencyBackend: stopLatencyBackend,
            N.requestLatency: requestLatency, N.queueTime: queueTime, N.serviceTime: serviceTime,
            N.inFlight: inFlight, N.scheduleLag: scheduleLag, N.timerLateness: timerLateness, N.inputLag: inputLag,
        ]
        return MetricSet(counters: counters, maxima: maxima, histograms: histograms)
    }
}
