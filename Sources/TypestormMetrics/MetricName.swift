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
    /// Counter: submits (the typist pressed Enter or otherwise submitted the query).
    public static let submits = "submits"
    /// Settles: ends of typing bursts (docs/metrics.md, "Settles").
    public static let settles = "settles"
    /// Counter: queries the strategy committed to search for (from its cache or the backend); the
    /// denominator of ``DerivedMetrics/cacheHitRate``.
    public static let commits = "commits"
    /// Counter: commits answered from the client's own cache, without a request.
    public static let cachedCommits = "commits_cached"
    /// Distinct queries the strategy committed to search for: the sum over settles of the
    /// distinct queries committed in each.
    public static let distinctCommits = "distinct_commits"
    /// Requests sent to the backend.
    public static let requestsStarted = "requests_started"
    /// Requests that completed (an answer arrived), whether applied or not.
    public static let requestsCompleted = "requests_completed"
    /// Counter: requests the strategy asked to cancel.
    public static let requestsCancelled = "requests_cancel_requested"
    /// Counter: cancelled requests whose stop the client observed (the cancellation took effect).
    public static let cancelsObserved = "requests_cancel_observed"
    /// Counter: requests that failed on the server's side (a non-2xx status, a modelled server
    /// error, a 2xx without a count); the coarse class of ``ErrorCause``.
    public static let serverErrors = "errors_server"
    /// Counter: requests that failed for want of an answer within the timeout.
    public static let timeouts = "errors_timeout"
    /// Counter: requests that failed in transport (refused, reset, DNS, TLS, ...).
    public static let transportErrors = "errors_transport"
    /// Counter: requests still open when the run ended; they count as wasted.
    public static let unfinishedRequests = "requests_unfinished"
    /// Counter: completed responses the strategy threw away instead of applying.
    public static let discards = "responses_discarded"
    /// Counter: debounce waits started.
    public static let debounceWaits = "debounce_waits"
    /// Debounce waits cancelled before they sent anything (no backend cost).
    public static let taskChurn = "task_churn"
    /// Cancels of work that was still current (no input change had made it obsolete).
    public static let cancelsWhileCurrent = "cancels_while_current"
    /// Counter: responses the strategy applied to the screen (results, empty or error).
    public static let applies = "applies"
    /// Applies of request i after an apply of a later request j > i (must be 0).
    public static let outOfOrderApplies = "out_of_order_applies"
    /// Settles whose final screen did not show the results of the settled query.
    public static let staleSettles = "stale_settles"
    /// Settles whose final screen showed the answer (results or empty) for another query than
    /// the field's: a subset of `staleSettles`, the searches that ended on an older answer.
    public static let olderAnswerSettles = "older_answer_settles"
    /// Settles that never showed fresh results (TTFR infinite; not in the TTFR histogram).
    public static let neverFresh = "never_fresh_settles"
    /// Settles whose screen was already right at the burst's last keystroke and stayed so: they
    /// needed no answer and are not in the TTFR histogram (derived `already_fresh_share`).
    public static let alreadyFreshSettles = "already_fresh_settles"
    /// Total nanoseconds the display showed results(q) while the field's text was not q.
    public static let mismatchNs = "mismatch_ns"
    /// Sum over typists of session length (first keystroke to session end).
    public static let sessionNs = "session_ns"
    /// Backend-side service time of all requests, and of the wasted ones.
    public static let serviceNs = "service_ns_total"
    /// Counter: nanoseconds of backend service time spent on wasted requests (part of
    /// ``serviceNanos``).
    public static let wastedServiceNs = "wasted_service_ns"
    /// Client-side service time of all requests, and of the wasted ones.
    public static let clientNs = "client_ns_total"
    /// Counter: nanoseconds of client time (request start to client stop) spent on wasted requests
    /// (part of ``clientNs``).
    public static let wastedClientNs = "wasted_client_ns"
    /// Items scanned by the backend, all requests and wasted ones.
    public static let itemsScanned = "items_scanned"
    /// Counter: items the backend scanned for wasted requests (part of ``itemsScanned``).
    public static let wastedItems = "wasted_items"
    /// Requests whose work was wasted (obsolete, cancelled, failed or never applied).
    public static let wastedRequests = "wasted_requests"
    /// Display changes, blinks (states visible < 200 ms) and false empties, summed over settles.
    public static let displayChanges = "display_changes"
    /// Counter: screen states replaced less than 200 ms after they appeared, summed over settles.
    public static let blinks = "blinks"
    /// Counter: empty or error screens for a query the field did not ask for, or caused by applying
    /// a cancelled request, summed over settles.
    /// Absent when any answer came without a count (see ``answersWithoutCount``): an empty
    /// screen cannot be told from a full one then.
    public static let falseEmpties = "false_empties"
    /// Counter: answers that came without a result count (an API whose answers carry none where
    /// one was looked for); present only when above 0, and then ``falseEmpties`` is absent.
    public static let answersWithoutCount = "answers_without_count"
    /// Counter: text changes a write-back field made to its own input.
    public static let writeBackChanges = "writeback_changes"
    /// Counter: times a write-back re-entered the field's change handler.
    public static let writeBackReentries = "writeback_reentries"
    /// Counter: write-back loops stopped at the re-entry bound.
    public static let writeBackRunaways = "writeback_runaways"
    /// Counter: input-method compositions a write-back broke.
    public static let compositionBreaks = "composition_breaks"
    /// Counter: CPU time of the live load generator's worker process during the phase, in
    /// nanoseconds, summed over workers (shared by the strategies that ran at once in it);
    /// recorded by live runners only, absent in virtual time (no process to measure).
    public static let cpuNs = "cpu_ns"
    /// Counter: bytes the live load generator's heap held at the end of the phase (jemalloc's
    /// `stats.allocated`), summed over workers; live runners only, absent in virtual time and on
    /// the system allocator.
    public static let allocatedBytes = "allocated_bytes"
    // Maxima.
    /// Virtual or wall time at which the run ended, nanoseconds since its start.
    public static let runEndNs = "run_end_ns"
    /// Most requests in flight at once.
    public static let maxInFlight = "max_in_flight"
    /// Maximum: the live load generator's peak resident set size, in bytes (live runners only,
    /// absent in virtual time).
    public static let peakRSS = "peak_rss_bytes"
    // Histograms.
    /// Requests started per settle (`Histogram.Configuration.counts`).
    public static let fanOutPerSettle = "fanout_per_settle"
    /// Histogram (`Histogram.Configuration.counts`): display changes during each burst.
    public static let displayChangesPerSettle = "display_changes_per_settle"
    /// Histogram (`Histogram.Configuration.counts`): blinks during each burst.
    public static let blinksPerSettle = "blinks_per_settle"
    /// Time to fresh results per settle that needed an answer (the screen was not already right
    /// at the last keystroke) and got one; finite ones only.
    public static let timeToFresh = "ttfr_ns"
    /// Cancellation signal latency: cancelRequested − the input change that obsoleted the work.
    public static let signalLatency = "cancel_signal_ns"
    /// Cancellation stop latency, client side and backend side.
    public static let stopLatencyClient = "cancel_stop_client_ns"
    /// Histogram, nanoseconds: cancel requested → the backend stopped working on the request. Empty
    /// where no cancelled request reached a backend that reports its stop.
    public static let stopLatencyBackend = "cancel_stop_backend_ns"
    /// Request latency from the intended send to completion.
    public static let requestLatency = "request_latency_ns"
    /// The backend's queue and service time per request (the modelled backend's or the
    /// engine's; not the embedded server's counters below).
    public static let queueTime = "server_queue_ns"
    /// Histogram, nanoseconds: the backend's service time per request.
    public static let serviceTime = "server_service_ns"
    /// Histogram (`Histogram.Configuration.counts`): the typist's open requests, sampled at each
    /// request start.
    public static let inFlight = "in_flight"
    /// Histogram, nanoseconds: how much later than the strategy asked each request left (coordinated
    /// omission made visible); 0 in virtual time.
    public static let scheduleLag = "schedule_lag_ns"
    /// Histogram, nanoseconds: how late debounce and other timers fired.
    public static let timerLateness = "timer_lateness_ns"
    /// Histogram, nanoseconds: how late keystrokes were handled after their intended time.
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
    /// Counter: search requests the embedded server answered with 200.
    public static let serverOK = "server_ok"
    /// Searches whose client went away, noticed by the server and stopped.
    public static let serverCancelled = "server_cancelled"
    /// Items examined by all searches, and by the searches whose client went away.
    public static let serverItemsScanned = "server_items_scanned"
    /// Counter: items examined by server searches whose client went away.
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
    /// Counter: CPU time of the reaped worker processes, in nanoseconds, recorded beside the server's
    /// counters.
    public static let workersCPUNs = "workers_cpu_ns"

    // The typing probe's (group `probe`): how faithfully this machine replays typing.
    /// Typists and queries the probe typed.
    public static let probeTypists = "typists"
    /// Counter: queries the typing probe typed.
    public static let probeQueries = "queries"
    /// Histograms: the intervals between the probe's keys, and how late each key was typed.
    public static let probeInterKey = "probe.iki"
    /// Histogram, nanoseconds: how late the probe typed each key after its intended time.
    public static let probeLag = "probe.lag"
}
