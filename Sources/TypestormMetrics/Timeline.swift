/// Requests over time, in fixed buckets: started, completed, and the integral of the number in
/// flight, so a report can draw throughput and concurrency against time. The recorder fills one
/// as requests start and stop (`TimelineRecording`); a report reads one back from a metric set
/// (`init?(_:)`).
///
/// Stored in the metric set as counters `timeline_started.<i>`, `timeline_completed.<i>` and
/// `timeline_in_flight_ns.<i>` (request·nanoseconds in bucket `i`; divided by the bucket width it
/// is the mean number in flight), plus the maximum `timeline_bucket_ns`. Counters add, so shards
/// and workers merge into the timeline of the whole run. Empty buckets are left out.
package struct Timeline: Sendable, Equatable {
    /// The bucket width the recorder uses (`TimelineRecording`).
    static let recordedBucketNanos: Int64 = 1_000_000_000
    /// Runs longer than this many buckets pile their tail into the last one.
    static let maximumBuckets = 3_600

    /// Width of one bucket in nanoseconds.
    package private(set) var bucketNanos: Int64
    /// Per bucket, from bucket 0: requests started, requests that delivered an answer, and
    /// request·nanoseconds in flight. A series read back from a metric set that has none of its
    /// counters is empty; the others run to the last bucket any series used (0 where unwritten).
    package private(set) var started: [Int64] = []
    package private(set) var completed: [Int64] = []
    package private(set) var inFlightNanos: [Int64] = []

    /// Reads the timeline from `metrics`; `nil` when the record has none.
    package init?(_ metrics: MetricSet) {
        guard let width = metrics.maxima[MetricName.timelineBucket], width > 0 else { return nil }
        var sparse: [String: [Int: Int64]] = [:]
        var last = -1
        for (name, value) in metrics.counters where name.hasPrefix(MetricName.timelinePrefix) {
            guard let dot = name.lastIndex(of: "."), let index = Int(name[name.index(after: dot)...]), index >= 0, index < 1_000_000 else { continue }
            sparse[String(name[..<dot]), default: [:]][index] = value
            last = max(last, index)
        }
        guard last >= 0 else { return nil }
        func dense(_ name: String) -> [Int64] {
            guard let values = sparse[name] else { return [] }
            var row = [Int64](repeating: 0, count: last + 1)
            for (index, value) in values { row[index] = value }
            return row
        }
        bucketNanos = width
        started = dense(MetricName.timelineStarted)
        completed = dense(MetricName.timelineCompleted)
        inFlightNanos = dense(MetricName.timelineInFlight)
    }

    /// Number of buckets.
    package var count: Int { max(started.count, completed.count, inFlightNanos.count) }

    /// Completed requests per second in each bucket (`nil`: no completions recorded).
    package var throughputPerSecond: [Double]? {
        completed.isEmpty ? nil : completed.map { Double($0) * 1e9 / Double(bucketNanos) }
    }

    /// Mean number of requests in flight in each bucket (`nil`: none recorded).
    package var meanInFlight: [Double]? {
        inFlightNanos.isEmpty ? nil : inFlightNanos.map { Double($0) / Double(bucketNanos) }
    }

    /// Start of each bucket in seconds since the run began.
    package var bucketStartsSeconds: [Double] {
        (0..<count).map { Double($0) * Double(bucketNanos) / 1e9 }
    }
}
