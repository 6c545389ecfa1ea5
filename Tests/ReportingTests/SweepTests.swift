import Foundation
import TypestormMetrics
import Testing
@testable import Reporting

@Suite("Sweep", .timeLimit(.minutes(5)))
struct SweepTests {
    /// A histogram holding `value` a hundred times (its percentiles are `value`).
    static func histogram(_ value: Double) -> Histogram {
        var histogram = Histogram()
        histogram.record(Int64(value), count: 100)
        return histogram
    }

    /// One synthetic run: p95 = interval + 100 ms + `noiseMs`, the given requests per search.
    static func point(_ strategy: String = "split-state", debounce: Int, requests: Double, noiseMs: Double = 0, replicate: Int,
                      population: String = "", share: Double? = nil, stale: Double = 0, neverFresh: Double = 0, minLength: Int = 2) -> SweepPoint {
        let p95 = (Double(debounce) + 100 + noiseMs) * 1e6
        return SweepPoint(strategy: strategy, debounceMs: debounce, minLength: minLength, population: population, share: share, replicate: replicate,
                          fanOut: requests, wastedShare: nil, ttfrP50: p95 * 0.6, ttfrP95: p95, ttfr: histogram(p95),
                          staleShare: stale, neverFreshShare: neverFresh)
    }

    /// At 100 ms per request: objective 700, 500, 500, 560, 650 ms for 0…400 ms; 100 and 200 ms
    /// differ only by noise (±2 ms per replicate), the rest by far more. Upper 95 % bounds:
    /// 100 ms 500 + 2.776 · 1.58/√5 = 501.96 ms, 200 ms 500.2 + 2.776 · 1.30/√5 = 501.82 ms.
    static let requests: [Int: Double] = [0: 6, 100: 3, 200: 2, 300: 1.6, 400: 1.5]
    static let noise: [Int: [Double]] = [100: [1, -1, 2, -2, 0], 200: [-1, 2, 0, 1, -1]]
    static func curve(population: String = "", share: Double? = nil) -> [SweepPoint] {
        (0..<5).flatMap { replicate in
            requests.keys.sorted().map { debounce in
                point(debounce: debounce, requests: requests[debounce]!, noiseMs: noise[debounce]?[replicate] ?? 0,
                      replicate: replicate, population: population, share: share)
            }
        }
    }
    static let cost = SweepObjective(goal: .requestCost(nanos: 100e6))

    @Test func theGoodRangeHoldsSettingsNotSignificantlyWorseAndTheRuleTakesItsLowestUpperBound() throws {
        let analysis = SweepAnalysis(points: Self.curve(), objective: Self.cost)
        let results = try #require(analysis.results["all"])
        #expect(results.filter(\.inGoodRange).map(\.setting.debounceMs) == [100, 200])
        let recommendation = try #require(analysis.recommendation(scope: "all"))
        #expect(recommendation.result?.setting == SweepSetting(strategy: "split-state", minLength: 2, debounceMs: 200))
        #expect(recommendation.best?.debounceMs == 100)
        #expect(recommendation.runnerUp?.setting.debounceMs == 100)
        let objective = try #require(recommendation.result?.objective)
        #expect(abs(objective.mean - 500.2e6) < 1e3)
        #expect(try #require(objective.halfWidth) > 0)
        #expect(recommendation.sentence.contains("split-state, debounce 200 ms, min length 2."))
        #expect(recommendation.sentence.contains("p95 time to fresh results + 100 ms per request"))
        #expect(recommendation.sentence.contains("95 % confidence over 5 replicates"))
        #expect(recommendation.sentence.contains("Good range (not significantly worse than the best): split-state at min length 2: 100–200 ms"))
        #expect(recommendation.sentence.contains("Runner-up: split-state, debounce 100 ms, min length 2"))
    }

    @Test func aStrategyThatBreaksTheStaleConstraintIsDisqualifiedHoweverFastItIs() throws {
        // A fast, cheap strategy that shows the wrong results after 5 % of searches.
        let flawed = (0..<5).flatMap { replicate in
            Self.requests.keys.sorted().map { Self.point("debounce-switch", debounce: $0, requests: 1, replicate: replicate, stale: 0.05) }
        }
        let analysis = SweepAnalysis(points: Self.curve() + flawed, objective: Self.cost)
        let recommendation = try #require(analysis.recommendation(scope: "all"))
        #expect(recommendation.result?.setting.strategy == "split-state")
        let switchResult = try #require(analysis.results["all"]?.first { $0.setting.strategy == "debounce-switch" })
        #expect(switchResult.disqualifiedBy == ["wrong final screens 5.0 % > 1.0 %"])
        // Loosened to 10 %, the flawed strategy wins.
        let loose = SweepAnalysis(points: Self.curve() + flawed, objective: SweepObjective(goal: .requestCost(nanos: 100e6), maxStaleShare: 0.1))
        #expect(loose.recommendation(scope: "all")?.result?.setting.strategy == "debounce-switch")
    }

    @Test func nothingMeetsTheConstraintsSaysSoAndFails() throws {
        let never = (0..<3).map { Self.point(debounce: 100, requests: 2, replicate: $0, neverFresh: 0.2) }
        let recommendation = try #require(SweepAnalysis(points: never).recommendation(scope: "all"))
        #expect(!recommendation.satisfied)
        #expect(recommendation.result == nil)
        #expect(recommendation.sentence.hasPrefix("All typists (the scenario's mix): no setting meets"))
        #expect(recommendation.sentence.contains("never-fresh searches 20.0 % > 1.0 %"))
    }

    @Test func budgetAndLatencyGoals() throws {
        // Budget 2.5 requests: 0 and 100 ms are out; the fastest p95 within it is 200 ms.
        let budget = SweepAnalysis(points: Self.curve(), objective: SweepObjective(goal: .budget(requestsPerSearch: 2.5)))
        #expect(budget.recommendation(scope: "all")?.result?.setting.debounceMs == 200)
        #expect(budget.results["all"]?.first { $0.setting.debounceMs == 100 }?.disqualifiedBy == ["requests per search 3.00 > 2.50"])
        // p95 within 420 ms: 0…300 ms qualify; the fewest requests is 300 ms.
        let target = SweepAnalysis(points: Self.curve(), objective: SweepObjective(goal: .ttfrP95(nanos: 420e6)))
        #expect(target.recommendation(scope: "all")?.result?.setting.debounceMs == 300)
        #expect(target.objective.statement == "requests per search, with p95 time to fresh results at most 420 ms")
    }

    @Test func populationsAreWeighedByShareAndADisjointPopulationIsFlagged() throws {
        // desktop-en (90 %) has the curve above; mobile-en (10 %) is cheapest at 400 ms.
        let mobile = (0..<5).flatMap { replicate in
            Self.requests.keys.sorted().map { debounce in
                Self.point(debounce: debounce, requests: debounce == 400 ? 0.1 : 6, replicate: replicate, population: "mobile-en", share: 0.1)
            }
        }
        let analysis = SweepAnalysis(points: Self.curve(population: "desktop-en", share: 0.9) + mobile, objective: Self.cost)
        #expect(analysis.scopes.map(\.name) == ["all", "desktop", "mobile", "desktop-en", "mobile-en"])
        // all: requests 0.9·3 + 0.1·6 = 3.3 at 100 ms and 0.9·2 + 0.1·6 = 2.4 at 200 ms, so
        // objectives of about 200 + 330 and 300 + 240 ms: 100 ms is better by 10 ms.
        let all100 = try #require(analysis.results["all"]?.first { $0.setting.debounceMs == 100 })
        #expect(abs(all100.requests.mean - 3.3) < 1e-9)
        #expect(analysis.recommendation(scope: "all")?.result?.setting.debounceMs == 100)
        #expect(analysis.recommendation(scope: "all")?.goodRange.map(\.debounceMs) == [100])
        #expect(analysis.recommendation(scope: "desktop")?.differsFromOverall == false)
        let mobileAnswer = try #require(analysis.recommendation(scope: "mobile-en"))
        #expect(mobileAnswer.result?.setting.debounceMs == 400)
        #expect(mobileAnswer.differsFromOverall)
        #expect(mobileAnswer.sentence.contains("This differs from the overall recommendation"))
        #expect(analysis.recommendation(scope: "desktop-en")?.differsFromOverall == false)
        // The terminal output gives the flagged population its own answer, not the others.
        let text = SweepReport(analysis: analysis, scenarioName: "t").terminalTable()
        #expect(text.contains("mobile-en: split-state, debounce 400 ms"))
        #expect(!text.contains("desktop-en: split-state"))
    }

    @Test func mixturePercentileWeighsPopulationsByShare() {
        let fast = Self.point(debounce: 0, requests: 1, replicate: 0, population: "a")
        let slow = Self.point(debounce: 900, requests: 1, replicate: 0, population: "b")
        // 90 % of the mass at 100 ms: p50 is 100 ms, p95 is 1 s.
        let p50 = SweepAnalysis.mixturePercentile(50, [fast, slow], weights: [0.9, 0.1])!
        let p95 = SweepAnalysis.mixturePercentile(95, [fast, slow], weights: [0.9, 0.1])!
        #expect(abs(p50 - 100e6) / 100e6 < 0.01)
        #expect(abs(p95 - 1000e6) / 1000e6 < 0.01)
        #expect(abs(SweepAnalysis.mixturePercentile(95, [fast, slow], weights: [0.97, 0.03])! - 100e6) / 100e6 < 0.01)
    }

    @Test func confidenceIntervalsUseStudentsT() {
        #expect(abs(SweepEstimate.criticalT(degreesOfFreedom: 4) - 2.776) < 0.001)
        #expect(abs(SweepEstimate.criticalT(degreesOfFreedom: 1) - 12.706) < 0.01)
        let estimate = SweepEstimate([1, 2, 3, 4, 5])
        #expect(estimate.mean == 3)
        #expect(abs(estimate.halfWidth! - 2.776 * (2.5 / 5).squareRoot()) < 0.01)
        #expect(SweepEstimate([7]).halfWidth == nil)
        // One more run: t · s · √(1 + 1/n), the interval a single live run should land in.
        #expect(abs(estimate.predictionHalfWidth! - 2.776 * 2.5.squareRoot() * (1 + 1.0 / 5).squareRoot()) < 0.01)
        #expect(SweepEstimate([7]).predictionHalfWidth == nil)
    }

    @Test func goodRangesAreWrittenAsRunsOfTheGrid() {
        let grid = [0, 100, 200, 300, 400].map { SweepSetting(strategy: "s", minLength: 2, debounceMs: $0) }
        let range = [100, 200, 400].map { SweepSetting(strategy: "s", minLength: 2, debounceMs: $0) } + [SweepSetting(strategy: "s", minLength: 3, debounceMs: 0)]
        #expect(SweepAnalysis.describe(range, among: grid + [SweepSetting(strategy: "s", minLength: 3, debounceMs: 0)])
            == "s at min length 2: 100–200 ms, 400 ms; s at min length 3: 0 ms")
    }

    @Test func aStoredSweepRecordGivesAnswersChartsAndStableJSON() throws {
        let record = try Fixtures.record("sweep.json")
        let analysis = SweepAnalysis(points: record.sweepPoints)
        #expect(analysis.points.count == 2 * 2 * 13)
        #expect(analysis.populations == ["desktop-en", "mobile-ko"])
        #expect(analysis.scopes.map(\.name) == ["all", "desktop", "mobile", "desktop-en", "mobile-ko"])
        #expect(analysis.recommendations.count == 5)
        let report = SweepReport(analysis: analysis, scenarioName: "sweep-default", baseSeed: 1)
        for scope in analysis.scopes {
            let charts = report.charts(scope: scope.name)
            #expect(charts.count == 3)
            for chart in charts { XMLCheck.check(chart.svg, chart.name) }
        }
        let html = report.html()
        #expect(XMLCheck.check(html, "sweep.html").counts["svg"] == 15)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try report.json().utf8)) as? [String: Any])
        #expect(Set(json.keys) == ["scenario", "baseSeed", "replicates", "confidence", "objective", "recommendations", "points"])
        let all = try #require((json["recommendations"] as? [[String: Any]])?.first)
        #expect(all["population"] as? String == "all")
        for key in ["strategy", "debounceMs", "minLength", "objective", "goodRange", "runnerUp", "satisfied", "sentence", "differsFromOverall"] {
            #expect(all.keys.contains(key), "missing \(key)")
        }
        #expect(all["strategy"] is String)
        #expect(all["debounceMs"] is Int)
    }

    @Test func objectiveChartsHaveBandsAndTheGoodRangeShaded() throws {
        let report = SweepReport(analysis: SweepAnalysis(points: Self.curve(), objective: Self.cost), scenarioName: "t")
        let objective = try #require(report.charts(scope: "all").first { $0.name.hasPrefix("objective") })
        #expect(objective.svg.contains("fill-opacity=\"0.18\""))
        #expect(objective.svg.contains("<rect"))
        #expect(objective.svg.contains("200 ms"))
        #expect(SweepReport.shades([0, 100, 300].map { SweepSetting(strategy: "s", minLength: 2, debounceMs: $0) }, grid: [0, 100, 200, 300, 400])
            == [0...100, 300...300])
    }
}
