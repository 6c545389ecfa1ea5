import TypestormMetrics

/// A per-bucket time series read from a metric set (see `MetricName.timelinePrefix`).
package struct Timeline: Sendable, Equatable {
    /// Width of one bucket in nanoseconds.
    package var bucketNanos: Int64
    /// Values by series name (`MetricName.timelineCompleted`, …), one per bucket from bucket 0
    /// to the last bucket any series used; buckets a series never wrote hold 0.
    package var series: [String: [Int64]]

    package init(bucketNanos: Int64, series: [String: [Int64]]) {
        self.bucketNanos = bucketNanos
        self.series = series
    }

    /// Number of buckets.
    package var count: Int { series.values.map(\.count).max() ?? 0 }

    /// Reads the time series from `metrics`; `nil` when the record has none.
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
        var dense: [String: [Int64]] = [:]
        for (name, values) in sparse {
            var row = [Int64](repeating: 0, count: last + 1)
            for (index, value) in values { row[index] = value }
            dense[name] = row
        }
        self.init(bucketNanos: width, series: dense)
    }

    /// Completed requests per second in each bucket.
    package var throughputPerSecond: [Double]? {
        series[MetricName.timelineCompleted].map { $0.map { Double($0) * 1e9 / Double(bucketNanos) } }
    }

    /// Mean number of requests in flight in each bucket.
    package var meanInFlight: [Double]? {
        series[MetricName.timelineInFlight].map { $0.map { Double($0) / Double(bucketNanos) } }
    }

    /// Start of each bucket in seconds since the run began.
    package var bucketStartsSeconds: [Double] {
        (0..<count).map { Double($0) * Double(bucketNanos) / 1e9 }
    }
}
