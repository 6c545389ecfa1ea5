import Foundation

/// The views of a sweep: the recommendations in sentences, a terminal table, JSON, and an HTML
/// page with the objective against the interval (confidence bands, good range shaded), the
/// trade-off plot with its Pareto front, and the correctness shares.
package struct SweepReport: Sendable {
    package var analysis: SweepAnalysis
    /// Scenario name, for titles.
    package var scenarioName: String
    /// The base seed of the replicates (`nil` for a stored record without one).
    package var baseSeed: UInt64?

    package init(analysis: SweepAnalysis, scenarioName: String, baseSeed: UInt64? = nil) {
        self.analysis = analysis
        self.scenarioName = scenarioName
        self.baseSeed = baseSeed
    }

    /// One curve per (strategy, minimum length), ordered by interval.
    static func curves(_ results: [SweepAnalysis.SettingResult]) -> [(name: String, results: [SweepAnalysis.SettingResult])] {
        var curves: [(name: String, results: [SweepAnalysis.SettingResult])] = []
        for result in results.sorted(by: { $0.setting < $1.setting }) {
            let name = (result.setting.strategy.isEmpty ? "" : result.setting.strategy + ", ") + "min length \(result.setting.minLength)"
            if curves.last?.name == name { curves[curves.count - 1].results.append(result) } else { curves.append((name, [result])) }
        }
        return curves
    }

    /// The plots of one scope, as standalone SVG documents.
    package func charts(scope name: String) -> [(name: String, svg: String)] {
        guard let results = analysis.results[name], let recommendation = analysis.recommendation(scope: name) else { return [] }
        let objective = analysis.objective
        let curves = Self.curves(results)
        let slug = "-" + name.map { $0.isLetter || $0.isNumber ? $0 : "-" }.map(String.init).joined()
        let chosen = recommendation.result?.setting
        let maxTime = results.compactMap { $0.ttfrP95?.high }.max() ?? 1e6
        let timeUnit = ValueFormat.durationAxisUnit(maxNanos: maxTime)
        let objectiveUnit = objective.isTime ? ValueFormat.durationAxisUnit(maxNanos: results.compactMap { $0.objective?.high }.max() ?? 1e6) : (divisor: 1.0, symbol: "")
        let objectiveScale = { (value: Double) in value / objectiveUnit.divisor }
        var charts: [(String, String)] = []

        // Objective against the interval, with 95 % bands; the good range shaded.
        let eligible = curves.map { curve in (curve.name, curve.results.filter { $0.objective != nil }) }
        let objectiveChart = LineChart(
            title: "Objective by interval (\(name))", xTitle: "debounce interval (ms)",
            yTitle: objective.isTime ? "\(objective.statement) (\(objectiveUnit.symbol))" : "requests per search",
            series: eligible.map { curve in
                LineChart.Series(name: curve.0, points: curve.1.map { .init(x: Double($0.setting.debounceMs), y: objectiveScale($0.objective!.mean)) },
                                 style: .lineWithMarkers)
            },
            yFloor: nil,
            callouts: recommendation.result.flatMap { r in
                r.objective.map { [.init(point: .init(x: Double(r.setting.debounceMs), y: objectiveScale($0.mean)), text: "\(r.setting.debounceMs) ms")] }
            } ?? [],
            bands: eligible.enumerated().map { index, curve in
                LineChart.Band(series: index, lower: curve.1.map { .init(x: Double($0.setting.debounceMs), y: objectiveScale($0.objective!.low)) },
                               upper: curve.1.map { .init(x: Double($0.setting.debounceMs), y: objectiveScale($0.objective!.high)) })
            },
            xShades: Self.shades(recommendation.goodRange.filter { chosen == nil || ($0.strategy == chosen!.strategy && $0.minLength == chosen!.minLength) },
                                 grid: results.map(\.setting.debounceMs)),
            emptyNote: "no setting has fresh results in every replicate")
        charts.append(("objective\(slug)", objectiveChart.svg()))

        // The trade-off: p95 time to fresh results against requests per search, and the front.
        let front = results.filter(\.paretoFront).sorted { $0.ttfrP95!.mean < $1.ttfrP95!.mean }
        var series = curves.map { curve in
            let usable = curve.results.filter { $0.ttfrP95 != nil }
            return LineChart.Series(name: curve.name, points: usable.map { .init(x: $0.ttfrP95!.mean / timeUnit.divisor, y: $0.requests.mean) },
                                    style: .lineWithMarkers)
        }
        series.append(LineChart.Series(name: "Pareto front", points: front.map { .init(x: $0.ttfrP95!.mean / timeUnit.divisor, y: $0.requests.mean) }))
        let tradeOff = LineChart(
            title: "Requests vs p95 time to fresh results (\(name))", xTitle: "p95 time to fresh results (\(timeUnit.symbol))",
            yTitle: "requests per search", series: series,
            callouts: recommendation.result.flatMap { r in
                r.ttfrP95.map { [.init(point: .init(x: $0.mean / timeUnit.divisor, y: r.requests.mean), text: "\(r.setting.debounceMs) ms")] }
            } ?? [],
            emptyNote: "no setting has fresh results")
        charts.append(("tradeoff\(slug)", tradeOff.svg()))

        // Correctness: stale and never-fresh shares against the interval, with the limits.
        let intervals = Array(Set(results.map(\.setting.debounceMs))).sorted()
        var correctness = curves.flatMap { curve in [
            LineChart.Series(name: "wrong final screens, \(curve.name)", points: curve.results.map { .init(x: Double($0.setting.debounceMs), y: $0.stale.mean * 100) },
                             style: .lineWithMarkers),
            LineChart.Series(name: "never fresh, \(curve.name)", points: curve.results.map { .init(x: Double($0.setting.debounceMs), y: $0.neverFresh.mean * 100) }),
        ] }
        if let first = intervals.first, let last = intervals.last {
            correctness.append(LineChart.Series(name: "limit", points: [.init(x: Double(first), y: objective.maxStaleShare * 100),
                                                                        .init(x: Double(last), y: objective.maxStaleShare * 100)]))
        }
        charts.append(("correctness\(slug)", LineChart(title: "Wrong and never-fresh searches (\(name))", xTitle: "debounce interval (ms)",
                                                       yTitle: "% of searches", series: correctness).svg()))
        return charts
    }

    /// The good range's intervals as shaded x ranges, one per run of intervals consecutive in the grid.
    static func shades(_ settings: [SweepSetting], grid: [Int]) -> [ClosedRange<Double>] {
        let grid = Array(Set(grid)).sorted()
        let wanted = Set(settings.map(\.debounceMs))
        var ranges: [ClosedRange<Double>] = []
        var start: Int?
        for (index, interval) in grid.enumerated() {
            if wanted.contains(interval) {
                if start == nil { start = interval }
                if index == grid.count - 1 || !wanted.contains(grid[index + 1]) {
                    ranges.append(Double(start!)...Double(interval))
                    start = nil
                }
            }
        }
        return ranges
    }

    // MARK: Terminal

    package func terminalTable() -> String {
        var out = "Objective: minimise \(analysis.objective.statement), subject to \(analysis.objective.constraints).\n\n"
        for recommendation in analysis.recommendations where recommendation.scope.kind != .population || recommendation.differsFromOverall || !recommendation.satisfied {
            out += recommendation.sentence + "\n\n"
        }
        let overall = analysis.recommendations.first
        let detail = analysis.recommendations.filter { $0.scope.kind == .population }
        if !detail.isEmpty, let overallSetting = overall?.result?.setting {
            out += "Per population, at the overall recommendation (\(overallSetting.description)):\n"
            let severalStrategies = Set(analysis.points.map(\.strategy)).count > 1
            let table = TextTable(
                headers: ["population", "objective", "req/search", "TTFR p95", "stale", "never fresh", "own pick", "overlaps"],
                rows: detail.map { recommendation in
                    let at = analysis.results[recommendation.scope.name]?.first { $0.setting == overallSetting }
                    return [recommendation.scope.name, at?.objective.map(format) ?? "–", at.map { ValueFormat.significant($0.requests.mean) } ?? "–",
                            at?.ttfrP95.map { ValueFormat.duration(nanos: $0.mean) } ?? "never", at.map { ValueFormat.percent($0.stale.mean) } ?? "–",
                            at.map { ValueFormat.percent($0.neverFresh.mean) } ?? "–",
                            recommendation.result.map { "\($0.setting.debounceMs) ms, min \($0.setting.minLength)" + (severalStrategies ? ", \($0.setting.strategy)" : "") } ?? "none",
                            recommendation.differsFromOverall ? "no (flagged)" : recommendation.satisfied ? "yes" : "–"]
                }, firstNumericColumn: 1)
            out += table.render() + "\n"
        }
        out += "All typists, every setting (means; ± is the 95 % interval over \(analysis.replicates) replicates):\n"
        let table = TextTable(
            headers: ["strategy", "min len", "debounce", "objective", "req/search", "TTFR p95", "stale", "never fresh", "verdict"],
            rows: (analysis.results["all"] ?? []).map { r in
                var mark = r.eligible ? (r.inGoodRange ? "good range" : "") : "✗ " + r.disqualifiedBy.joined(separator: "; ")
                if r.setting == overall?.result?.setting { mark = "<- recommended" }
                return [r.setting.strategy, "\(r.setting.minLength)", "\(r.setting.debounceMs) ms", r.objective.map(format) ?? "–",
                        ValueFormat.significant(r.requests.mean), r.ttfrP95.map { ValueFormat.duration(nanos: $0.mean) } ?? "never",
                        ValueFormat.percent(r.stale.mean), ValueFormat.percent(r.neverFresh.mean), mark]
            }, firstNumericColumn: 1)
        return out + table.render()
    }

    func format(_ estimate: SweepEstimate) -> String {
        analysis.objective.format(estimate.mean) + (estimate.halfWidth.map { " ± " + analysis.objective.format($0) } ?? "")
    }

    // MARK: JSON

    package func json() throws -> String {
        try JSONDocument.text(document())
    }

    /// Stable keys, every key present (null where not applicable); documented in docs/tuning.md.
    func document() -> [String: JSON] {
        let objective = analysis.objective
        /// `share`: a share's interval stays within 0…1; every other quantity here is at least 0.
        func estimate(_ e: SweepEstimate?, share: Bool = false, signed: Bool = false) -> JSON {
            guard let e else { return .null }
            func bounded(_ value: Double) -> Double {
                signed ? value : min(max(value, 0), share ? 1 : .infinity)
            }
            let prediction = e.predictionHalfWidth
            return .object([
                "mean": .number(e.mean), "low": e.halfWidth == nil ? .null : .number(bounded(e.low)),
                "high": e.halfWidth == nil ? .null : .number(bounded(e.high)),
                "oneRunLow": prediction.map { .number(bounded(e.mean - $0)) } ?? .null,
                "oneRunHigh": prediction.map { .number(bounded(e.mean + $0)) } ?? .null,
            ])
        }
        func setting(_ s: SweepSetting?) -> JSON {
            guard let s else { return .null }
            return .object(["strategy": .string(s.strategy), "debounceMs": .number(Double(s.debounceMs)), "minLength": .number(Double(s.minLength))])
        }
        var goal: [String: JSON] = ["kind": .string(objective.kind), "requestCostNanos": .null, "budget": .null, "ttfrP95Nanos": .null,
                                    "maxStaleShare": .number(objective.maxStaleShare), "maxNeverFreshShare": .number(objective.maxNeverFreshShare),
                                    "statement": .string(objective.statement), "unit": .string(objective.isTime ? "nanoseconds" : "requests per search")]
        switch objective.goal {
        case let .requestCost(cost): goal["requestCostNanos"] = .number(cost)
        case let .budget(limit): goal["budget"] = .number(limit)
        case let .ttfrP95(limit): goal["ttfrP95Nanos"] = .number(limit)
        }
        let recommendations: [JSON] = analysis.recommendations.map { r in
            .object([
                "population": .string(r.scope.name), "scope": .string(r.scope.kind.rawValue),
                "strategy": r.result.map { .string($0.setting.strategy) } ?? .null,
                "debounceMs": r.result.map { .number(Double($0.setting.debounceMs)) } ?? .null,
                "minLength": r.result.map { .number(Double($0.setting.minLength)) } ?? .null,
                "objective": estimate(r.result?.objective), "requestsPerSearch": estimate(r.result?.requests),
                "ttfrP95Nanos": estimate(r.result?.ttfrP95), "staleShare": estimate(r.result?.stale, share: true), "neverFreshShare": estimate(r.result?.neverFresh, share: true),
                "best": setting(r.best), "runnerUp": setting(r.runnerUp?.setting), "runnerUpObjective": estimate(r.runnerUp?.objective),
                "goodRange": .array(r.goodRange.map(setting)), "satisfied": .bool(r.satisfied),
                "differsFromOverall": .bool(r.differsFromOverall), "replicates": .number(Double(r.replicates)), "sentence": .string(r.sentence),
            ])
        }
        var points: [JSON] = []
        for scope in analysis.scopes {
            for r in analysis.results[scope.name] ?? [] {
                points.append(.object([
                    "population": .string(scope.name), "strategy": .string(r.setting.strategy), "debounceMs": .number(Double(r.setting.debounceMs)),
                    "minLength": .number(Double(r.setting.minLength)), "replicates": .number(Double(r.requests.values.count)),
                    "requestsPerSearch": estimate(r.requests), "ttfrP50Nanos": estimate(r.ttfrP50), "ttfrP95Nanos": estimate(r.ttfrP95),
                    "staleShare": estimate(r.stale, share: true), "neverFreshShare": estimate(r.neverFresh, share: true),
                    "wastedShare": estimate(r.wasted, share: true),
                    "objective": estimate(r.objective), "differenceFromBest": estimate(r.differenceFromBest, signed: true),
                    "eligible": .bool(r.eligible), "disqualifiedBy": .array(r.disqualifiedBy.map(JSON.string)),
                    "goodRange": .bool(r.inGoodRange), "paretoFront": .bool(r.paretoFront),
                ]))
            }
        }
        return [
            "scenario": .string(scenarioName), "baseSeed": baseSeed.map { .unsigned($0) } ?? .null,
            "replicates": .number(Double(analysis.replicates)), "confidence": .number(SweepEstimate.confidence),
            "objective": .object(goal), "recommendations": .array(recommendations), "points": .array(points),
        ]
    }

    /// A small JSON tree, so optional values are written as null and keys come out sorted.
    indirect enum JSON: Encodable {
        case null, bool(Bool), number(Double), unsigned(UInt64), string(String), array([JSON]), object([String: JSON])
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case let .bool(value): try container.encode(value)
            case let .number(value):
                if value == value.rounded(), abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
            case let .unsigned(value): try container.encode(value)
            case let .string(value): try container.encode(value)
            case let .array(value): try container.encode(value)
            case let .object(value): try container.encode(value)
            }
        }
    }

    // MARK: HTML

    /// A self-contained page: the recommendations, then per scope (all, each device class, each
    /// population) its plots.
    package func html() -> String {
        var html = ReportStylesheet.pageStart(title: "Typestorm sweep: \(scenarioName)")
        html += Markup.element("h1", text: "Typestorm sweep: \(scenarioName)") + "\n"
        let seed = baseSeed.map { ", base seed \($0)" } ?? ""
        html += Markup.element("p", [("class", "sub")], text: "Objective: minimise \(analysis.objective.statement), subject to \(analysis.objective.constraints). \(analysis.replicates) replicates\(seed); intervals are 95 % confidence intervals of the mean. The good range holds the settings whose objective is not significantly worse than the best (paired by replicate); the recommendation is its most conservative point.") + "\n"
        html += Markup.element("h2", text: "Recommendations") + "\n<ul>\n"
        for recommendation in analysis.recommendations where recommendation.scope.kind != .population || recommendation.differsFromOverall || !recommendation.satisfied {
            html += Markup.element("li", text: recommendation.sentence) + "\n"
        }
        html += "</ul>\n"
        for scope in analysis.scopes {
            let title = scope.kind == .overall ? "All typists" : scope.kind == .device ? "Device class: \(scope.name)" : "Population: \(scope.name)"
            html += Markup.element("h2", text: title) + "\n"
            if scope.kind != .overall, let recommendation = analysis.recommendation(scope: scope.name) {
                html += Markup.element("p", text: recommendation.sentence) + "\n"
            }
            html += "<div class=\"charts\">\n"
            for chart in charts(scope: scope.name) {
                html += "<figure>\n" + chart.svg + "\n</figure>\n"
            }
            html += "</div>\n"
        }
        html += Markup.element("h2", text: "Grid") + "\n" + Markup.element("pre", text: terminalTable()) + "\n"
        return html + ReportStylesheet.pageEnd
    }
}
