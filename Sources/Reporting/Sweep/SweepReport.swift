import Foundation

/// The views of a sweep: SVG trade-off plots, an HTML page, a terminal table and JSON.
public struct SweepReport: Sendable {
    public var analysis: SweepAnalysis
    /// Scenario name, for titles.
    public var scenarioName: String

    public init(analysis: SweepAnalysis, scenarioName: String) {
        self.analysis = analysis
        self.scenarioName = scenarioName
    }

    /// The plots of one population, as standalone SVG documents.
    public func charts(population: String) -> [(name: String, svg: String)] {
        let curves = analysis.curves(population: population)
        let recommendation = analysis.recommendation(population: population)
        let suffix = population.isEmpty ? "" : " (\(population))"
        let slug = population.isEmpty ? "" : "-" + population.map { $0.isLetter || $0.isNumber ? $0 : "-" }.map(String.init).joined()
        let maxTime = analysis.points.filter { $0.population == population }.compactMap(\.ttfrP95).max() ?? 1e6
        let unit = ValueFormat.durationAxisUnit(maxNanos: maxTime)

        func curveChart(title: String, x: KeyPath<SweepPoint, Double?>, xName: String, y: @escaping (SweepPoint) -> Double?, yName: String, front: Bool) -> String {
            // Only the first curve's points carry their interval: labels of several curves collide.
            var series = curves.enumerated().map { index, curve -> LineChart.Series in
                let usable = curve.points.filter { $0[keyPath: x] != nil && y($0) != nil }
                return LineChart.Series(
                    name: curves.count > 1 ? "min length \(curve.minLength)" : "debounce sweep",
                    points: usable.map { LineChart.Point(x: $0[keyPath: x]! / unit.divisor, y: y($0)!) },
                    style: .lineWithMarkers,
                    pointLabels: index == 0 ? Self.sparseLabels(usable.map { "\($0.debounceMs)" }) : [])
            }
            if front {
                let pareto = SweepAnalysis.paretoFront(analysis.points.filter { $0.population == population })
                series.append(LineChart.Series(name: "Pareto front", points: pareto.compactMap { p in
                    guard let xv = p[keyPath: x], let yv = y(p) else { return nil }
                    return LineChart.Point(x: xv / unit.divisor, y: yv)
                }))
            }
            var callouts: [LineChart.Callout] = []
            if let r = recommendation, let xv = r.point[keyPath: x], let yv = y(r.point) {
                callouts.append(.init(point: .init(x: xv / unit.divisor, y: yv), text: "\(r.point.debounceMs) ms"))
            }
            return LineChart(title: title + suffix, xTitle: "\(xName) (\(unit.symbol))", yTitle: yName, series: series,
                             callouts: callouts, emptyNote: "no grid point has fresh results").svg()
        }

        var charts: [(String, String)] = []
        charts.append(("fanout-p95\(slug)", curveChart(title: "Requests vs p95 time to fresh results", x: \.ttfrP95, xName: "p95 time to fresh results",
                                                       y: { $0.fanOut }, yName: "requests per search", front: true)))
        charts.append(("fanout-p50\(slug)", curveChart(title: "Requests vs median time to fresh results", x: \.ttfrP50, xName: "median time to fresh results",
                                                       y: { $0.fanOut }, yName: "requests per search", front: false)))
        charts.append(("waste-p95\(slug)", curveChart(title: "Wasted work vs p95 time to fresh results", x: \.ttfrP95, xName: "p95 time to fresh results",
                                                      y: { $0.wastedShare.map { $0 * 100 } }, yName: "wasted service time (%)", front: false)))
        charts.append(("waste-p50\(slug)", curveChart(title: "Wasted work vs median time to fresh results", x: \.ttfrP50, xName: "median time to fresh results",
                                                      y: { $0.wastedShare.map { $0 * 100 } }, yName: "wasted service time (%)", front: false)))
        let stale = LineChart(
            title: "Stale overwrites by debounce" + suffix, xTitle: "debounce interval (ms)", yTitle: "wrong final screens (% of searches)",
            series: curves.map { curve in
                LineChart.Series(name: curves.count > 1 ? "min length \(curve.minLength)" : "debounce sweep",
                                 points: curve.points.map { .init(x: Double($0.debounceMs), y: $0.staleShare * 100) }, style: .lineWithMarkers)
            })
        charts.append(("stale\(slug)", stale.svg()))
        return charts
    }

    /// Labels every point when there are few, else every k-th, so labels do not pile up.
    static func sparseLabels(_ labels: [String]) -> [String] {
        let every = max(1, labels.count / 8)
        return labels.enumerated().map { $0.offset % every == 0 || $0.offset == labels.count - 1 ? $0.element : "" }
    }

    public func terminalTable() -> String {
        var out = ""
        for recommendation in analysis.recommendations {
            out += recommendation.sentence + "\n"
        }
        let table = TextTable(
            headers: ["population", "min len", "debounce", "req/search", "wasted", "TTFR p50", "TTFR p95", "stale", "front"],
            rows: analysis.populations.flatMap { population -> [[String]] in
                let front = Set(SweepAnalysis.paretoFront(analysis.points.filter { $0.population == population }).map { "\($0.minLength)/\($0.debounceMs)" })
                let chosen = analysis.recommendation(population: population)?.point
                return analysis.points.filter { $0.population == population }.map { p in
                    var mark = front.contains("\(p.minLength)/\(p.debounceMs)") ? "*" : ""
                    if p == chosen { mark += " <- recommended" }
                    return [population.isEmpty ? "-" : population, "\(p.minLength)", "\(p.debounceMs) ms", ValueFormat.significant(p.fanOut),
                            p.wastedShare.map(ValueFormat.percent) ?? "–", p.ttfrP50.map { ValueFormat.duration(nanos: $0) } ?? "never",
                            p.ttfrP95.map { ValueFormat.duration(nanos: $0) } ?? "never", ValueFormat.percent(p.staleShare), mark]
                }
            }, firstNumericColumn: 1)
        return out + "\n" + table.render()
    }

    public func json() throws -> String {
        /// Optional values are written as null rather than left out, so every point has every key.
        struct Point: Encodable {
            var population: String, minLength: Int, debounceMs: Int, requestsPerSearch: Double, wastedShare: Double?
            var ttfrP50Nanos: Double?, ttfrP95Nanos: Double?, staleShare: Double, paretoFront: Bool
            enum CodingKeys: String, CodingKey {
                case population, minLength, debounceMs, requestsPerSearch, wastedShare, ttfrP50Nanos, ttfrP95Nanos, staleShare, paretoFront
            }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(population, forKey: .population)
                try c.encode(minLength, forKey: .minLength)
                try c.encode(debounceMs, forKey: .debounceMs)
                try c.encode(requestsPerSearch, forKey: .requestsPerSearch)
                try c.encode(wastedShare, forKey: .wastedShare)
                try c.encode(ttfrP50Nanos, forKey: .ttfrP50Nanos)
                try c.encode(ttfrP95Nanos, forKey: .ttfrP95Nanos)
                try c.encode(staleShare, forKey: .staleShare)
                try c.encode(paretoFront, forKey: .paretoFront)
            }
        }
        struct Recommendation: Encodable {
            var population: String, minLength: Int, debounceMs: Int, rule: String, budget: Double?, satisfied: Bool, sentence: String
            enum CodingKeys: String, CodingKey { case population, minLength, debounceMs, rule, budget, satisfied, sentence }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(population, forKey: .population)
                try c.encode(minLength, forKey: .minLength)
                try c.encode(debounceMs, forKey: .debounceMs)
                try c.encode(rule, forKey: .rule)
                try c.encode(budget, forKey: .budget)
                try c.encode(satisfied, forKey: .satisfied)
                try c.encode(sentence, forKey: .sentence)
            }
        }
        struct Document: Encodable {
            var scenario: String, points: [Point], recommendations: [Recommendation]
        }
        var budget: Double?
        var ruleName = "knee"
        if case let .budget(limit) = analysis.rule {
            budget = limit
            ruleName = "budget"
        }
        let fronts = Dictionary(uniqueKeysWithValues: analysis.populations.map { population in
            (population, Set(SweepAnalysis.paretoFront(analysis.points.filter { $0.population == population }).map { "\($0.minLength)/\($0.debounceMs)" }))
        })
        let document = Document(
            scenario: scenarioName,
            points: analysis.points.map { p in
                Point(population: p.population, minLength: p.minLength, debounceMs: p.debounceMs, requestsPerSearch: p.fanOut, wastedShare: p.wastedShare,
                      ttfrP50Nanos: p.ttfrP50, ttfrP95Nanos: p.ttfrP95, staleShare: p.staleShare,
                      paretoFront: fronts[p.population]?.contains("\(p.minLength)/\(p.debounceMs)") ?? false)
            },
            recommendations: analysis.recommendations.map { r in
                Recommendation(population: r.population, minLength: r.point.minLength, debounceMs: r.point.debounceMs, rule: ruleName,
                               budget: budget, satisfied: r.satisfied, sentence: r.sentence)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }

    /// A self-contained page: recommendations, then each population's plots.
    public func html() -> String {
        var html = "<!DOCTYPE html>\n" + Markup.open("html", [("lang", "en"), ("xmlns", "http://www.w3.org/1999/xhtml")]) + "\n<head>\n"
        html += Markup.empty("meta", [("charset", "utf-8")]) + "\n"
        html += Markup.empty("meta", [("name", "color-scheme"), ("content", "light dark")]) + "\n"
        html += Markup.element("title", text: "Typestorm sweep: \(scenarioName)") + "\n<style>\n" + ReportStylesheet.css + "\n</style>\n</head>\n<body>\n"
        html += Markup.element("h1", text: "Typestorm sweep: \(scenarioName)") + "\n"
        let rule: String
        switch analysis.rule {
        case .knee: rule = "Rule: the knee of the Pareto front of p95 time to fresh results against requests per search."
        case let .budget(limit): rule = "Rule: the smallest debounce interval with at most \(ValueFormat.significant(limit)) requests per search."
        }
        html += Markup.element("p", [("class", "sub")], text: "\(analysis.points.count) grid points. " + rule) + "\n"
        html += Markup.element("h2", text: "Recommendation") + "\n<ul>\n"
        for recommendation in analysis.recommendations {
            html += Markup.element("li", text: recommendation.sentence) + "\n"
        }
        html += "</ul>\n"
        for population in analysis.populations {
            html += Markup.element("h2", text: population.isEmpty ? "Trade-off curves" : "Trade-off curves: \(population)") + "\n<div class=\"charts\">\n"
            for chart in charts(population: population) {
                html += "<figure>\n" + chart.svg + "\n</figure>\n"
            }
            html += "</div>\n"
        }
        html += Markup.element("h2", text: "Grid") + "\n" + Markup.element("pre", text: terminalTable()) + "\n"
        return html + "</body>\n</html>\n"
    }
}
