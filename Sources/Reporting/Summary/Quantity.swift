import TypestormMetrics

/// Which direction of change is good.
public enum Better: String, Sendable, Codable {
    case lower, higher
}

/// One number the reports show and `compare` checks: a metric, or a percentile of one, derived
/// from a `StrategySummary`.
public struct Quantity: Sendable {
    /// Stable identifier used in JSON output and thresholds files: `ttfr.p95`, `stale.share`.
    public var id: String
    /// Plain-language label for tables.
    public var label: String
    /// How the value is formatted (``ValueFormat/format(_:unit:)``).
    public var unit: ValueUnit
    /// Which direction of change `compare` counts as an improvement.
    public var better: Better
    package var value: @Sendable (StrategySummary) -> Double?
    /// For a percentile: which one (99.9) and of which histogram, so `compare` can tell when
    /// too few samples lie beyond it to judge a change.
    package var percentile: (p: Double, histogram: @Sendable (StrategySummary) -> Histogram?)?
    /// For a quantity of counted events: how many happened over how many chances (a share of
    /// events) or over how much exposure (a rate: false empties per search, requests per
    /// keystroke), so `compare` can tell a single run's difference from the sampling noise of a
    /// proportion or of a count. `nil` from the closure when nothing was exposed.
    package var counts: (kind: CountKind, of: @Sendable (StrategySummary) -> (events: Double, base: Double)?)?

    /// What the events of ``counts`` are counted over.
    package enum CountKind: Sendable {
        /// Chances, each taken at most once: a share, at most 1.
        case share
        /// Exposure: a rate, which may exceed 1.
        case rate
    }

    package init(_ id: String, _ label: String, _ unit: ValueUnit, better: Better = .lower, value: @escaping @Sendable (StrategySummary) -> Double?) {
        self.id = id
        self.label = label
        self.unit = unit
        self.better = better
        self.value = value
    }

    /// The `p`th percentile of a histogram of the summary.
    static func percentile(_ id: String, _ label: String, _ unit: ValueUnit, _ p: Double,
                           of histogram: @escaping @Sendable (StrategySummary) -> Histogram?) -> Quantity {
        var quantity = Quantity(id, label, unit) { histogram($0)?.percentile(p).map(Double.init) }
        quantity.percentile = (p, histogram)
        return quantity
    }

    /// A 95 % confidence interval of the percentile from one run's samples, by order statistics
    /// (ranks n·q ± 1.96·√(n·q·(1−q))); `nil` for other quantities or without samples.
    package func confidenceInterval(_ summary: StrategySummary) -> ClosedRange<Double>? {
        guard let percentile, let histogram = percentile.histogram(summary), !histogram.isEmpty else { return nil }
        let n = Double(histogram.totalCount), q = percentile.p / 100
        let spread = 1.96 * (n * q * (1 - q)).squareRoot()
        let low = max(0, (n * q - spread) / n * 100), high = min(100, (n * q + spread + 1) / n * 100)
        guard let lower = histogram.percentile(low), let upper = histogram.percentile(high) else { return nil }
        return Double(lower)...Double(max(lower, upper))
    }

    /// The same quantity, judged as a share of `events` out of `trials` counted events.
    func counting(_ events: @escaping @Sendable (StrategySummary) -> Int64?, of trials: @escaping @Sendable (StrategySummary) -> Int64) -> Quantity {
        counted(.share, events, over: trials)
    }

    /// The same quantity, judged as `events` counted over `exposure` (a rate, which may exceed 1).
    func counting(_ events: @escaping @Sendable (StrategySummary) -> Int64?, per exposure: @escaping @Sendable (StrategySummary) -> Int64) -> Quantity {
        counted(.rate, events, over: exposure)
    }

    private func counted(_ kind: CountKind, _ events: @escaping @Sendable (StrategySummary) -> Int64?,
                         over base: @escaping @Sendable (StrategySummary) -> Int64) -> Quantity {
        var quantity = self
        quantity.counts = (kind, { @Sendable summary in
            guard let count = events(summary), base(summary) > 0 else { return nil }
            return (events: Double(count), base: Double(base(summary)))
        })
        return quantity
    }

    /// The counts of `a` and `b` when this quantity counts events over `kind`.
    private func counts(_ kind: CountKind, _ a: StrategySummary, _ b: StrategySummary) -> (x: (events: Double, base: Double), y: (events: Double, base: Double))? {
        guard let counts, counts.kind == kind, let x = counts.of(a), let y = counts.of(b) else { return nil }
        return (x, y)
    }

    /// Whether two single runs' rates differ by more than the sampling noise of their counts:
    /// given the events of both runs, each event falls in the first run with probability
    /// exposure₁ / (exposure₁ + exposure₂) when the rate is the same (the conditional test of two
    /// Poisson rates), judged at 95 % (|z| ≥ 1.96); `nil` when this is no rate of counted events.
    package func ratesDiffer(_ a: StrategySummary, _ b: StrategySummary) -> Bool? {
        guard case let (x, y)? = counts(.rate, a, b) else { return nil }
        let events = x.events + y.events
        guard events > 0 else { return false }
        let share = x.base / (x.base + y.base)
        let spread = (events * share * (1 - share)).squareRoot()
        guard spread > 0 else { return x.events / x.base != y.events / y.base }
        return abs(x.events - events * share) / spread >= 1.96
    }

    /// Whether two single runs' shares differ by more than sampling noise: a two-proportion z
    /// test at 95 % (|z| ≥ 1.96); `nil` when this is no share of counted events.
    package func sharesDiffer(_ a: StrategySummary, _ b: StrategySummary) -> Bool? {
        guard case let (x, y)? = counts(.share, a, b), x.base > 0, y.base > 0 else { return nil }
        let pooled = (x.events + y.events) / (x.base + y.base)
        let spread = (pooled * (1 - pooled) * (1 / x.base + 1 / y.base)).squareRoot()
        guard spread > 0 else { return x.events / x.base != y.events / y.base }
        return abs(x.events / x.base - y.events / y.base) / spread >= 1.96
    }

    /// Samples beyond the percentile in `summary` (count × (1 − p)); `nil` for other quantities.
    package func tailSamples(_ summary: StrategySummary) -> Double? {
        guard let percentile, let histogram = percentile.histogram(summary) else { return nil }
        return Double(histogram.totalCount) * (1 - percentile.p / 100)
    }

    /// Every quantity, in display order.
    public static let all: [Quantity] = {
        var list: [Quantity] = []
        let percentiles: [(String, Double)] = [("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99), ("p99.9", 99.9)]
        for (suffix, p) in percentiles {
            list.append(.percentile("ttfr.\(suffix)", "time to fresh results \(suffix)", .nanoseconds, p) { $0.ttfr })
        }
        list.append(Quantity("ttfr.neverShare", "searches never fresh", .share) { $0.neverFreshShare }.counting({ $0.neverFresh }, of: { $0.settles }))
        for (suffix, p) in percentiles {
            list.append(.percentile("latency.\(suffix)", "request latency \(suffix)", .nanoseconds, p) { $0.requestLatency })
        }
        // The largest of a run's samples: never enough beyond it to judge a change.
        list.append(.percentile("latency.max", "request latency max", .nanoseconds, 100) { $0.requestLatency })
        list += [
            Quantity("fanout.mean", "requests per search (mean)", .ratio) { $0.fanOutMean }.counting({ $0.requestsStarted }, per: { $0.settles }),
            .percentile("fanout.p90", "requests per search p90", .ratio, 90) { $0.fanOut },
            Quantity("fanout.perKeystroke", "requests per keystroke", .ratio) { $0.requestsPerKeystroke }.counting({ $0.requestsStarted }, per: { $0.keystrokes }),
            Quantity("churn.perSettle", "debounce waits cancelled per search", .ratio) { $0.churnPerSettle }.counting({ $0.debounceChurn }, per: { $0.settles }),
            Quantity("stale.share", "wrong final screen", .share) { $0.staleShare }.counting({ $0.staleSettles }, of: { $0.settles }),
            Quantity("stale.olderAnswerShare", "ended on an older query's answer", .share) { $0.olderAnswerShare }
                .counting({ $0.olderAnswerSettles }, of: { $0.settles }),
            Quantity("stale.outOfOrder", "out-of-order applies", .count) { $0.settles > 0 || $0.requestsStarted > 0 ? Double($0.outOfOrderApplies) : nil },
            Quantity("stale.mismatchPerSettle", "mismatch time per search", .nanoseconds) { $0.mismatchPerSettleNanos },
            Quantity("stale.mismatchShare", "share of session showing another query's results", .share) { $0.mismatchShare },
            .percentile("cancel.signal.p50", "cancel signal latency p50", .nanoseconds, 50) { $0.cancelSignal },
            .percentile("cancel.signal.p99", "cancel signal latency p99", .nanoseconds, 99) { $0.cancelSignal },
            .percentile("cancel.stopClient.p50", "cancel stop latency p50 (client)", .nanoseconds, 50) { $0.cancelStopClient },
            .percentile("cancel.stopClient.p99", "cancel stop latency p99 (client)", .nanoseconds, 99) { $0.cancelStopClient },
            .percentile("cancel.stopBackend.p50", "cancel stop latency p50 (backend)", .nanoseconds, 50) { $0.cancelStopBackend },
            .percentile("cancel.stopBackend.p99", "cancel stop latency p99 (backend)", .nanoseconds, 99) { $0.cancelStopBackend },
            Quantity("waste.client", "wasted work (client view)", .share) { $0.clientWastedShare }.counting({ $0.wastedRequests }, of: { $0.requestsStarted }),
            Quantity("waste.backend", "wasted work (backend view)", .share) { $0.backendWastedShare }.counting({ $0.wastedRequests }, of: { $0.requestsStarted }),
            Quantity("flicker.changesPerSettle", "display changes per search", .ratio) { $0.displayChangesPerSettle }.counting({ $0.displayChanges }, per: { $0.settles }),
            Quantity("flicker.blinksPerSettle", "blinks per search", .ratio) { $0.blinksPerSettle }.counting({ $0.blinks }, per: { $0.settles }),
            Quantity("flicker.falseEmptiesPerSettle", "false empties per search", .ratio) { $0.falseEmptiesPerSettle }.counting({ $0.falseEmpties }, per: { $0.settles }),
            Quantity("errors.share", "failed requests", .share) { $0.requestsStarted > 0 ? Double($0.errorCount) / Double($0.requestsStarted) : nil }.counting({ $0.errorCount }, of: { $0.requestsStarted }),
            Quantity("load.completedPerSecond", "requests completed per second", .ratio, better: .higher) { $0.completedPerSecond },
        ]
        return list
    }()

    /// The quantity with this ``id``; `nil` when there is none.
    public static func named(_ id: String) -> Quantity? {
        all.first { $0.id == id }
    }
}
