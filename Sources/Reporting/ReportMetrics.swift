/// Every metric name the reports read from a `MetricSet`, in one place.
///
/// The Recorder (Measurement's `MetricName`) owns the definitions (docs/metrics.md) and names
/// the metrics; reports only read them. The names are repeated here as literals, some under
/// other Swift names than `MetricName`'s (`debounceChurn` for `task_churn`); the time-series
/// names (`timeline_*`) are the ones the Recorder's `Timeline` writes.
public enum ReportMetrics {
    // MARK: Counters (Int64, summed across shards)

    /// Keystrokes typed (every raw text change).
    public static let keystrokes = "keystrokes"
    /// Settles: ends of typing bursts (docs/metrics.md, "Settles").
    public static let settles = "settles"
    /// Distinct queries the strategy committed to search for (summed over settles).
    public static let committedQueries = "distinct_commits"
    /// Requests sent to the backend.
    public static let requestsStarted = "requests_started"
    /// Requests that completed (an answer arrived), whether applied or not.
    public static let requestsCompleted = "requests_completed"
    /// Debounce waits cancelled before they sent anything ("task churn", no backend cost).
    public static let debounceChurn = "task_churn"
    /// Applies of request i after an apply of a later request j > i (must be 0).
    public static let outOfOrderApplies = "out_of_order_applies"
    /// Settles whose final screen did not show the results of the settled query.
    public static let staleSettles = "stale_settles"
    /// Total nanoseconds the display showed results(q) while the field's text was not q.
    public static let mismatchNanos = "mismatch_ns"
    /// Settles that never showed fresh results (TTFR infinite; not in the TTFR histogram).
    public static let neverFresh = "never_fresh_settles"
    /// Client-side service time of all requests, and of the wasted ones, in nanoseconds.
    public static let clientServiceNanos = "client_ns_total"
    public static let clientWastedNanos = "wasted_client_ns"
    /// Backend-side service time of all requests, and of the wasted ones, in nanoseconds.
    public static let backendServiceNanos = "service_ns_total"
    public static let backendWastedNanos = "wasted_service_ns"
    /// Items scanned by the backend, all requests and wasted ones.
    public static let itemsScanned = "items_scanned"
    /// Requests whose work was wasted (obsolete, cancelled, failed or never applied).
    public static let wastedRequests = "wasted_requests"
    public static let itemsScannedWasted = "wasted_items"
    /// Display changes, blinks (states visible < 200 ms) and false empties, summed over settles.
    public static let displayChanges = "display_changes"
    public static let blinks = "blinks"
    public static let falseEmpties = "false_empties"
    /// Total session time over typists (first keystroke to session end), nanoseconds.
    public static let sessionNanos = "session_ns"
    /// Requests that failed, by reason: prefix + reason ("errors_timeout", ...).
    public static let errorPrefix = "errors_"
    /// The embedded server's own counters ("server_requests", ...): a group with these and no
    /// keystrokes measures the server, not a strategy, and the report shows it apart.
    public static let serverPrefix = "server_"

    // MARK: Maxima

    /// Most requests in flight at once.
    public static let inFlightMax = "max_in_flight"
    /// Virtual or wall time at which the run ended, nanoseconds since its start.
    public static let runEndNanos = "run_end_ns"

    // MARK: Histograms

    /// Time to fresh results per settle, nanoseconds (finite ones only).
    public static let ttfr = "ttfr_ns"
    /// Request latency from the intended send to completion, nanoseconds.
    public static let requestLatency = "request_latency_ns"
    /// Requests started per settle (`Histogram.Configuration.counts`).
    public static let fanOutPerSettle = "fanout_per_settle"
    /// Cancellation signal latency: cancelRequested − the input change that obsoleted the work.
    public static let cancelSignal = "cancel_signal_ns"
    /// Cancellation stop latency, client side and backend side.
    public static let cancelStopClient = "cancel_stop_client_ns"
    public static let cancelStopBackend = "cancel_stop_backend_ns"

    // MARK: Time series

    /// Time series are stored in the ordinary counters so they merge like everything else:
    /// `timeline_<series>.<bucket index>` holds the sum for that bucket, and the maximum
    /// `timeline_bucket_ns` gives the bucket width (equal on every shard, so "max" keeps it).
    public static let timelinePrefix = "timeline_"
    public static let timelineBucketNanos = "timeline_bucket_ns"
    /// Requests completed in the bucket (summed across shards gives the run's throughput).
    public static let timelineCompleted = "completed"
    /// Requests started in the bucket.
    public static let timelineStarted = "started"
    /// Integral of the in-flight count over the bucket, in request·nanoseconds; divided by the
    /// bucket width it is the mean in-flight count, and it adds across shards.
    public static let timelineInFlightNanos = "in_flight_ns"

    // MARK: Group labels

    /// Labels of sweep grid points.
    public static let labelDebounce = "debounceMs"
    public static let labelMinLength = "minLength"
    public static let labelPopulation = "population"
    /// The population's share of the scenario's mix, and the replicate (seed) of a sweep run.
    public static let labelShare = "share"
    public static let labelReplicate = "replicate"
}
