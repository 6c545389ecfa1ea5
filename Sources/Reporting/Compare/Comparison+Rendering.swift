import Foundation
import TypestormMetrics

extension Comparison.Status {
    /// A word for tables.
    package var word: String {
        switch self {
        case .unchanged: return "ok"
        case .noise: return "noise"
        case .tooFewSamples: return "too few samples"
        case .regression: return "REGRESSION"
        case .improvement: return "improved"
        case .onlyBaseline: return "only in baseline"
        case .onlyCandidate: return "only in candidate"
        }
    }
}

extension Comparison {
    /// One sentence: what happened overall.
    package var summaryLine: String {
        let counted = rows.filter { $0.status != .onlyBaseline && $0.status != .onlyCandidate }
        let unchanged = counted.filter { $0.status == .unchanged }.count
        let noise = counted.filter { $0.status == .noise }.count
        var parts = ["\(regressions.count) \(regressions.count == 1 ? "metric" : "metrics") worse", "\(improvements.count) better", "\(unchanged) unchanged"]
        if noise > 0 {
            parts.append(isSingleRun ? "\(noise) within sampling noise (95 % confidence intervals overlap)"
                                     : "\(noise) within run-to-run noise (Welch p ≥ \(ValueFormat.significant(thresholds.alpha)))")
        }
        let thin = counted.filter { $0.status == .tooFewSamples }.count
        if thin > 0 { parts.append("\(thin) not judged (fewer than \(Int(Self.minimumTailSamples)) samples beyond the percentile)") }
        let runs = "\(baselineRuns) baseline \(baselineRuns == 1 ? "run" : "runs") vs \(candidateRuns) candidate \(candidateRuns == 1 ? "run" : "runs")"
        let head: String
        switch overall {
        case .regression: head = "Regression"
        case .improvement: head = "Improvement"
        default: head = "No change"
        }
        return "\(head): " + parts.joined(separator: ", ") + " (\(runs))."
    }

    /// Said whenever a side has one run: what the verdict cannot tell, and how to get one that can.
    package var singleRunNote: String? {
        guard isSingleRun else { return nil }
        return "One run per side: run-to-run noise cannot be judged, so changes are held to wide tolerances "
            + "(relative ×4, at least 25 %; absolute ×4; counts ±50 %, a 0 must stay 0), and a percentile counts only when "
            + "its 95 % confidence intervals from the two runs' samples do not overlap. For a verdict that separates run-to-run noise, "
            + "compare directories of repeated runs (typestorm run SCENARIO --repeat 5 --out DIR)."
    }

    private func cells(_ row: Row) -> [String] {
        let unit = row.quantity.unit
        let base = row.baselineMean.map { ValueFormat.format($0, unit: unit) } ?? "–"
        let cand = row.candidateMean.map { ValueFormat.format($0, unit: unit) } ?? "–"
        let delta = row.delta.map { ValueFormat.delta($0, unit: unit) } ?? "–"
        let relative = row.relative.map { ValueFormat.relativeChange($0) } ?? "–"
        let p = row.welch.map { "p=" + ValueFormat.significant($0.p) } ?? ""
        return [row.group, row.quantity.id, base, cand, delta, relative, p, row.status.word]
    }

    /// Rows for the tables: groups that exist on one side only are named in a note instead.
    private func shownRows(all: Bool) -> [Row] {
        let oneSided = Set(groupsOnlyInBaseline + groupsOnlyInCandidate)
        return rows.filter { !oneSided.contains($0.group) && (all || $0.status != .unchanged) }
    }

    private var oneSidedNote: String {
        var out = ""
        if !groupsOnlyInBaseline.isEmpty { out += "Only in the baseline: " + groupsOnlyInBaseline.joined(separator: ", ") + ".\n" }
        if !groupsOnlyInCandidate.isEmpty { out += "Only in the candidate: " + groupsOnlyInCandidate.joined(separator: ", ") + ".\n" }
        return out
    }

    /// An aligned table for the terminal: changed rows only unless `all`.
    package func terminalTable(all: Bool = false) -> String {
        var out = summaryLine + "\n" + (singleRunNote.map { $0 + "\n" } ?? "") + oneSidedNote
        let shown = shownRows(all: all)
        if shown.isEmpty { return out }
        out += "\n" + TextTable(headers: ["group", "metric", "baseline", "candidate", "change", "rel", "welch", "verdict"],
                                rows: shown.map(cells), firstNumericColumn: 2).render()
        return out
    }

    /// GitHub-flavoured markdown for a pull-request comment: the verdict, a table of what moved,
    /// and every row in a collapsed section.
    package func markdown() -> String {
        var out = "### Typestorm compare: \(overall == .regression ? "regression" : overall == .improvement ? "improvement" : "no change")\n\n"
        out += summaryLine + "\n\n"
        if let singleRunNote { out += "> " + singleRunNote + "\n\n" }
        if !oneSidedNote.isEmpty { out += oneSidedNote + "\n" }
        func table(_ rows: [Row]) -> String {
            var text = "| group | metric | baseline | candidate | change | rel | Welch | verdict |\n|---|---|--:|--:|--:|--:|--:|---|\n"
            for row in rows {
                var c = cells(row).map(Markup.markdownCell)
                c[1] = "`\(c[1])`"
                if row.status == .regression { c[7] = "**\(c[7])**" }
                text += "| " + c.joined(separator: " | ") + " |\n"
            }
            return text
        }
        let moved = shownRows(all: false)
        if !moved.isEmpty { out += table(moved) + "\n" }
        let every = shownRows(all: true)
        out += "<details><summary>All \(every.count) metrics</summary>\n\n" + table(every) + "\n</details>\n\n"
        out += "Tolerances: a change counts when it exceeds both the absolute and the relative tolerance"
        out += baselineRuns >= 2 && candidateRuns >= 2 ? " and Welch's test gives p < \(ValueFormat.significant(thresholds.alpha)).\n" : ".\n"
        return out
    }

    /// JSON with stable keys (documented in docs/reports.md).
    package func json() throws -> String {
        let document = ComparisonJSON(
            status: overall.rawValue, exitCode: exitCode, alpha: thresholds.alpha,
            baselineRuns: baselineRuns, candidateRuns: candidateRuns, summary: summaryLine, note: singleRunNote,
            rows: rows.map { row in
                ComparisonJSON.Row(
                    group: row.group, metric: row.quantity.id, label: row.quantity.label, unit: row.quantity.unit.rawValue,
                    better: row.quantity.better.rawValue, baseline: row.baseline, candidate: row.candidate,
                    baselineMean: row.baselineMean, candidateMean: row.candidateMean, delta: row.delta, relative: row.relative,
                    tolerance: row.tolerance,
                    welch: row.welch.map { ComparisonJSON.Welch(t: $0.t.isFinite ? $0.t : nil, df: $0.degreesOfFreedom, p: $0.p) },
                    status: row.status.rawValue)
            })
        return try JSONDocument.text(document)
    }
}

struct ComparisonJSON: Encodable {
    struct Welch: Encodable {
        /// `null` when infinite (runs without variance that differ).
        @ExplicitNull var t: Double?
        var df: Double
        var p: Double
    }

    /// Every key is always present (null when not applicable), so consumers see a stable shape.
    struct Row: Encodable {
        var group: String
        var metric: String
        var label: String
        var unit: String
        var better: String
        var baseline: [Double]
        var candidate: [Double]
        @ExplicitNull var baselineMean: Double?
        @ExplicitNull var candidateMean: Double?
        @ExplicitNull var delta: Double?
        @ExplicitNull var relative: Double?
        var tolerance: Tolerances.Tolerance
        @ExplicitNull var welch: Welch?
        var status: String
    }

    var status: String
    var exitCode: Int32
    var alpha: Double
    var baselineRuns: Int
    var candidateRuns: Int
    var summary: String
    /// The single-run caveat (`null` with repeated runs on both sides).
    @ExplicitNull var note: String?
    var rows: [Row]
}
