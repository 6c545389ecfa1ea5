import TypestormMetrics
import Testing
@testable import Orchestration

@Suite("Summaries and thresholds", .timeLimit(.minutes(5)))
struct RunSummaryTests {
    static let record: RunRecord = {
        var naive = MetricSet()
        naive.add("requests_started", 90)
        naive.add("settles", 30)
        for value in [100_000_000, 200_000_000, 900_000_000] { naive.record("ttfr_ns", Int64(value)) }
        var split = MetricSet()
        split.add("requests_started", 30)
        split.add("settles", 30)
        split.record("ttfr_ns", 350_000_000)
        let metadata = RunMetadata(toolVersion: "t", scenarioName: "s", scenarioHash: "h", seed: 1, runner: "virtual", segments: [Segment(index: 0, count: 1)])
        return RunRecord(metadata: metadata, groups: [
            MetricGroup(name: "naive", labels: ["runner": "virtual"], metrics: naive),
            MetricGroup(name: "split-state", labels: ["runner": "virtual"], metrics: split),
        ])
    }()

    @Test func expressionsReadCountersPercentilesAndRatios() throws {
        let naive = try #require(Self.record.group(named: "naive", labels: ["runner": "virtual"])).metrics
        #expect(MetricExpression("requests_started").value(in: naive) == 90)
        #expect(MetricExpression("requests_started/settles").value(in: naive) == 3)
        #expect(MetricExpression("ttfr_ns.count").value(in: naive) == 3)
        #expect(MetricExpression("ttfr_ns.max").value(in: naive) == 900_000_000)
        let p50 = try #require(MetricExpression("ttfr_ns.p50").value(in: naive))
        #expect(abs(p50 - 200_000_000) / 200_000_000 < 0.001)
        #expect(MetricExpression("flicker.p99").value(in: naive) == nil)
        #expect(MetricExpression("requests_started+settles+missing").value(in: naive) == 120)
        #expect(MetricExpression("requests_started/nothing").value(in: naive) == nil)
    }

    @Test func thresholdsPassFailAndMissingMetricsFail() {
        let ttfr = Threshold(metric: "ttfr_ns.p99", maximum: 500_000_000).evaluate(Self.record)
        #expect(ttfr.map(\.passed) == [false, true])
        #expect(ttfr[0].message.hasPrefix("naive|runner=virtual: ttfr_ns.p99 = "))
        #expect(ttfr[0].message.hasSuffix("(required ≤ 500.0ms) FAILED"))
        let onlySplit = Threshold(metric: "requests_started/settles", strategy: "split-state", maximum: 1).evaluate(Self.record)
        #expect(onlySplit.map(\.passed) == [true])
        let missing = Threshold(metric: "staleApplies", maximum: 0).evaluate(Self.record)
        #expect(missing.map(\.passed) == [false, false])
        #expect(missing[0].message == "naive|runner=virtual: staleApplies was not recorded (required ≤ 0)")
    }

    @Test func tableShowsRecordedColumnsOnly() {
        let table = RunSummary.table(Self.record)
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("strategy"))
        #expect(lines[0].contains("requests") && lines[0].contains("req/settle") && lines[0].contains("TTFR p99"))
        #expect(!lines[0].contains("keys"))
        #expect(lines[2].hasPrefix("naive") && lines[2].contains("3.00"))
        #expect(lines[3].hasPrefix("split-state") && lines[3].contains("350.") && lines[3].contains("1.00"))
    }

    @Test func csvHasOneRowPerGroupAndAColumnPerStatistic() {
        let lines = RunSummary.csv(Self.record).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0] == "strategy,runner,requests_started,settles,ttfr_ns.count,ttfr_ns.mean,ttfr_ns.p50,ttfr_ns.p90,ttfr_ns.p99,ttfr_ns.p999,ttfr_ns.max")
        #expect(lines[2].hasPrefix("split-state,virtual,30,30,1,350000000.0,"))
    }
}
