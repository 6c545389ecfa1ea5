import TypestormMetrics

/// One run of a sweep: one setting (strategy, interval, minimum length) for one typist
/// population and one replicate, and the numbers the analysis uses.
package struct SweepPoint: Sendable, Equatable {
    /// The strategy's name in the scenario (a preset name unless the scenario names it).
    package var strategy: String = ""
    package var debounceMs: Int
    package var minLength: Int
    /// Typist population label ("desktop-en", "mobile-ko", ...); empty when the sweep has one.
    package var population: String = ""
    /// The population's share of the scenario's mix, its weight in `all` and in its device
    /// class; `nil` when the record does not say (then populations weigh the same).
    package var share: Double?
    /// Which independent replicate (seed) of the grid this run is.
    package var replicate: Int = 0
    /// Requests per search (settle).
    package var fanOut: Double
    /// Wasted share of service time (backend view where known, else client view).
    package var wastedShare: Double?
    /// Time to fresh results, nanoseconds (`nil`: no search got fresh results).
    package var ttfrP50: Double?
    package var ttfrP95: Double?
    /// The time-to-fresh-results histogram, for percentiles of a mix of populations.
    package var ttfr: Histogram?
    /// Share of searches whose final screen was wrong.
    package var staleShare: Double = 0
    /// Share of searches that never showed fresh results.
    package var neverFreshShare: Double = 0
    /// Out-of-order applies per search.
    package var outOfOrderPerSettle: Double = 0

    package var setting: SweepSetting { SweepSetting(strategy: strategy, minLength: minLength, debounceMs: debounceMs) }

    /// `debounce 150 ms, min length 2`.
    package var gridDescription: String {
        "debounce \(debounceMs) ms, min length \(minLength)"
    }
}

extension SweepPoint {
    /// Reads a grid point from a metric group labelled `debounceMs` (and optionally `minLength`,
    /// `population`, `share`, `replicate`); `nil` for groups that are not grid points.
    package init?(_ summary: StrategySummary) {
        guard let debounceText = summary.labels[SweepLabel.debounce], let debounce = Int(debounceText),
              let fanOut = summary.fanOutMean else { return nil }
        self.init(
            summary, strategy: summary.name, debounceMs: debounce,
            minLength: summary.labels[SweepLabel.minLength].flatMap { Int($0) } ?? 1,
            population: summary.labels[SweepLabel.population] ?? "",
            share: summary.labels[SweepLabel.share].flatMap { Double($0) },
            replicate: summary.labels[SweepLabel.replicate].flatMap { Int($0) } ?? 0,
            fanOut: fanOut)
    }

    /// The figures `summary` measured, at the setting, population and replicate given.
    init(_ summary: StrategySummary, strategy: String, debounceMs: Int, minLength: Int, population: String = "", share: Double? = nil,
         replicate: Int = 0, fanOut: Double) {
        self.init(
            strategy: strategy, debounceMs: debounceMs, minLength: minLength, population: population, share: share, replicate: replicate,
            fanOut: fanOut,
            wastedShare: summary.backendWastedShare ?? summary.clientWastedShare,
            ttfrP50: summary.ttfr?.percentile(50).map(Double.init),
            ttfrP95: summary.ttfr?.percentile(95).map(Double.init),
            ttfr: summary.ttfr,
            staleShare: summary.staleShare ?? 0,
            neverFreshShare: summary.neverFreshShare ?? 0,
            outOfOrderPerSettle: summary.settles > 0 ? Double(summary.outOfOrderApplies) / Double(summary.settles) : 0)
    }
}

/// What an app ships: a strategy with a debounce interval and a minimum query length.
package struct SweepSetting: Sendable, Hashable, Comparable {
    package var strategy: String
    package var minLength: Int
    package var debounceMs: Int

    package static func < (a: SweepSetting, b: SweepSetting) -> Bool {
        (a.strategy, a.minLength, a.debounceMs) < (b.strategy, b.minLength, b.debounceMs)
    }

    /// `split-state, debounce 300 ms, min length 2` (without the strategy when it is empty).
    package var description: String {
        (strategy.isEmpty ? "" : "\(strategy), ") + "debounce \(debounceMs) ms, min length \(minLength)"
    }
}

extension RunRecord {
    /// The sweep grid points of this record (groups labelled with a debounce interval).
    package var sweepPoints: [SweepPoint] { summaries.compactMap(SweepPoint.init) }
}
