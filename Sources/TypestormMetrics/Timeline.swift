/// Requests over time, in fixed buckets: started, completed, and the integral of the number in
/// flight, so a report can draw throughput and concurrency against time.
///
/// Stored in the metric set as counters `timeline_started.<i>`, `timeline_completed.<i>` and
/// `timeline_in_flight_ns.<i>` (request·nanoseconds in bucket `i`; divided by the bucket width it
/// is the mean number in flight), plus the maximum `timeline_bucket_ns`. Counters add, so shards
/// and workers merge into the timeline of the whole run. Empty buckets are left out.
struct Timeline: Sendable {
    static let bucketNanos: Int64 = 1_000_000_000
    /// Runs longer than this many buckets pile their tail into the last one.
    static let maximumBuckets = 3_600

    private(set) var started: [Int64] = []
    private(set) var completed: [Int64] = []
    private(set) var inFlightNanos: [Int64] = []

    static func bucket(_ time: Int64) -> Int {
        Int(min(max(0, time) / bucketNanos, Int64(maximumBuckets - 1)))
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
        grow(to: last)
        if didComplete { completed[last] += 1 }
        var from = max(0, start)
        var bucket = Self.bucket(from)
        while from < end {
            let bucketEnd = bucket == Self.maximumBuckets - 1 ? end : min(end, Int64(bucket + 1) * Self.bucketNanos)
            inFlightNanos[bucket] += bucketEnd - from
            from = bucketEnd
            bucket += 1
        }
    }

    func write(into counters: inout [String: Int64], maxima: inout [String: Int64]) {
        guard !started.isEmpty else { return }
        maxima[MetricName.timelineBucket] = Self.bucketNanos
        for index in started.indices {
            if started[index] != 0 { counters["\(MetricName.timelineStarted).\(index)"] = started[index] }
            if completed[index] != 0 { counters["\(MetricName.timelineCompleted).\(index)"] = completed[index] }
            if inFlightNanos[index] != 0 { counters["\(MetricName.timelineInFlight).\(index)"] = inFlightNanos[index] }
        }
    }
}
