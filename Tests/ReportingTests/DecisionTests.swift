import Foundation
import TypestormMetrics
import Testing
@testable import Reporting

@Suite("Decision: what to ship")
struct DecisionTests {
    /// A group of `settles` searches: each sends `requests`, is fresh after `ttfrMs`, and `stale`
    /// of them end on a wrong screen (never fresh).
    static func group(_ name: String, runner: String?, settles: Int = 200, requests: Int64, ttfrMs: Int64, stale: Int = 0,
                      labels: [String: String] = [:]) -> MetricGroup {
        var m = MetricSet()
        for index in 0..<settles {
            m.add(MetricName.settles)
            m.add(MetricName.keystrokes, 6)
            m.add(MetricName.requestsStarted, requests)
            m.record(MetricName.fanOutPerSettle, requests, configuration: .counts)
            if index < stale {
                m.add(MetricName.staleSettles)
                m.add(MetricName.neverFresh)
            } else {
                m.record(MetricName.timeToFresh, ttfrMs * 1_000_000)
            }
        }
        var all = labels
        if let runner { all["runner"] = runner }
        return MetricGroup(name: name, labels: all, metrics: m)
    }

    static func record(_ groups: [MetricGroup]) throws -> RunRecord {
        var record = RunRecord(metadata: RunMetadata(toolVersion: "0", scenarioName: "s", scenarioHash: "h", seed: 1, runner: "virtual,in-process", segments: [.init(index: 0, count: 1)]))
        for group in groups { try record.add(group) }
        return record
    }

    @Test func choosesTheLowestObjectiveAmongEligibleAndNamesTheRunnerUpAndTheCost() throws {
        // Objective = p95 + 40 ms × requests: fast 100 + 6×40 = 340 ms, but 5 % stale (out);
        // debounced 350 + 3×40 = 470 ms; middle 200 + 5×40 = 400 ms (the best eligible).
        let record = try Self.record([
            Self.group("fast", runner: "virtual", requests: 6, ttfrMs: 100, stale: 10),
            Self.group("middle", runner: "virtual", requests: 5, ttfrMs: 200),
            Self.group("debounced", runner: "virtual", requests: 3, ttfrMs: 350),
            Self.group("middle", runner: "in-process", requests: 5, ttfrMs: 200),
            Self.group("debounced", runner: "in-process", requests: 3, ttfrMs: 150),
        ])
        let decision = try #require(Decision(record: record))
        #expect(decision.primaryRunner == "virtual")
        #expect(decision.otherRunners == ["in-process"])
        let chosen = try #require(decision.chosen)
        #expect(decision.rows[chosen].title == "middle")
        #expect(decision.rows[try #require(decision.runnerUp)].title == "debounced")
        let lines = decision.lines
        #expect(lines[0] == "Ship middle.")
        #expect(lines[1].contains("p95 time to fresh results + 40.0 ms per request on the virtual runner"), "\(lines[1])")
        #expect(lines[1].hasSuffix(": 400 ms (200 ms + 5.00 requests × 40.0 ms)."), "\(lines[1])")
        #expect(lines[2] == "Runner-up: debounced, 470 ms (350 ms + 3.00 requests × 40.0 ms); choosing middle costs 2.00 more requests per search and gets fresh results 150 ms sooner at p95.", "\(lines[2])")
        // fast is out by the constraint; in-process would choose debounced (150 + 120 = 270 ms).
        #expect(lines[3].contains("Ruled out: fast (wrong final screens 5.0 % > 1.0 %"), "\(lines[3])")
        #expect(lines[3].contains("the other runners choose in-process debounced"), "\(lines[3])")
        #expect(lines.count == 4)
    }

    @Test func agreesWithTheSweepAnalysisOnTheSamePoints() throws {
        let groups = [
            Self.group("a", runner: nil, requests: 2, ttfrMs: 500),
            Self.group("b", runner: nil, requests: 4, ttfrMs: 300),
            Self.group("c", runner: nil, requests: 7, ttfrMs: 90),
        ]
        let decision = try #require(Decision(record: try Self.record(groups)))
        let points = groups.map { Decision.point(StrategySummary($0), title: $0.name) }
        let sweep = SweepAnalysis(points: points)
        #expect(decision.primaryRunner == nil)
        #expect(decision.rows[try #require(decision.chosen)].title == sweep.recommendations[0].result?.setting.strategy)
        // a: 500 + 80 = 580 ms, b: 300 + 160 = 460 ms, c: 90 + 280 = 370 ms.
        #expect(decision.rows[try #require(decision.chosen)].title == "c")
    }

    @Test func tableMarksTheBestValueInEveryColumn() throws {
        let record = try Self.record([
            Self.group("a", runner: "virtual", requests: 2, ttfrMs: 500),
            Self.group("b", runner: "virtual", requests: 7, ttfrMs: 90),
        ])
        let decision = try #require(Decision(record: record))
        let table = decision.table
        #expect(table.headers.prefix(4) == ["strategy", "objective", "p95 to fresh", "requests / search"])
        #expect(table.rows.count == 2)
        // b: 90 + 280 = 370 ms beats a: 500 + 80 = 580 ms; a has fewer requests.
        #expect(table.rows[1][1] == "370 ms")
        #expect(table.best[1][0] && !table.best[0][0])
        #expect(table.best[0][2] && !table.best[1][2])
        // Equal columns (no wrong final screens anywhere) mark nothing.
        #expect(!table.best[0][3] && !table.best[1][3])
        #expect(decision.text.contains(">  b"))
    }

    @Test func noStrategyMeetingTheConstraintsIsSaid() throws {
        let record = try Self.record([Self.group("naive", runner: "virtual", requests: 6, ttfrMs: 80, stale: 40)])
        let decision = try #require(Decision(record: record))
        #expect(decision.chosen == nil)
        #expect(decision.lines == ["No strategy meets wrong final screens ≤ 1.0 %, never-fresh searches ≤ 1.0 % on the virtual runner; the closest, naive, has wrong final screens 20.0 % > 1.0 %, never-fresh searches 20.0 % > 1.0 %: none can be shipped as measured."])
    }

    @Test func reportOpensWithTheDecisionAndTheTradeOffChart() throws {
        let record = try Self.record([
            Self.group("a", runner: "virtual", requests: 2, ttfrMs: 500),
            Self.group("b", runner: "virtual", requests: 7, ttfrMs: 90, stale: 1),
            Self.group("a", runner: "in-process", requests: 2, ttfrMs: 500),
            Self.group("b", runner: "in-process", requests: 7, ttfrMs: 90),
        ])
        let html = HTMLReport(record: record).render()
        _ = XMLCheck.check(html, "report.html")
        let decision = try #require(html.range(of: "<section id=\"decision\">"))
        let verdict = try #require(html.range(of: "<section id=\"verdict\">"))
        #expect(decision.lowerBound < verdict.lowerBound)
        #expect(html.contains("<p class=\"ship\">Ship b.</p>"))
        #expect(html.contains("Trade-off: requests against p95 time to fresh results"))
        // b ended wrong once (0.5 %): its legend entry says so and its dot is crossed out.
        #expect(html.contains("b ✗ 0.50 % wrong (ship)"))
        // One card per strategy, not per runner.
        let cards = html.components(separatedBy: "<li style=").count - 1
        #expect(cards == 2)
    }
}
