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
    public var unit: ValueUnit
    public var better: Better
    public var value: @Sendable (StrategySummary) -> Double?

    public init(_ id: String, _ label: String, _ unit: ValueUnit, better: Better = .lower, value: @escaping @Sendable (StrategySummary) -> Double?) {
        self.id = id
        self.label = label
        self.unit = unit
        self.better = better
        self.value = value
    }

    /// Every quantity, in display order.
    public static let all: [Quantity] = {
        var list: [Quantity] = []
        let percentiles: [(String, Double)] = [("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99), ("p99.9", 99.9)]
        for (suffix, p) in percentiles {
            list.append(Quantity("ttfr.\(suffix)", "time to fresh results \(suffix)", .nanoseconds) { $0.ttfr?.percentile(p).map(Double.init) })
        }
        list.append(Quantity("ttfr.neverShare", "searches never fresh", .share) { $0.neverFreshShare })
        for (suffix, p) in percentiles {
            list.append(Quantity("latency.\(suffix)", "request latency \(suffix)", .nanoseconds) { $0.requestLatency?.percentile(p).map(Double.init) })
        }
        list.append(Quantity("latency.max", "request latency max", .nanoseconds) { $0.requestLatency.map { Double($0.max) } })
        list += [
            Quantity("fanout.mean", "requests per search (mean)", .ratio) { $0.fanOutMean },
            Quantity("fanout.p90", "requests per search p90", .ratio) { $0.fanOut?.percentile(90).map(Double.init) },
            Quantity("fanout.perKeystroke", "requests per keystroke", .ratio) { $0.requestsPerKeystroke },
            Quantity("churn.perSettle", "debounce waits cancelled per search", .ratio) { $0.churnPerSettle },
            Quantity("stale.share", "wrong final screen", .share) { $0.staleShare },
            Quantity("stale.outOfOrder", "out-of-order applies", .count) { $0.settles > 0 || $0.requestsStarted > 0 ? Double($0.outOfOrderApplies) : nil },
            Quantity("stale.mismatchPerSettle", "mismatch time per search", .nanoseconds) { $0.mismatchPerSettleNanos },
            Quantity("stale.mismatchShare", "share of session showing another query's results", .share) { $0.mismatchShare },
            Quantity("cancel.signal.p50", "cancel signal latency p50", .nanoseconds) { $0.cancelSignal?.percentile(50).map(Double.init) },
            Quantity("cancel.signal.p99", "cancel signal latency p99", .nanoseconds) { $0.cancelSignal?.percentile(99).map(Double.init) },
            Quantity("cancel.stopClient.p50", "cancel stop latency p50 (client)", .nanoseconds) { $0.cancelStopClient?.percentile(50).map(Double.init) },
            Quantity("cancel.stopClient.p99", "cancel stop latency p99 (client)", .nanoseconds) { $0.cancelStopClient?.percentile(99).map(Double.init) },
            Quantity("cancel.stopBackend.p50", "cancel stop latency p50 (backend)", .nanoseconds) { $0.cancelStopBackend?.percentile(50).map(Double.init) },
            Quantity("cancel.stopBackend.p99", "cancel stop latency p99 (backend)", .nanoseconds) { $0.cancelStopBackend?.percentile(99).map(Double.init) },
            Quantity("waste.client", "wasted work (client view)", .share) { $0.clientWastedShare },
            Quantity("waste.backend", "wasted work (backend view)", .share) { $0.backendWastedShare },
            Quantity("flicker.changesPerSettle", "display changes per search", .ratio) { $0.displayChangesPerSettle },
            Quantity("flicker.blinksPerSettle", "blinks per search", .ratio) { $0.blinksPerSettle },
            Quantity("flicker.falseEmptiesPerSettle", "false empties per search", .ratio) { $0.falseEmptiesPerSettle },
            Quantity("errors.share", "failed requests", .share) { $0.requestsStarted > 0 ? Double($0.errorCount) / Double($0.requestsStarted) : nil },
            Quantity("load.completedPerSecond", "requests completed per second", .ratio, better: .higher) { $0.completedPerSecond },
        ]
        return list
    }()

    public static func named(_ id: String) -> Quantity? {
        all.first { $0.id == id }
    }
}
