/// The recorder's side of a ``Timeline``: per bucket of `Timeline.recordedBucketNanos`, requests
/// started, requests that delivered an answer, and request·nanoseconds in flight, written into
/// a metric set's counters at the end (`write(into:maxima:)`).
///
/// A bucket's three figures sit side by side in one array, so that a request's start or stop
/// checks one array for uniqueness, where three arrays made it two per stop.
///
/// - Complexity: `requestStarted` O(1) amortized; `requestStopped` O(1) for a request within one
///   bucket, O(buckets it spans) otherwise.
struct TimelineRecording: Sendable {
    struct Bucket: Sendable {
        var started: Int64 = 0
        var completed: Int64 = 0
        var inFlightNanos: Int64 = 0
    }

    /// From bucket 0 to the last one any request touched.
    private(set) var buckets: [Bucket] = []

    static func bucket(_ time: Int64) -> Int {
        Int(min(max(0, time) / Timeline.recordedBucketNanos, Int64(Timeline.maximumBuckets - 1)))
    }

    private mutating func grow(to bucket: Int) {
        guard bucket >= buckets.count else { return }
        buckets.append(contentsOf: repeatElement(Bucket(), count: bucket + 1 - buckets.count))
    }

    /// Inlined into the recorder's bookkeeping, as is `requestStopped`'s common case: the calls
    /// cost as much as the counting.
    @inline(__always)
    mutating func requestStarted(at time: Int64) {
        let bucket = Self.bucket(time)
        if bucket >= buckets.count { grow(to: bucket) }
        buckets[bucket].started &+= 1
    }

    /// A request that was in flight from `start` to `end` (the client stopped waiting);
    /// `completed`: it delivered an answer.
    @inline(__always)
    mutating func requestStopped(start: Int64, end: Int64, completed didComplete: Bool) {
        let last = Self.bucket(end)
        // Most requests start and stop within one bucket that already exists.
        if start >= 0, start < end, last < buckets.count, Self.bucket(start) == last {
            Self.add(&buckets[last], completed: didComplete, inFlight: end &- start)
        } else {
            requestStoppedAcrossBuckets(start: start, end: end, completed: didComplete)
        }
    }

    /// `requestStopped` for a request that spans buckets or stops past the last one.
    @inline(never)
    private mutating func requestStoppedAcrossBuckets(start: Int64, end: Int64, completed didComplete: Bool) {
        let last = Self.bucket(end)
        grow(to: last)
        if didComplete { buckets[last].completed += 1 }
        var from = max(0, start)
        var bucket = Self.bucket(from)
        while from < end {
            let bucketEnd = bucket == Timeline.maximumBuckets - 1 ? end : min(end, Int64(bucket + 1) * Timeline.recordedBucketNanos)
            buckets[bucket].inFlightNanos += bucketEnd - from
            from = bucketEnd
            bucket += 1
        }
    }

    /// One access to the bucket, so one uniqueness check.
    @inline(__always)
    private static func add(_ bucket: inout Bucket, completed: Bool, inFlight: Int64) {
        if completed { bucket.completed &+= 1 }
        bucket.inFlightNanos &+= inFlight
    }

    /// The counters and the bucket width as a metric set holds them (see ``Timeline``); nothing
    /// when no request started or stopped.
    func write(into counters: inout [String: Int64], maxima: inout [String: Int64]) {
        guard !buckets.isEmpty else { return }
        maxima[MetricName.timelineBucket] = Timeline.recordedBucketNanos
        for (index, bucket) in buckets.enumerated() {
            if bucket.started != 0 { counters["\(MetricName.timelineStarted).\(index)"] = bucket.started }
            if bucket.completed != 0 { counters["\(MetricName.timelineCompleted).\(index)"] = bucket.completed }
            if bucket.inFlightNanos != 0 { counters["\(MetricName.timelineInFlight).\(index)"] = bucket.inFlightNanos }
        }
    }
}
