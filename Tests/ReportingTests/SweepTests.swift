import Foundation
import Testing
@testable import Reporting

@Suite("Sweep")
struct SweepTests {
    /// A synthetic trade-off curve (p95 TTFR in ms, requests per search) with one dominated point.
    static let curve: [SweepPoint] = [
        (0, 200.0, 9.0), (100, 300, 4), (200, 400, 2.5), (300, 500, 2), (400, 600, 1.8), (450, 700, 1.9),
    ].map { SweepPoint(debounceMs: $0.0, minLength: 1, fanOut: $0.2, wastedShare: nil, ttfrP50: $0.1 * 0.6e6, ttfrP95: $0.1 * 1e6) }

    @Test func paretoFrontDropsDominatedPoints() {
        let front = SweepAnalysis.paretoFront(Self.curve)
        #expect(front.map(\.debounceMs) == [0, 100, 200, 300, 400])
    }

    @Test func kneeRuleOnASyntheticCurve() throws {
        // Normalised over the front: x = (t − 200)/400, y = (f − 1.8)/7.2.
        // 1 − x − y: 0 ms → 0; 100 ms → 1 − 0.25 − 0.3056 = 0.4444; 200 ms → 1 − 0.5 − 0.0972 = 0.4028;
        // 300 ms → 0.2222; 400 ms → 0. The knee is 100 ms.
        let analysis = SweepAnalysis(points: Self.curve)
        let recommendation = try #require(analysis.recommendation(population: ""))
        #expect(recommendation.point.debounceMs == 100)
        #expect(recommendation.satisfied)
        #expect(recommendation.sentence == "Recommended: debounce 100 ms, min length 1, the knee of the trade-off between p95 time to fresh results (300 ms) and requests per search (4.00): the next faster setting on the Pareto front saves 100 ms for 5.00 more requests per search, while the next cheaper one saves only 1.50 requests for 100 ms more waiting.")
    }

    @Test func budgetRulePicksTheSmallestIntervalWithinBudget() throws {
        let within = SweepAnalysis(points: Self.curve, rule: .budget(requestsPerSearch: 2.2))
        let pick = try #require(within.recommendation(population: ""))
        #expect(pick.point.debounceMs == 300)
        #expect(pick.satisfied)
        #expect(pick.sentence.contains("the smallest interval that keeps requests per search within the budget of 2.20"))

        let impossible = SweepAnalysis(points: Self.curve, rule: .budget(requestsPerSearch: 1.5))
        let fallback = try #require(impossible.recommendation(population: ""))
        #expect(!fallback.satisfied)
        #expect(fallback.point.debounceMs == 400)
        #expect(fallback.sentence.hasPrefix("No grid point meets the budget of 1.50"))
    }

    @Test func aFrontWithoutAKneeChoosesTheFastestAndSaysWhy() throws {
        // Requests fall slowly first, then fast: every point lies above the chord, no knee.
        let concave: [SweepPoint] = [(0, 100.0, 8.0), (100, 200, 7.8), (200, 300, 7.0), (300, 400, 5.0), (400, 500, 1.0)].map {
            SweepPoint(debounceMs: $0.0, minLength: 1, fanOut: $0.2, wastedShare: nil, ttfrP50: nil, ttfrP95: $0.1 * 1e6)
        }
        let recommendation = try #require(SweepAnalysis(points: concave).recommendation(population: ""))
        #expect(recommendation.point.debounceMs == 0)
        #expect(recommendation.sentence.contains("the Pareto front has no knee"))
        #expect(recommendation.sentence.hasSuffix("give --budget to trade speed for fewer requests."))
    }

    @Test func shortFrontsChooseTheFastestPoint() {
        let two = Array(Self.curve.prefix(2))
        #expect(SweepAnalysis.kneeIndex(SweepAnalysis.paretoFront(two)) == 0)
        #expect(SweepAnalysis.kneeIndex([]) == nil)
    }

    @Test func gridRanges() throws {
        #expect(try GridRange.parse("0:600:25").values.count == 25)
        #expect(try GridRange.parse("0:600:25").values.last == 600)
        #expect(try GridRange.parse("1:3").values == [1, 2, 3])
        #expect(try GridRange.parse("300").values == [300])
        #expect(try GridRange.parse("250,100,250").values == [100, 250])
        #expect(throws: GridRangeError(text: "5:1", reason: "the end (1) is below the start (5)")) { try GridRange.parse("5:1") }
        #expect(throws: GridRangeError.self) { try GridRange.parse("0:10:0") }
        #expect(throws: GridRangeError.self) { try GridRange.parse("a:b") }
        #expect(throws: GridRangeError.self) { try GridRange.parse("0:100000:1") }
    }

    @Test func sweepRecordGivesCurvesPlotsAndOneRecommendationPerPopulation() throws {
        let record = try Fixtures.record("sweep.json")
        let analysis = SweepAnalysis(points: record.sweepPoints)
        #expect(analysis.points.count == 2 * 2 * 13)
        #expect(analysis.populations == ["desktop-en", "mobile-ko"])
        #expect(analysis.curves(population: "desktop-en").map(\.minLength) == [1, 2])
        let report = SweepReport(analysis: analysis, scenarioName: "sweep-default")
        #expect(analysis.recommendations.count == 2)
        for recommendation in analysis.recommendations {
            let front = SweepAnalysis.paretoFront(analysis.points.filter { $0.population == recommendation.population })
            #expect(front.contains(recommendation.point))
        }
        for population in analysis.populations {
            let charts = report.charts(population: population)
            #expect(charts.count == 5)
            for chart in charts { XMLCheck.check(chart.svg, chart.name) }
        }
        let html = report.html()
        #expect(XMLCheck.check(html, "sweep.html").counts["svg"] == 10)
        let json = try JSONSerialization.jsonObject(with: Data(try report.json().utf8)) as? [String: Any]
        #expect((json?["recommendations"] as? [Any])?.count == 2)
    }
}
