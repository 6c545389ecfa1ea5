/// Named, mergeable measurements: counters add, maxima take the larger, histograms merge.
///
/// Everything is integral (nanoseconds, counts, bytes), so merging shards in any order gives
/// exactly the same numbers as recording in one place. Metric names are documented where they
/// are recorded (the Recorder); reports read them by name.
public struct MetricSet: Sendable, Equatable, Codable {
    public var counters: [String: Int64]
    public var maxima: [String: Int64]
    public var histograms: [String: Histogram]

    public init(counters: [String: Int64] = [:], maxima: [String: Int64] = [:], histograms: [String: Histogram] = [:]) {
        self.counters = counters
        self.maxima = maxima
        self.histograms = histograms
    }

    public var isEmpty: Bool { counters.isEmpty && maxima.isEmpty && histograms.isEmpty }

    public mutating func add(_ name: String, _ amount: Int64 = 1) {
        counters[name, default: 0] += amount
    }

    public mutating func raiseMaximum(_ name: String, to value: Int64) {
        if let current = maxima[name], current >= value { return }
        maxima[name] = value
    }

    public mutating func record(_ name: String, _ value: Int64, configuration: Histogram.Configuration = .latency) {
        if histograms[name] == nil { histograms[name] = Histogram(configuration) }
        histograms[name]!.record(value)
    }

    public func counter(_ name: String) -> Int64 { counters[name] ?? 0 }

    public mutating func merge(_ other: MetricSet) throws(MergeError) {
        for (name, value) in other.counters { counters[name, default: 0] += value }
        for (name, value) in other.maxima { raiseMaximum(name, to: value) }
        for (name, histogram) in other.histograms {
            if var mine = histograms[name] {
                try mine.merge(histogram)
                histograms[name] = mine
            } else {
                histograms[name] = histogram
            }
        }
    }
}
