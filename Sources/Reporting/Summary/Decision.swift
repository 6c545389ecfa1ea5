import TypestormMetrics

/// What to ship for the world of one run: the strategy (and, where the run swept them, the
/// interval and minimum length) with the lowest value of the sweep's objective among those that
/// meet its constraints, the runner-up and what the choice costs.
///
/// The choice is `SweepAnalysis`'s, applied to the groups of one runner (the primary runner), so
/// `report.html`, `summary.txt` and `typestorm sweep` judge by one definition: p95 time to fresh
/// results + a stated cost per request, with at most 1 % wrong final screens and 1 % never-fresh
/// searches by default (`SweepObjective`).
package struct Decision: Sendable {
    /// One strategy of the primary runner: its summary, its setting and its standing.
    package struct Row: Sendable {
        /// The strategy's name in the table (its name, plus the labels that tell it apart from
        /// the others on the same runner).
        package var title: String
        package var summary: StrategySummary
        /// The strategy's palette index in the report.
        package var style: Int
        package var result: SweepAnalysis.SettingResult?
        /// The objective of the same strategy on each other runner (in `otherRunners` order).
        package var otherObjectives: [Double?]

        /// The constraints it breaks (empty when eligible).
        package var disqualifiedBy: [String] { result?.disqualifiedBy ?? ["not measured"] }
        package var objective: Double? { result?.objective?.mean }
    }

    /// The label whose values are the runners (`runner`).
    package static let runnerLabel = "runner"
    /// The columns of the decision table after the objective, as `Quantity` ids: speed,
    /// cost, correctness, flicker. Any quantity id works here.
    package static let columnIDs = ["ttfr.p95", "fanout.mean", "stale.share", "stale.olderAnswerShare", "ttfr.neverShare", "flicker.falseEmptiesPerSettle"]
    /// Short column headings for the quantities the table shows (others use their label).
    package static let shortLabels = [
        "ttfr.p50": "p50 to fresh", "ttfr.p95": "p95 to fresh", "ttfr.p99": "p99 to fresh", "fanout.mean": "requests / search",
        "stale.share": "wrong final", "stale.olderAnswerShare": "older answer", "ttfr.neverShare": "never fresh", "flicker.falseEmptiesPerSettle": "false empties / search",
        "latency.p95": "latency p95", "latency.p99": "latency p99", "waste.backend": "wasted (backend)",
    ]

    package let objective: SweepObjective
    /// The runners a decision is taken on, first found first: virtual time (the same typists on
    /// the modelled backend, no machine noise), then the in-process engine.
    package static let preferredRunners = ["virtual", "in-process"]
    /// The runner the decision is taken on (the first of `preferredRunners` the run has, else
    /// the first in the record); `nil` when the groups carry no runner label.
    package let primaryRunner: String?
    /// The other runners, in record order: each a column of the table.
    package let otherRunners: [String]
    /// Whether the groups are grid points (labelled with a debounce interval), so the
    /// recommendation names an interval and a minimum length.
    package let swept: Bool
    package let rows: [Row]
    /// The analysis of the primary runner's groups, the same one `sweep` makes.
    package let analysis: SweepAnalysis
    /// Per other runner: the row index of its best eligible strategy, `nil` when none meets the
    /// constraints.
    package let otherBest: [Int?]

    /// `nil` when the record has no strategy groups.
    package init?(record: RunRecord, styles: [String: Int] = [:], objective: SweepObjective = SweepObjective()) {
        let summaries = ReportLayout.strategyGroups(record).strategies
        guard !summaries.isEmpty else { return nil }
        var runners: [String] = []
        for summary in summaries { if let runner = summary.labels[Self.runnerLabel], !runners.contains(runner) { runners.append(runner) } }
        let primary = Self.preferredRunners.first(where: runners.contains) ?? runners.first
        let mine = summaries.filter { $0.labels[Self.runnerLabel] == primary }
        guard !mine.isEmpty else { return nil }
        self.objective = objective
        primaryRunner = primary
        otherRunners = runners.filter { $0 != primary }
        swept = mine.contains { SweepPoint($0) != nil }

        let titles = Self.titles(mine)
        let points = zip(mine, titles).map { Self.point($0, title: $1) }
        analysis = SweepAnalysis(points: points, objective: objective)
        let results = analysis.results[analysis.scopes[0].name] ?? []
        func result(_ point: SweepPoint) -> SweepAnalysis.SettingResult? { results.first { $0.setting == point.setting } }

        var others: [[StrategySummary?]] = []
        var otherBest: [Int?] = []
        // A strategy on another runner is the group of the same name whose labels that tell that
        // runner's groups apart match ours: a label every group of a runner shares (the live
        // runner's `backend=model`) says how the runner ran, not which strategy it is.
        let ownDistinct = Self.distinguishing(mine)
        for runner in otherRunners {
            let candidates = summaries.filter { $0.labels[Self.runnerLabel] == runner }
            let theirDistinct = Self.distinguishing(candidates)
            let theirs = mine.indices.map { index in
                candidates.indices.first { candidates[$0].name == mine[index].name && theirDistinct[$0] == ownDistinct[index] }.map { candidates[$0] }
            }
            others.append(theirs)
            let theirPoints = zip(theirs, zip(points, mine)).compactMap { summary, own -> SweepPoint? in
                summary.map { Self.point($0, title: own.0.strategy) }
            }
            let analysis = SweepAnalysis(points: theirPoints, objective: objective)
            let best = analysis.recommendations.first?.result?.setting
            otherBest.append(best.flatMap { setting in points.firstIndex { $0.setting == setting } })
        }
        self.otherBest = otherBest
        rows = mine.indices.map { index in
            let otherObjectives = others.map { column -> Double? in
                guard let summary = column[index] else { return nil }
                let p95 = summary.ttfr?.percentile(95).map(Double.init)
                return summary.fanOutMean.flatMap { objective.value(ttfrP95: p95, requests: $0) }
            }
            return Row(title: titles[index], summary: mine[index], style: styles[mine[index].name] ?? index,
                       result: result(points[index]), otherObjectives: otherObjectives)
        }
    }

    /// The overall recommendation of the analysis.
    package var recommendation: SweepAnalysis.Recommendation { analysis.recommendations[0] }

    /// The index of the recommended row, or `nil` when no strategy meets the constraints.
    package var chosen: Int? {
        guard let setting = recommendation.result?.setting else { return nil }
        return rows.firstIndex { $0.result?.setting == setting }
    }

    /// The index of the runner-up row.
    package var runnerUp: Int? {
        guard let setting = recommendation.runnerUp?.setting else { return nil }
        return rows.firstIndex { $0.result?.setting == setting }
    }

    /// What the row ships as: the strategy, with its interval and minimum length when swept.
    package func name(_ row: Int) -> String {
        guard swept, let setting = rows[row].result?.setting else { return rows[row].title }
        return setting.description
    }

    /// The decision in three or four plain lines: what to ship and by which objective; the
    /// runner-up and what the choice costs against it; what is ruled out and why; whether the
    /// other runners agree.
    package var lines: [String] {
        var lines: [String] = []
        let on = primaryRunner.map { " on the \($0) runner" } ?? ""
        guard let chosen, let result = rows[chosen].result, let value = result.objective else {
            var line = "No strategy meets \(objective.constraints)\(on)"
            let closest = rows.indices.min { (rows[$0].disqualifiedBy.count, rows[$0].summary.staleShare ?? 1) < (rows[$1].disqualifiedBy.count, rows[$1].summary.staleShare ?? 1) }
            if let closest { line += "; the closest, \(name(closest)), has \(rows[closest].disqualifiedBy.joined(separator: ", "))" }
            lines.append(line + ": none can be shipped as measured.")
            return lines
        }
        lines.append("Ship \(name(chosen)).")
        lines.append("Chosen by the lowest \(objective.statement)\(on), among strategies with \(objective.constraints): \(objective.format(value.mean))\(breakdown(result)).")
        if let runnerUp, let other = rows[runnerUp].result, let otherValue = other.objective {
            lines.append("Runner-up: \(name(runnerUp)), \(objective.format(otherValue.mean))\(breakdown(other)); choosing \(rows[chosen].title) \(cost(result, against: other)).")
        } else {
            lines.append("No runner-up: no other strategy meets the constraints.")
        }
        var last: [String] = []
        let out = rows.indices.filter { $0 != chosen && !rows[$0].disqualifiedBy.isEmpty }
        if !out.isEmpty {
            last.append("Ruled out: " + out.map { "\(rows[$0].title) (\(rows[$0].disqualifiedBy.joined(separator: ", ")))" }.joined(separator: "; "))
        }
        if !otherRunners.isEmpty {
            let agree = otherRunners.indices.filter { otherBest[$0] == chosen }.map { otherRunners[$0] }
            let differ = otherRunners.indices.filter { otherBest[$0] != chosen }.map { index in
                otherRunners[index] + " " + (otherBest[index].map { rows[$0].title } ?? "none (no strategy meets the constraints there)")
            }
            if !agree.isEmpty { last.append("the same choice on " + Self.list(agree)) }
            if !differ.isEmpty { last.append("by the same objective the other runners choose " + differ.joined(separator: ", ")) }
        }
        if !last.isEmpty {
            let joined = last.joined(separator: "; ")
            lines.append(joined.prefix(1).uppercased() + joined.dropFirst() + ".")
        }
        return lines
    }

    /// " (p95 292 ms + 3.00 requests × 40 ms)" for the request-cost goal, else empty.
    private func breakdown(_ result: SweepAnalysis.SettingResult) -> String {
        guard case let .requestCost(cost) = objective.goal, let p95 = result.ttfrP95 else { return "" }
        return " (\(ValueFormat.duration(nanos: p95.mean)) + \(ValueFormat.fixed(result.requests.mean, 2)) requests × \(ValueFormat.duration(nanos: cost)))"
    }

    /// What the choice costs against the runner-up: "costs 0.40 more requests per search and
    /// saves 29 ms at p95".
    func cost(_ chosen: SweepAnalysis.SettingResult, against other: SweepAnalysis.SettingResult) -> String {
        var parts: [String] = []
        let requests = chosen.requests.mean - other.requests.mean
        if abs(requests) >= 0.005 {
            parts.append(requests > 0 ? "costs \(ValueFormat.fixed(requests, 2)) more requests per search"
                                      : "saves \(ValueFormat.fixed(-requests, 2)) requests per search")
        }
        if let a = chosen.ttfrP95?.mean, let b = other.ttfrP95?.mean, abs(a - b) >= 500_000 {
            parts.append(a < b ? "gets fresh results \(ValueFormat.duration(nanos: b - a)) sooner at p95"
                               : "gets fresh results \(ValueFormat.duration(nanos: a - b)) later at p95")
        }
        let stale = chosen.stale.mean - other.stale.mean
        if abs(stale) > 0 {
            parts.append(stale < 0 ? "ends wrong in \(ValueFormat.percent(-stale)) fewer searches" : "ends wrong in \(ValueFormat.percent(stale)) more searches")
        }
        return parts.isEmpty ? "costs nothing measurable" : Self.list(parts)
    }

    static func list(_ parts: [String]) -> String {
        parts.count <= 1 ? parts.joined() : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
    }

    /// Per group, its labels (other than the runner) whose values differ among `summaries`.
    static func distinguishing(_ summaries: [StrategySummary]) -> [[String: String]] {
        let keys = Set(summaries.flatMap(\.labels.keys)).subtracting([runnerLabel])
        let varying = keys.filter { key in Set(summaries.map { $0.labels[key] ?? "" }).count > 1 }
        return summaries.map { summary in summary.labels.filter { varying.contains($0.key) } }
    }

    /// Titles among the groups of one runner: the name plus the labels (other than the runner)
    /// that tell groups apart.
    static func titles(_ summaries: [StrategySummary]) -> [String] {
        Verdict.titles(summaries.map { summary in
            var copy = summary
            copy.labels[runnerLabel] = nil
            return copy
        })
    }

    /// The group as a sweep point: its grid labels when it has them, else a setting named by
    /// its title (interval and minimum length unknown to the record, so not named).
    static func point(_ summary: StrategySummary, title: String) -> SweepPoint {
        if var point = SweepPoint(summary) {
            point.strategy = summary.name
            return point
        }
        return SweepPoint(summary, strategy: title, debounceMs: 0, minLength: 0, fanOut: summary.fanOutMean ?? 0)
    }

    /// The decision table: one row per strategy of the primary runner; the objective, the
    /// `columnIDs` quantities, then the objective on each other runner.
    package var table: (headers: [String], rows: [[String]], best: [[Bool]]) {
        let quantities = Self.columnIDs.compactMap(Quantity.named)
        var headers = ["strategy", "objective"] + quantities.map { Self.shortLabels[$0.id] ?? $0.label }
        headers += otherRunners.map { "objective on \($0)" }
        var columns: [[Double?]] = [rows.map(\.objective)]
        var better: [Better] = [.lower]
        for quantity in quantities {
            columns.append(rows.map { quantity.value($0.summary) })
            better.append(quantity.better)
        }
        for index in otherRunners.indices {
            columns.append(rows.map { $0.otherObjectives[index] })
            better.append(.lower)
        }
        let units: [ValueUnit?] = [nil] + quantities.map(\.unit) + otherRunners.map { _ in nil }
        let best = zip(columns, better).map { values, better -> [Bool] in
            let present = values.compactMap { $0 }
            guard present.count > 1, Set(present).count > 1, let top = better == .lower ? present.min() : present.max() else {
                return values.map { _ in false }
            }
            return values.map { $0 == top }
        }
        let text = rows.indices.map { row in
            var cells = [rows[row].title]
            for (column, values) in columns.enumerated() {
                guard let value = values[row] else { cells.append("–"); continue }
                cells.append(units[column].map { ValueFormat.format(value, unit: $0) } ?? objective.format(value))
            }
            return cells
        }
        return (headers, text, rows.indices.map { row in best.map { $0[row] } })
    }

    /// The decision as plain text for `summary.txt` and the terminal: the lines, then the
    /// table (best value in each column marked `*`).
    package var text: String {
        let table = table
        let marked = zip(table.rows, table.best).map { cells, best in
            cells.enumerated().map { index, cell in index > 0 && best[index - 1] ? cell + "*" : cell }
        }
        var out = lines.joined(separator: "\n") + "\n\n"
        out += (primaryRunner.map { "on the \($0) runner" } ?? "every strategy") + " (* the best in a column, > the choice):\n"
        let rows = marked.enumerated().map { index, cells in [index == chosen ? ">" : ""] + cells }
        out += TextTable(headers: [""] + table.headers, rows: rows, firstNumericColumn: 2).render()
        return out
    }
}
