import Diagnostics
import TypestormMetrics

/// `compare`'s decision: every quantity of every group, baseline against candidate.
///
/// Each side is one or more run records of the same scenario (repeated runs). A quantity's value
/// per side is the mean over that side's records; the change is judged against `Tolerances`
/// and, with two or more runs per side, Welch's test.
package struct Comparison: Sendable {
    package enum Status: String, Sendable, Codable {
        /// Within tolerance.
        case unchanged
        /// Beyond tolerance but not significant by Welch's test: run-to-run noise. With one run a
        /// side: a percentile whose 95 % confidence intervals (from each run's samples) overlap,
        /// or a share or rate of counted events within the sampling noise of its counts.
        case noise
        /// A percentile with fewer than `Comparison.minimumTailSamples` samples beyond it on a
        /// side (p99.9 of 136 searches): its value is one sample's luck, so no verdict.
        case tooFewSamples = "too-few-samples"
        case regression
        case improvement
        /// Present on one side only (not counted in the exit code).
        case onlyBaseline = "only-baseline"
        case onlyCandidate = "only-candidate"
    }

    package struct Row: Sendable {
        package var group: String
        package var quantity: Quantity
        package var baseline: [Double]
        package var candidate: [Double]
        package var tolerance: Tolerances.Tolerance
        package var welch: WelchTest?
        package var status: Status

        package var baselineMean: Double? { baseline.isEmpty ? nil : baseline.reduce(0, +) / Double(baseline.count) }
        package var candidateMean: Double? { candidate.isEmpty ? nil : candidate.reduce(0, +) / Double(candidate.count) }
        package var delta: Double? {
            guard let b = baselineMean, let c = candidateMean else { return nil }
            return c - b
        }
        /// Change relative to the baseline; `nil` when the baseline is 0.
        package var relative: Double? {
            guard let b = baselineMean, let d = delta, b != 0 else { return nil }
            return d / abs(b)
        }
    }

    package var rows: [Row]
    package var thresholds: Tolerances
    package var baselineRuns: Int
    package var candidateRuns: Int

    /// One run on a side: Welch's test needs two, so run-to-run noise cannot be judged and the
    /// tolerances are widened (`Tolerances.widenedForSingleRuns`).
    package var isSingleRun: Bool { baselineRuns < 2 || candidateRuns < 2 }

    /// Fewest samples beyond a percentile, on each side, for a change of it to be judged.
    package static let minimumTailSamples = 10.0

    /// Groups present on one side only, by side.
    package var groupsOnlyInBaseline: [String] { onlyOneSide(.onlyBaseline) }
    package var groupsOnlyInCandidate: [String] { onlyOneSide(.onlyCandidate) }

    /// True when at least one metric was measured on both sides (otherwise there is nothing to
    /// compare, and a "no change" verdict would be a lie).
    package var hasCommonMetrics: Bool {
        rows.contains { $0.status != .onlyBaseline && $0.status != .onlyCandidate }
    }

    private func onlyOneSide(_ status: Status) -> [String] {
        let groups = Set(rows.map(\.group))
        return groups.filter { group in rows.filter { $0.group == group }.allSatisfy { $0.status == status } }.sorted()
    }

    package var regressions: [Row] { rows.filter { $0.status == .regression } }
    package var improvements: [Row] { rows.filter { $0.status == .improvement } }

    package var overall: Status {
        if !regressions.isEmpty { return .regression }
        if !improvements.isEmpty { return .improvement }
        return .unchanged
    }

    /// 0 nothing moved, 2 at least one regression, 4 improvements only.
    package var exitCode: Int32 {
        switch overall {
        case .regression: return ExitCode.regression
        case .improvement: return ExitCode.improvement
        default: return ExitCode.success
        }
    }

    package init(baseline: [RunRecord], candidate: [RunRecord], thresholds: Tolerances = Tolerances()) {
        self.thresholds = thresholds
        baselineRuns = baseline.count
        candidateRuns = candidate.count
        let baseSummaries = baseline.map { Dictionary($0.summaries.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a }) }
        let candSummaries = candidate.map { Dictionary($0.summaries.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a }) }
        let keys = Set(baseSummaries.flatMap(\.keys)).union(candSummaries.flatMap(\.keys)).sorted()
        var rows: [Row] = []
        for key in keys {
            for quantity in Quantity.all {
                let b = baseSummaries.compactMap { $0[key].flatMap(quantity.value) }.filter(\.isFinite)
                let c = candSummaries.compactMap { $0[key].flatMap(quantity.value) }.filter(\.isFinite)
                if b.isEmpty && c.isEmpty { continue }
                var tolerance = thresholds.tolerance(for: quantity, group: key)
                if baseline.count < 2 || candidate.count < 2 { tolerance = Tolerances.widenedForSingleRuns(tolerance, unit: quantity.unit) }
                var row = Row(group: key, quantity: quantity, baseline: b, candidate: c, tolerance: tolerance, welch: nil, status: .unchanged)
                row.status = Self.judge(&row, alpha: thresholds.alpha)
                // Judged only when every run on both sides has enough samples beyond the percentile.
                let tails = (baseSummaries + candSummaries).compactMap { $0[key].flatMap(quantity.tailSamples) }
                if !b.isEmpty, !c.isEmpty, let fewest = tails.min(), fewest < Self.minimumTailSamples,
                   row.status == .regression || row.status == .improvement || row.status == .noise {
                    row.status = .tooFewSamples
                }
                // One run a side: a percentile whose confidence intervals overlap did not move
                // beyond its own sampling noise.
                if baseline.count == 1, candidate.count == 1, row.status == .regression || row.status == .improvement,
                   let before = baseSummaries[0][key], let after = candSummaries[0][key] {
                    if let low = quantity.confidenceInterval(before), let high = quantity.confidenceInterval(after), low.overlaps(high) {
                        row.status = .noise
                    } else if quantity.sharesDiffer(before, after) == false || quantity.ratesDiffer(before, after) == false {
                        // A share or a rate of counted events within its sampling noise.
                        row.status = .noise
                    }
                }
                rows.append(row)
            }
        }
        self.rows = rows
    }

    /// The decision for one row (fills in the Welch result when it applies).
    static func judge(_ row: inout Row, alpha: Double) -> Status {
        guard let base = row.baselineMean else { return .onlyCandidate }
        guard let delta = row.delta else { return .onlyBaseline }
        let exceeds = abs(delta) > row.tolerance.absolute && abs(delta) > row.tolerance.relative * abs(base)
        guard exceeds else { return .unchanged }
        if let welch = WelchTest(row.candidate, row.baseline) {
            row.welch = welch
            if welch.p >= alpha { return .noise }
        }
        let worse = row.quantity.better == .lower ? delta > 0 : delta < 0
        return worse ? .regression : .improvement
    }
}
