import Foundation
import TypestormMetrics

/// The table `simulate` prints and a library user prints with `print(StrategyComparison.table(record))`:
/// one row per strategy with requests per search, stale and mismatch shares, time to fresh
/// results and the rest (every column in docs/metrics.md); a figure that was not measured is `–`.
public enum StrategyComparison {
    /// The comparison table of `record`'s groups, in their order.
    public static func table(_ record: RunRecord) -> TextTable {
        table(record.groups.map { ($0.name, $0.metrics) })
    }

    /// The comparison table of named metric sets, in the given order.
    public static func table(_ rows: [(String, MetricSet)]) -> TextTable {
        let headers = ["strategy", "req/settle", "req/key", "churn", "ooo", "stale", "mismatch", "TTFR p50", "TTFR p90",
                       "never", "false∅", "blinks", "wasted", "queue p90", "latency p90"]
        let body = rows.map { name, metrics -> [String] in
            let derived = DerivedMetrics(metrics)
            let ttfr = metrics.histograms[MetricName.timeToFresh]
            return [
                name, number(derived.requestsPerSettle), number(derived.requestsPerKeystroke), number(derived.taskChurnPerSettle),
                "\(derived.outOfOrderApplies)", share(derived.staleSettleShare), share(derived.mismatchShare),
                ttfr?.percentile(50).map(millis) ?? "–", ttfr?.percentile(90).map(millis) ?? "–",
                share(derived.neverFreshShare), number(derived.falseEmptiesPerSettle), number(derived.blinksPerSettle),
                share(derived.wastedServiceShare),
                metrics.histograms[MetricName.queueTime]?.percentile(90).map(millis) ?? "–",
                metrics.histograms[MetricName.requestLatency]?.percentile(90).map(millis) ?? "–",
            ]
        }
        return TextTable(headers: headers, rows: body)
    }

    /// Nanoseconds as milliseconds with three significant figures: `412ms`, `12.3ms`, `0.85ms`.
    package static func millis(_ ns: Int64) -> String {
        let value = Double(ns) / 1e6
        if value >= 100 { return "\(Int(value.rounded()))ms" }
        if value >= 10 { return String(format: "%.1fms", value) }
        return String(format: "%.2fms", value)
    }

    /// A share 0...1 as a percentage with one decimal; `–` when not measured.
    package static func share(_ value: Double?) -> String {
        value.map { String(format: "%.1f%%", $0 * 100) } ?? "–"
    }

    /// A ratio with `digits` decimals; `–` when not measured.
    package static func number(_ value: Double?, digits: Int = 2) -> String {
        value.map { String(format: "%.\(digits)f", $0) } ?? "–"
    }
}
