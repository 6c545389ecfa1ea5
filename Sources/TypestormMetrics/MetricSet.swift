/// Named, mergeable measurements: counters add, maxima take the larger, histograms merge.
///
/// Everything is integral (nanoseconds, counts, bytes), so merging shards in any order gives
/// exactly the same numbers as recording in one place. Metric names are documented where they
/// are recorded (the Recorder); reports read them by name.
public struct MetricSet: Sendable, Equatable, Codable {
    /// Counters by ``MetricName``: summed when sets merge. A name that was never counted is absent,
    /// which ``counter(_:)`` reads as 0.
    public var counters: [String: Int64]
    /// Maxima by ``MetricName`` (such as ``MetricName/runEndNs``): the larger value wins when sets
    /// merge. Absent when never raised.
    public var maxima: [String: Int64]
    /// Histograms by ``MetricName``: added bucket by bucket when sets merge. Absent when nothing was
    /// recorded under the name.
    public var histograms: [String: Histogram]
    /// The first search of each flaw kind (`FlawKind` raw values: `older_answer`, `out_of_order`,
    /// `never_fresh`): the smallest (time, typist) wins when sets merge. `nil` when none was
    /// seen, and in records written before examples existed.
    public var examples: [String: FlawExample]? = nil

    /// A set holding the given counters, maxima and histograms (all empty by default).
    public init(counters: [String: Int64] = [:], maxima: [String: Int64] = [:], histograms: [String: Histogram] = [:]) {
        self.counters = counters
        self.maxima = maxima
        self.histograms = histograms
    }

    /// True when the set holds no counter, maximum or histogram at all.
    public var isEmpty: Bool { counters.isEmpty && maxima.isEmpty && histograms.isEmpty }

    /// Adds `amount` (1 by default) to counter `name`, creating it at 0 first.
    public mutating func add(_ name: String, _ amount: Int64 = 1) {
        counters[name, default: 0] += amount
    }

    /// Raises maximum `name` to `value` if it is absent or lower.
    public mutating func raiseMaximum(_ name: String, to value: Int64) {
        if let current = maxima[name], current >= value { return }
        maxima[name] = value
    }

    /// Records `value` into histogram `name`, creating it with `configuration` (latencies in
    /// nanoseconds by default) on first use.
    public mutating func record(_ name: String, _ value: Int64, configuration: Histogram.Configuration = .latency) {
        if histograms[name] == nil { histograms[name] = Histogram(configuration) }
        histograms[name]!.record(value)
    }

    /// Counter `name`, or 0 when it is absent. Use ``counters`` directly where absent and 0 must be
    /// told apart.
    public func counter(_ name: String) -> Int64 { counters[name] ?? 0 }

    /// Adds `other` into this set: counters summed, maxima maximised, histograms merged (a
    /// counter one side could not measure, such as false empties when answers came without a
    /// count, stays absent). Throws
    /// ``MergeError/incompatibleHistograms(_:_:)`` when two histograms of one name differ in shape.
    public mutating func merge(_ other: MetricSet) throws(MergeError) {
        for (name, value) in other.counters { counters[name, default: 0] += value }
        if counters[MetricName.answersWithoutCount, default: 0] > 0 { counters[MetricName.falseEmpties] = nil }
        for (name, value) in other.maxima { raiseMaximum(name, to: value) }
        for (name, histogram) in other.histograms {
            if var mine = histograms[name] {
                try mine.merge(histogram)
                histograms[name] = mine
            } else {
                histograms[name] = histogram
            }
        }
        if let theirs = other.examples {
            var mine = examples ?? [:]
            for (kind, example) in theirs where mine[kind].map({ example.precedes($0) }) ?? true { mine[kind] = example }
            examples = mine
        }
    }
}
