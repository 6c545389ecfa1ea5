import TypestormMetrics
import Testing
@testable import Orchestration

@Suite("Failed requests fail the run", .timeLimit(.minutes(5)))
struct FailureThresholdTests {
    static func group(_ name: String, completed: Int64, refused: Int64, http500: Int64 = 0, ttfr: [Int64] = []) -> MetricGroup {
        var metrics = MetricSet()
        metrics.add(MetricName.requestsStarted, completed + refused + http500)
        metrics.add(MetricName.requestsCompleted, completed)
        metrics.add(MetricName.serverErrors, http500)
        metrics.add(MetricName.timeouts, 0)
        metrics.add(MetricName.transportErrors, refused)
        if refused > 0 { metrics.add(MetricName.errorCausePrefix + ErrorCause.connectionRefused.key, refused) }
        if http500 > 0 { metrics.add(MetricName.errorCausePrefix + "http_500", http500) }
        for value in ttfr { metrics.record(MetricName.timeToFresh, value) }
        return MetricGroup(name: name, labels: ["runner": "http-url"], metrics: metrics)
    }

    static func record(_ groups: [MetricGroup]) -> RunRecord {
        let metadata = RunMetadata(toolVersion: "t", scenarioName: "s", scenarioHash: "h", seed: 1, runner: "http-url", segments: [Segment(index: 0, count: 1)])
        return RunRecord(metadata: metadata, groups: groups)
    }

    static func scenario(thresholds: [Threshold] = []) -> Scenario {
        var scenario = try! ScenarioReader.read(json: virtualScenarioJSON())
        scenario.thresholds = thresholds
        return scenario
    }

    @Test func failedShareCountsFailuresOverRequestsThatEnded() {
        let metrics = Self.group("naive", completed: 97, refused: 2, http500: 1).metrics
        #expect(MetricExpression(MetricExpression.failedShare).value(in: metrics) == 0.03)
        #expect(MetricExpression.failedShare(in: MetricSet()) == nil)
    }

    @Test func moreThanOnePercentFailedFailsByDefault() {
        let record = Self.record([
            Self.group("ok", completed: 990, refused: 10),
            Self.group("bad", completed: 980, refused: 20),
        ])
        let results = Dictionary(uniqueKeysWithValues: Self.scenario().evaluateThresholds(record).map { ($0.group, $0) })
        #expect(results.count == 2)
        #expect(results["ok|runner=http-url"]?.passed == true)
        #expect(results["bad|runner=http-url"]?.passed == false)
        #expect(results["bad|runner=http-url"]?.message == "bad|runner=http-url: failed_share = 0.02 (required ≤ 0.01) FAILED")
    }

    @Test func aScenarioBoundReplacesTheDefault() {
        let record = Self.record([Self.group("bad", completed: 980, refused: 20)])
        let results = Self.scenario(thresholds: [Threshold(metric: "failed_share", maximum: 0.05)]).evaluateThresholds(record)
        #expect(results.count == 1)
        #expect(results[0].passed)
    }

    @Test func groupsWithoutRequestsAreNotJudgedByTheDefault() {
        var probe = MetricSet()
        probe.add("keystrokes", 100)
        let record = Self.record([MetricGroup(name: "probe", labels: ["runner": "probe"], metrics: probe)])
        #expect(Self.scenario().evaluateThresholds(record).isEmpty)
    }

    @Test func aLatencyOfAGroupWhoseEveryRequestFailedIsNeverOK() {
        // The settles that needed no request show "fresh" at once: a p99 of 0 that means nothing.
        let record = Self.record([Self.group("dead", completed: 0, refused: 50, ttfr: [0, 0, 0])])
        let results = Self.scenario(thresholds: [Threshold(metric: "ttfr_ns.p99", maximum: 2_000_000_000)]).evaluateThresholds(record)
        #expect(results.count == 2)
        #expect(results.allSatisfy { !$0.passed })
        #expect(results[0].value == nil)
        #expect(results[0].message == "dead|runner=http-url: ttfr_ns.p99 cannot be measured: every request failed (required ≤ 2.00s)")
    }
}
