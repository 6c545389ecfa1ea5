/// Requests over time, in fixed buckets: started, completed, and the integral of the number in
/// flight, so a report can draw throughput and concurrency against time. The recorder fills one
/// as requests start and stop; a report reads one back from a metric set (`init?(_:)`).
///
/// Stored in the metric set as counters `timeline_started.<i>`, `timeline_completed.<i>` and
/// `timeline_in_flight_ns.<i>` (request·nanoseconds in bucket `i`; divided by the bucket width it
/// is the mean number in flight), plus the maximum `timeline_bucket_ns`. Counters add, so shards
/// and workers merge into the timeline of the whole run. Empty buckets are left out.
package struct Timeline: Sendable, Equatable {
    /// The bucket width the recorder uses.
    static let recordedBucketNanos: Int64 = 1_000_000_000
    /// Runs longer than this many buckets pile their tail into the last one.
    static let maximumBuckets = 3_600

    /// Width of one bucket in nanoseconds.
    package private(set) var bucketNanos = Timeline.recordedBucketNanos
    /// Per bucket, from bucket 0: requests started, requests that delivered an answer, and
    /// request·nanoseconds in flight. A series read back from a metric set that has none of its
    /// counters is empty; the others run to the last bucket any series used (0 where unwritten).
    package private(set) var started: [Int64] = []
    package private(set) var completed: [Int64] = []
    package private(set) var inFlightNanos: [Int64] = []

    /// An empty timeline for the recorder to fill.
    init() {}

    // MARK: Recording

    static func bucket(_ time: Int64) -> Int {
        Int(min(max(0, time) / recordedBucketNanos, Int64(maximumBuckets - 1)))
    }

    private mutating func grow(to bucket: Int) {
        guard bucket >= started.count else { return }
        let count = bucket + 1
        started.append(contentsOf: repeatElement(0, count: count - started.count))
        completed.append(contentsOf: repeatElement(0, count: count - completed.count))
        inFlightNanos.append(contentsOf: repeatElement(0, count: count - inFlightNanos.count))
    }

    mutating func requestStarted(at time: Int64) {
        let bucket = Self.bucket(time)
        grow(to: bucket)
        started[bucket] += 1
    }

    /// A request that was in flight from `start` to `end` (the client stopped waiting);
    /// `completed`: it delivered an answer.
    mutating func requestStopped(start: Int64, end: Int64, completed didComplete: Bool) {
        let last = Self.bucket(end)
        // Most requests start and stop within one bucket that already exists.
        if start >= 0, start < end, last < started.count, Self.bucket(start) == last {
            if didComplete { completed[last] &+= 1 }
            inFlightNanos[last] &+= end &- start
            return
        }
        grow(to: last)
        if didComplete { completed[last] += 1 }
        var from = max(0, start)
        var bucket = Self.bucket(from)
        while from < end {
            let bucketEnd = bucket == Self.maximumBuckets - 1 ? end : min(end, Int64(bucket + 1) * Self.recordedBucketNanos)
            inFlightNanos[bucket] += bucketEnd - from
            from = bucketEnd
            bucket += 1
        }
    }

    func write(into counters: inout [String: Int64], maxima: inout [String: Int64]) {
        guard !started.isEmpty else { return }
        maxima[MetricName.timelineBucket] = bucketNanos
        for index in started.indices {
            if started[index] != 0 { counters["\(MetricName.timelineStarted).\(index)"] = started[index] }
            if completed[index] != 0 { counters["\(MetricName.timelineCompleted).\(index)"] = completed[index] }
            if inFlightNanos[index] != 0 { counters["\(MetricName.timelineInFlight).\(index)"] = inFlightNanos[index] }
        }
    }

    // MARK: Reading

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
