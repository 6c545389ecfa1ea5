/// The names under which `Recorder.metrics()` reports (defined in docs/metrics.md); drivers and
/// reports read them.
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
