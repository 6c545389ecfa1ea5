/// Every metric name the reports read from a `MetricSet`, in one place.
///
/// The Recorder (Measurement) owns the definitions (METRICS.md) and names the metrics; reports
/// only read them. Keeping each name here once makes a rename on the Recorder's side a one-line
/// change on ours. Names marked "assumed" were chosen before the Recorder documented its own;
/// see docs/reports.md.
public enum ReportMetrics {
    // MARK: Counters (Int64, summed across shards)

    /// Keystrokes typed (every raw text change).
    public static let keystrokes = "keystrokes"
    /// Settles: ends of typing bursts (METRICS.md, "settle").
    public static let settles = "settles"
    /// Distinct queries the strategy committed to search for.
    public static let committedQueries = "commits"
    /// Requests sent to the backend.
    public static let requestsStarted = "requests.started"
    /// Requests that completed (an answer arrived), whether applied or not.
    public static let requestsCompleted = "requests.completed"
    /// Debounce waits cancelled before they sent anything ("task churn", no backend cost).
    public static let debounceChurn = "debounce.cancelled"
    /// Applies of request i after an apply of a later request j > i (must be 0).
    public static let outOfOrderApplies = "stale.outOfOrderApplies"
    /// Settles whose final screen did not show the results of the settled query.
    public static let staleSettles = "stale.terminalSettles"
    /// Total nanoseconds the display showed results(q) while the field's text was not q.
    public static let mismatchNanos = "stale.mismatchNanos"
    /// Settles that never showed fresh results (TTFR infinite; not in the TTFR histogram).
    public static let neverFresh = "ttfr.never"
    /// Client-side service time of all requests, and of the wasted ones, in nanoseconds.
    public static let clientServiceNanos = "work.client.serviceNanos"
    public static let clientWastedNanos = "work.client.wastedNanos"
    /// Backend-side service time of all requests, and of the wasted ones, in nanoseconds.
    public static let backendServiceNanos = "work.backend.serviceNanos"
    public static let backendWastedNanos = "work.backend.wastedNanos"
    /// Items scanned by the backend, all requests and wasted ones.
    public static let itemsScanned = "work.itemsScanned"
    public static let itemsScannedWasted = "work.itemsScannedWasted"
    /// Display changes, blinks (states visible < 200 ms) and false empties, summed over settles.
    public static let displayChanges = "flicker.displayChanges"
    public static let blinks = "flicker.blinks"
    public static let falseEmpties = "flicker.falseEmpties"
    /// Requests that failed, by reason: prefix + reason ("errors.timeout", ...).
    public static let errorPrefix = "errors."

    // MARK: Maxima

    /// Most requests in flight at once.
    public static let inFlightMax = "inflight.max"

    // MARK: Histograms

    /// Time to fresh results per settle, nanoseconds (finite ones only).
    public static let ttfr = "ttfr"
    /// Request latency from the intended send to completion, nanoseconds.
    public static let requestLatency = "request.latency"
    /// Requests started per settle (`Histogram.Configuration.counts`).
    public static let fanOutPerSettle = "fanout.perSettle"
    /// Cancellation signal latency: cancelRequested − the input change that obsoleted the work.
    public static let cancelSignal = "cancel.signalLatency"
    /// Cancellation stop latency, client side and backend side.
    public static let cancelStopClient = "cancel.stopLatency.client"
    public static let cancelStopBackend = "cancel.stopLatency.backend"

    // MARK: Time series

    /// Time series are stored in the ordinary counters so they merge like everything else:
    /// `timeline.<series>.<bucket index>` holds the sum for that bucket, and the maximum
    /// `timeline.bucketNanos` gives the bucket width (equal on every shard, so "max" keeps it).
    public static let timelinePrefix = "timeline."
    public static let timelineBucketNanos = "timeline.bucketNanos"
    /// Requests completed in the bucket (summed across shards gives the run's throughput).
    public static let timelineCompleted = "completed"
    /// Requests started in the bucket.
    public static let timelineStarted = "started"
    /// Integral of the in-flight count over the bucket, in request·nanoseconds; divided by the
    /// bucket width it is the mean in-flight count, and it adds across shards.
    public static let timelineInFlightNanos = "inflightNanos"

    // MARK: Group labels

    /// Labels of sweep grid points.
    public static let labelDebounce = "debounceMs"
    public static let labelMinLength = "minLength"
    public static let labelPopulation = "population"
}
