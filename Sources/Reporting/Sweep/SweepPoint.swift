import Measurement

/// One grid point of a debounce sweep and the numbers the trade-off curves use.
public struct SweepPoint: Sendable, Equatable {
    public var debounceMs: Int
    public var minLength: Int
    /// Typist population label ("desktop-en", "mobile-ko", ...); empty when the sweep has one.
    public var population: String
    /// Requests per search (settle).
    public var fanOut: Double
    /// Wasted share of service time (backend view where known, else client view).
    public var wastedShare: Double?
    /// Time to fresh results, nanoseconds.
    public var ttfrP50: Double?
    public var ttfrP95: Double?
    /// Share of searches whose final screen was wrong.
    public var staleShare: Double
    /// Out-of-order applies per search.
    public var outOfOrderPerSettle: Double

    public init(debounceMs: Int, minLength: Int, population: String = "", fanOut: Double, wastedShare: Double?,
                ttfrP50: Double?, ttfrP95: Double?, staleShare: Double = 0, outOfOrderPerSettle: Double = 0) {
        self.debounceMs = debounceMs
        self.minLength = minLength
        self.population = population
        self.fanOut = fanOut
        self.wastedShare = wastedShare
        self.ttfrP50 = ttfrP50
        self.ttfrP95 = ttfrP95
        self.staleShare = staleShare
        self.outOfOrderPerSettle = outOfOrderPerSettle
    }

    /// Reads a grid point from a metric group labelled `debounceMs` (and optionally `minLength`,
    /// `population`); `nil` for groups that are not grid points.
    public init?(_ summary: StrategySummary) {
        guard let debounceText = summary.labels[ReportMetrics.labelDebounce], let debounce = Int(debounceText),
              let fanOut = summary.fanOutMean else { return nil }
        self.init(
            debounceMs: debounce,
            minLength: summary.labels[ReportMetrics.labelMinLength].flatMap { Int($0) } ?? 1,
            population: summary.labels[ReportMetrics.labelPopulation] ?? "",
            fanOut: fanOut,
            wastedShare: summary.backendWastedShare ?? summary.clientWastedShare,
            ttfrP50: summary.ttfr?.percentile(50).map(Double.init),
            ttfrP95: summary.ttfr?.percentile(95).map(Double.init),
            staleShare: summary.staleShare ?? 0,
            outOfOrderPerSettle: summary.settles > 0 ? Double(summary.outOfOrderApplies) / Double(summary.settles) : 0)
    }

    /// `150 ms, min length 2`.
    public var gridDescription: String {
        "debounce \(debounceMs) ms, min length \(minLength)"
    }
}

extension RunRecord {
    /// The sweep grid points of this record (groups labelled with a debounce interval).
    public var sweepPoints: [SweepPoint] { summaries.compactMap(SweepPoint.init) }
}
