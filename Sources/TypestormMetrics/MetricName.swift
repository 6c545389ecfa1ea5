/// Every metric name, in one place: the names under which `Recorder.metrics()` reports
/// (defined in docs/metrics.md), the embedded server's `server_*` counters, and the timeline's
/// counters. Runners write them; the driver's progress line, the summary and the reports read them.
///
/// Times are nanoseconds, counts are plain numbers. Ratios (per keystroke, shares, rates) are
/// not stored: they are derived from these at report time so that merging stays exact.
public enum MetricName {
    // Counters (Int64, summed across shards).
    /// Keystrokes typed (every raw text change).
    public static let keystrokes = "keystrokes"
    public static let submits = "submits"
    /// Settles: ends of typing bursts (docs/metrics.md, "Settles").
    public static let settles = "settles"
    public static let commits = "commits"
    public static let cachedCommits = "commits_cached"
    /// Distinct queries the strategy committed to search for: the sum over settles of the
    /// distinct queries committed in each.
    public static let distinctCommits = "distinct_commits"
    /// Requests sent to the backend.
    public static let requestsStarted = "requests_started"
    /// Requests that completed (an answer arrived), whether applied or not.
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
    /// Applies of request i after an apply of a later request j > i (must be 0).
    public static let outOfOrderApplies = "out_of_order_applies"
    /// Settles whose final screen did not show the results of the settled query.
    public static let staleSettles = "stale_settles"
    /// Settles that never showed fresh results (TTFR infinite; not in the TTFR histogram).
    public static let neverFresh = "never_fresh_settles"
    /// Total nanoseconds the display showed results(q) while the field's text was not q.
    public static let mismatchNs = "mismatch_ns"
    /// Sum over typists of session length (first keystroke to session end).
    public static let sessionNs = "session_ns"
    /// Backend-side service time of all requests, and of the wasted ones.
    public static let serviceNs = "service_ns_total"
    public static let wastedServiceNs = "wasted_service_ns"
    /// Client-side service time of all requests, and of the wasted ones.
    public static let clientNs = "client_ns_total"
    public static let wastedClientNs = "wasted_client_ns"
    /// Items scanned by the backend, all requests and wasted ones.
    public static let itemsScanned = "items_scanned"
    public static let wastedItems = "wasted_items"
    /// Requests whose work was wasted (obsolete, cancelled, failed or never applied).
    public static let wastedRequests = "wasted_requests"
    /// Display changes, blinks (states visible < 200 ms) and false empties, summed over settles.
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
    /// Virtual or wall time at which the run ended, nanoseconds since its start.
    public static let runEndNs = "run_end_ns"
    /// Most requests in flight at once.
    public static let maxInFlight = "max_in_flight"
    public static let peakRSS = "peak_rss_bytes"
    // Histograms.
    /// Requests started per settle (`Histogram.Configuration.counts`).
    public static let fanOutPerSettle = "fanout_per_settle"
    public static let displayChangesPerSettle = "display_changes_per_settle"
    public static let blinksPerSettle = "blinks_per_settle"
    /// Time to fresh results per settle (finite ones only).
    public static let timeToFresh = "ttfr_ns"
    /// Cancellation signal latency: cancelRequested − the input change that obsoleted the work.
    public static let signalLatency = "cancel_signal_ns"
    /// Cancellation stop latency, client side and backend side.
    public static let stopLatencyClient = "cancel_stop_client_ns"
    public static let stopLatencyBackend = "cancel_stop_backend_ns"
    /// Request latency from the intended send to completion.
    public static let requestLatency = "request_latency_ns"
    /// The backend's queue and service time per request (the modelled backend's or the
    /// engine's; not the embedded server's counters below).
    public static let queueTime = "server_queue_ns"
    public static let serviceTime = "server_service_ns"
    public static let inFlight = "in_flight"
    public static let scheduleLag = "schedule_lag_ns"
    public static let timerLateness = "timer_lateness_ns"
    public static let inputLag = "input_lag_ns"

    // Time series (see `Timeline`): stored in the ordinary counters so they merge like
    // everything else, `<series>.<bucket index>` holding the sum for that bucket.
    /// Maximum: the width of the timeline's buckets (equal on every shard, so "max" keeps it).
    public static let timelineBucket = "timeline_bucket_ns"
    /// What every timeline series name starts with.
    public static let timelinePrefix = "timeline_"
    /// Series: requests started in the bucket.
    public static let timelineStarted = "timeline_started"
    /// Series: requests completed in the bucket (summed across shards: the run's throughput).
    public static let timelineCompleted = "timeline_completed"
    /// Series: the integral of the in-flight count over the bucket, in request·nanoseconds;
    /// divided by the bucket width it is the mean in-flight count, and it adds across shards.
    public static let timelineInFlight = "timeline_in_flight_ns"

    // The embedded search server's counters (group `server`, label `runner=http-embedded`): a
    // group with these and no keystrokes measures the server, not a strategy.
    /// What every server counter starts with.
    public static let serverPrefix = "server_"
    /// Search requests the server received, and those it answered 200.
    public static let serverRequests = "server_requests"
    public static let serverOK = "server_ok"
    /// Searches whose client went away, noticed by the server and stopped.
    public static let serverCancelled = "server_cancelled"
    /// Items examined by all searches, and by the searches whose client went away.
    public static let serverItemsScanned = "server_items_scanned"
    public static let serverWastedItems = "server_wasted_items"
    /// Service time spent on searches whose client went away.
    public static let serverWastedNs = "server_wasted_ns"
    /// Requests refused for overload (503 with Retry-After).
    public static let serverOverloadRejections = "server_overload_rejections"
    /// Connections accepted.
    public static let serverConnections = "server_connections"
    /// CPU time of the server (the driver's process minus the driver thread), and of the
    /// reaped worker processes, recorded beside the server's counters.
    public static let serverCPUNs = "server_cpu_ns"
    public static let workersCPUNs = "workers_cpu_ns"

    // The typing probe's (group `probe`): how faithfully this machine replays typing.
    /// Typists and queries the probe typed.
    public static let probeTypists = "typists"
    public static let probeQueries = "queries"
    /// Histograms: the intervals between the probe's keys, and how late each key was typed.
    public static let probeInterKey = "probe.iki"
    public static let probeLag = "probe.lag"
}
