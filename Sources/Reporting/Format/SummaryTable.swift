import TypestormMetrics

/// The strategies of a record side by side as an aligned terminal table: one row per headline
/// quantity, one column per group. What `typestorm report` prints, and what the driver can print
/// at the end of a run.
public enum SummaryTable {
    /// The rows shown by default: correctness, speed, cost, flicker.
    public static let headlineIDs = [
        "stale.share", "stale.outOfOrder", "ttfr.p50", "ttfr.p95", "ttfr.neverShare", "latency.p99",
        "fanout.mean", "waste.backend", "cancel.stopClient.p99", "flicker.falseEmptiesPerSettle",
    ]

    /// The table of `record`'s groups: a `searches` row (settles), then one row per quantity of
    /// `quantityIDs` (``Quantity/id``), one column per group.
    public static func render(_ record: RunRecord, quantityIDs: [String] = headlineIDs) -> String {
        let summaries = record.summaries
        let titles = Verdict.titles(summaries)
        var rows: [[String]] = [["searches"] + summaries.map { String($0.settles) }]
        for id in quantityIDs {
            guard let quantity = Quantity.named(id) else { continue }
            let values = summaries.map(quantity.value)
            guard values.contains(where: { $0 != nil }) else { continue }
            rows.append([quantity.label] + values.map { $0.map { ValueFormat.format($0, unit: quantity.unit) } ?? "–" })
        }
        return TextTable(headers: ["metric"] + titles, rows: rows, firstNumericColumn: 1).render()
    }
}
