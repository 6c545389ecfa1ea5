import Diagnostics
import Measurement

/// `compare`'s decision: every quantity of every group, baseline against candidate.
///
/// Each side is one or more run records of the same scenario (repeated runs). A quantity's value
/// per side is the mean over that side's records; the change is judged against `Thresholds`
/// and, with two or more runs per side, Welch's test.
public struct Comparison: Sendable {
    public enum Status: String, Sendable, Codable {
        /// Within tolerance.
        case unchanged
        /// Beyond tolerance but not significant by Welch's test: run-to-run noise.
        case noise
        case regression
        case improvement
        /// Present on one side only (not counted in the exit code).
        case onlyBaseline = "only-baseline"
        case onlyCandidate = "only-candidate"
    }

    public struct Row: Sendable {
        public var group: String
        public var quantity: Quantity
        public var baseline: [Double]
        public var candidate: [Double]
        public var tolerance: Thresholds.Tolerance
        public var welch: WelchTest?
        public var status: Status

        public var baselineMean: Double? { baseline.isEmpty ? nil : baseline.reduce(0, +) / Double(baseline.count) }
        public var candidateMean: Double? { candidate.isEmpty ? nil : candidate.reduce(0, +) / Double(candidate.count) }
        public var delta: Double? {
            guard let b = baselineMean, let c = candidateMean else { return nil }
            return c - b
        }
        /// Change relative to the baseline; `nil` when the baseline is 0.
        public var relative: Double? {
            guard let b = baselineMean, let d = delta, b != 0 else { return nil }
            return d / abs(b)
        }
    }

    public var rows: [Row]
    public var thresholds: Thresholds
    public var baselineRuns: Int
    public var candidateRuns: Int

    /// Groups present on one side only, by side.
    public var groupsOnlyInBaseline: [String] { onlyOneSide(.onlyBaseline) }
    public var groupsOnlyInCandidate: [String] { onlyOneSide(.onlyCandidate) }

    /// True when at least one metric was measured on both sides (otherwise there is nothing to
    /// compare, and a "no change" verdict would be a lie).
    public var hasCommonMetrics: Bool {
        rows.contains { $0.status != .onlyBaseline && $0.status != .onlyCandidate }
    }

    private func onlyOneSide(_ status: Status) -> [String] {
        let groups = Set(rows.map(\.group))
        return groups.filter { group in rows.filter { $0.group == group }.allSatisfy { $0.status == status } }.sorted()
    }

    public var regressions: [Row] { rows.filter { $0.status == .regression } }
    public var improvements: [Row] { rows.filter { $0.status == .improvement } }

    public var overall: Status {
        if !regressions.isEmpty { return .regression }
        if !improvements.isEmpty { return .improvement }
        return .unchanged
    }

    /// 0 nothing moved, 2 at least one regression, 4 improvements only.
    public var exitCode: Int32 {
        switch overall {
        case .regression: return ExitCode.regression
        case .improvement: return ExitCode.improvement
        default: return ExitCode.success
        }
    }

    public init(baseline: [RunRecord], candidate: [RunRecord], thresholds: Thresholds = Thresholds()) {
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
                let tolerance = thresholds.tolerance(for: quantity, group: key)
                var row = Row(group: key, quantity: quantity, baseline: b, candidate: c, tolerance: tolerance, welch: nil, status: .unchanged)
                row.status = Self.judge(&row, alpha: thresholds.alpha)
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
