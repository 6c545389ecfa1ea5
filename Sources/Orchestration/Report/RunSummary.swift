import Foundation
import TypestormMetrics

/// The human and CSV views of a run record: one row per group (strategy × runner).
package enum RunSummary {
    /// The columns of the terminal table, in order: shown when some group recorded them.
    /// Metric expressions over `MetricName`'s names (docs/metrics.md).
    package static let headline: [(title: String, metric: String)] = {
        typealias N = MetricName
        return [
            ("typists", N.probeTypists),
            ("keys", N.keystrokes),
            ("requests", N.requestsStarted),
            ("req/settle", "\(N.requestsStarted)/\(N.settles)"),
            ("errors", N.failureCounters.joined(separator: "+")),
            ("out-of-order", N.outOfOrderApplies),
            ("stale", "\(N.staleSettles)/\(N.settles)"),
            ("false empty", N.falseEmpties),
            ("TTFR p50", "\(N.timeToFresh).p50"),
            ("TTFR p95", "\(N.timeToFresh).p95"),
            ("TTFR p99", "\(N.timeToFresh).p99"),
            ("already right", "\(N.alreadyFreshSettles)/\(N.settles)"),
            ("wasted", "\(N.wastedServiceNs)/\(N.serviceNs)"),
            ("IKI p50", "\(N.probeInterKey).p50"),
            ("lag p99", "\(N.probeLag).p99"),
        ]
    }()

    /// An aligned table per strategy (the embedded server's own group is summarized apart).
    package static func table(_ record: RunRecord) -> String {
        let groups = record.groups.filter { $0.name != "server" }
        let columns = headline.filter { column in
            groups.contains { MetricExpression(column.metric).value(in: $0.metrics) != nil }
        }
        var rows: [[String]] = [["strategy", "runner"] + columns.map(\.title)]
        var notes: [String] = []
        for group in groups {
            let noAnswer = answeredNothing(group.metrics)
            if noAnswer { notes.append("\(group.key): no TTFR: every request failed, no answer came") }
            if let unknown = group.metrics.counters[MetricName.answersWithoutCount], unknown > 0 {
                notes.append("\(group.key): no false-empty figure: \(unknown) answers carried no result count (give the runner a count path, e.g. --count total)")
            }
            let others = group.labels.keys.filter { $0 != "runner" }.sorted().map { "\($0)=\(group.labels[$0]!)" }
            let runner = ([group.labels["runner"] ?? "-"] + others).joined(separator: " ")
            var row = [group.name, runner]
            for column in columns {
                let expression = MetricExpression(column.metric)
                if noAnswer, column.metric.hasPrefix(MetricName.timeToFresh + ".") { row.append("–"); continue }
                guard let value = expression.value(in: group.metrics) else { row.append("–"); continue }
                if expression.isDuration(in: group.metrics) {
                    row.append(formatDuration(value))
                } else if column.metric.contains("/") {
                    let share = column.title == "wasted" || column.title == "stale" || column.title == "already right"
                    row.append(share ? String(format: "%.1f%%", value * 100) : String(format: "%.2f", value))
                } else {
                    row.append(formatCount(value))
                }
            }
            rows.append(row)
        }
        var text = align(rows)
        for note in notes { text += note + "\n" }
        if record.groups.isEmpty { text += "(no measurements arrived)\n" }
        return text
    }

    /// Requests were made and every one failed: time to fresh results has nothing to describe
    /// (its samples would be the settles that needed no request, all 0).
    static func answeredNothing(_ metrics: MetricSet) -> Bool {
        MetricExpression.failedShare(in: metrics) == 1
    }

    static func align(_ rows: [[String]]) -> String {
        guard let header = rows.first else { return "" }
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        var out = ""
        for (rowIndex, row) in rows.enumerated() {
            let cells = row.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return index < 2 ? cell + pad : pad + cell
            }
            out += cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
            if rowIndex == 0 { out += widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ") + "\n" }
        }
        return out
    }

    package static func formatDuration(_ nanos: Double) -> String {
        switch nanos {
        case ..<1_000: return String(format: "%.0fns", nanos)
        case ..<1_000_000: return String(format: "%.1fµs", nanos / 1e3)
        case ..<1_000_000_000: return String(format: "%.1fms", nanos / 1e6)
        default: return String(format: "%.2fs", nanos / 1e9)
        }
    }

    static func formatCount(_ value: Double) -> String {
        if value != value.rounded() { return String(format: "%.2f", value) }
        let integer = Int64(value)
        if abs(integer) >= 10_000_000 { return String(format: "%.1fM", value / 1e6) }
        if abs(integer) >= 100_000 { return String(format: "%.0fk", value / 1e3) }
        return "\(integer)"
    }

    /// One CSV row per group: labels, every counter and maximum, and for every histogram its
    /// count, mean (unrounded), p50, p90, p95, p99, p99.9 and max. Columns are the union over
    /// groups, sorted.
    package static func csv(_ record: RunRecord) -> String {
        let labelKeys = Set(record.groups.flatMap { $0.labels.keys }).sorted()
        let counters = Set(record.groups.flatMap { $0.metrics.counters.keys }).sorted()
        let maxima = Set(record.groups.flatMap { $0.metrics.maxima.keys }).sorted()
        let histograms = Set(record.groups.flatMap { $0.metrics.histograms.keys }).sorted()
        let statistics = ["count", "mean", "p50", "p90", "p95", "p99", "p999", "max"]
        var header = ["strategy"] + labelKeys + counters + maxima.map { "\($0).max" }
        for name in histograms { header += statistics.map { "\(name).\($0)" } }
        var lines = [header.map(csvField).joined(separator: ",")]
        for group in record.groups {
            let noAnswer = answeredNothing(group.metrics)
            var row = [group.name] + labelKeys.map { group.labels[$0] ?? "" }
            row += counters.map { group.metrics.counters[$0].map(String.init) ?? "" }
            row += maxima.map { group.metrics.maxima[$0].map(String.init) ?? "" }
            for name in histograms {
                for statistic in statistics {
                    guard group.metrics.histograms[name] != nil, !(noAnswer && name == MetricName.timeToFresh),
                          let value = MetricExpression("\(name).\(statistic)").value(in: group.metrics) else { row.append(""); continue }
                    row.append(statistic == "mean" ? "\(value)" : "\(Int64(value))")
                }
            }
            lines.append(row.map(csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
