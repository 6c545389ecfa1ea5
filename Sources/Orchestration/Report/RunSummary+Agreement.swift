import Reporting
import FieldRuntime
import TypestormMetrics

extension RunSummary {
    /// Virtual time next to the live runs served through the same backend model, per strategy,
    /// judged by the crosscheck's stated tolerances (`Crosscheck.Tolerance`, docs/crosscheck.md):
    /// the evidence, in every run that has both, that the virtual rows can be trusted.
    ///
    /// `nil` when the record has no virtual group with a model-driven live group of the same
    /// strategy beside it.
    package static func agreement(_ record: RunRecord) -> String? {
        let found = agreementRows(record)
        guard !found.isEmpty else { return nil }
        var rows: [[String]] = [["strategy", "live runner", "verdict", "virtual → live (what differs)"]]
        rows += found.map { [$0.strategy, $0.runner, $0.agrees ? "agrees" : "differs", $0.note] }
        return "virtual time against live runs on the same backend model (tolerances: docs/crosscheck.md):\n" + align(rows)
    }

    /// The rows of `agreement`: per strategy and model-driven live runner, whether it agrees with
    /// virtual time and, when not, what differs and whether the load generator was behind.
    package static func agreementRows(_ record: RunRecord) -> [(strategy: String, runner: String, agrees: Bool, note: String)] {
        var rows: [(strategy: String, runner: String, agrees: Bool, note: String)] = []
        for group in record.groups where group.labels["runner"] == "virtual" {
            for live in record.groups where live.name == group.name && live.labels["backend"] == "model" {
                let runner = live.labels["runner"] ?? "-"
                let result = Crosscheck.compare(
                    group.name, runner: runner, virtual: group.metrics, live: live.metrics, model: BackendModel(),
                    typists: Int(group.metrics.counter(MetricName.settles)), lateness: Histogram(.latency), overruns: 0, liveNanos: 0)
                var note = result.checks.filter { !$0.agrees }.map { check in
                    "\(check.metric) \(Self.describe(check.virtual, check.metric)) → \(Self.describe(check.live, check.metric))"
                }.joined(separator: "; ")
                // Live keystrokes handled late mean the load generator itself was behind: the
                // difference is the machine's, not the model's.
                if !result.agrees, let lag = live.metrics.histograms[MetricName.inputLag]?.percentile(99), lag > 10_000_000 {
                    note += " (live keystrokes ran up to \(formatDuration(Double(lag))) late at p99: the load generator was behind)"
                }
                rows.append((group.name, runner, result.agrees, note))
            }
        }
        return rows
    }

    private static func describe(_ value: Double?, _ metric: String) -> String {
        guard let value else { return "–" }
        if metric.hasSuffix("_ns") { return formatDuration(value) }
        if metric.hasSuffix("_share") { return String(format: "%.1f%%", value * 100) }
        return formatCount(value)
    }
}

extension HTMLReport {
    /// The report of a run, with its virtual-against-live table (`RunSummary.agreementRows`).
    package static func forRun(_ record: RunRecord, scenarioText: String?) -> HTMLReport {
        var report = HTMLReport(record: record, scenarioText: scenarioText)
        report.agreement = RunSummary.agreementRows(record).map {
            AgreementRow(strategy: $0.strategy, runner: $0.runner, agrees: $0.agrees, note: $0.note)
        }
        return report
    }
}
