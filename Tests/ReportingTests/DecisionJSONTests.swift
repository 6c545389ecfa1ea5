import Foundation
import Testing
import TypestormMetrics
@testable import Reporting

@Suite("Decision JSON and flaw evidence", .timeLimit(.minutes(5)))
struct DecisionJSONTests {
    static func object(_ decision: Decision) throws -> [String: Any] {
        let data = try JSONEncoder().encode(decision.json)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func everyKeyIsPresentWithTheChoiceTheRunnerUpAndTheCost() throws {
        let record = try DecisionTests.record([
            DecisionTests.group("fast", runner: "virtual", requests: 6, ttfrMs: 100, stale: 10),
            DecisionTests.group("middle", runner: "virtual", requests: 5, ttfrMs: 200),
            DecisionTests.group("debounced", runner: "virtual", requests: 3, ttfrMs: 350),
            DecisionTests.group("debounced", runner: "in-process", requests: 3, ttfrMs: 150),
        ])
        let decision = try #require(Decision(record: record))
        let json = try Self.object(decision)
        #expect(Set(json.keys) == ["runner", "objective", "recommended", "runnerUp", "cost", "ruledOut", "otherRunners", "lines"])
        #expect(json["runner"] as? String == "virtual")
        let objective = try #require(json["objective"] as? [String: Any])
        #expect(objective["kind"] as? String == "request-cost" && objective["unit"] as? String == "ns")
        #expect(objective["requestCostNs"] as? Double == 40_000_000)
        let recommended = try #require(json["recommended"] as? [String: Any])
        #expect(recommended["strategy"] as? String == "middle")
        #expect(recommended["debounceMs"] is NSNull && recommended["minLength"] is NSNull)
        #expect(recommended["valueText"] as? String == "400 ms")
        #expect(recommended["requestsPerSearch"] as? Double == 5)
        let runnerUp = try #require(json["runnerUp"] as? [String: Any])
        #expect(runnerUp["strategy"] as? String == "debounced")
        let cost = try #require(json["cost"] as? [String: Any])
        #expect(cost["requestsPerSearch"] as? Double == 2)
        #expect(cost["objective"] as? Double == -70_000_000)
        #expect((cost["text"] as? String)?.hasPrefix("costs 2.00 more requests per search") == true)
        let ruledOut = try #require(json["ruledOut"] as? [[String: Any]])
        #expect(ruledOut.map { $0["strategy"] as? String } == ["fast"])
        #expect((ruledOut.first?["reasons"] as? [String])?.first?.hasPrefix("wrong final screens 5.0 %") == true)
        let others = try #require(json["otherRunners"] as? [[String: Any]])
        #expect(others.count == 1 && others[0]["runner"] as? String == "in-process" && others[0]["agrees"] as? Bool == false)
        #expect(json["lines"] as? [String] == decision.lines)
    }

    @Test func aLabelEveryGroupOfARunnerSharesDoesNotHideItsStrategies() throws {
        // The live runner's groups carry backend=model; they are still the same strategies.
        let record = try DecisionTests.record([
            DecisionTests.group("a", runner: "virtual", requests: 2, ttfrMs: 500),
            DecisionTests.group("b", runner: "virtual", requests: 7, ttfrMs: 90),
            DecisionTests.group("a", runner: "in-process", requests: 2, ttfrMs: 100, labels: ["backend": "model"]),
            DecisionTests.group("b", runner: "in-process", requests: 7, ttfrMs: 90, labels: ["backend": "model"]),
        ])
        let decision = try #require(Decision(record: record))
        // a: 100 + 80 = 180 ms, b: 90 + 280 = 370 ms on in-process.
        #expect(decision.rows.map { $0.otherObjectives } == [[180_000_000], [370_000_000]])
        #expect(decision.json.otherRunners == [.init(runner: "in-process", choice: "a", agrees: false)])
    }

    @Test func withoutAnEligibleStrategyTheChoiceKeysAreNull() throws {
        let record = try DecisionTests.record([DecisionTests.group("naive", runner: "virtual", requests: 6, ttfrMs: 80, stale: 40)])
        let json = try Self.object(try #require(Decision(record: record)))
        #expect(json["recommended"] is NSNull && json["runnerUp"] is NSNull && json["cost"] is NSNull)
        #expect((json["ruledOut"] as? [[String: Any]])?.map { $0["strategy"] as? String } == ["naive"])
    }

    static func flawed() throws -> RunRecord {
        var group = DecisionTests.group("naive", runner: "virtual", settles: 1000, requests: 6, ttfrMs: 80, stale: 41)
        group.metrics.add(MetricName.olderAnswerSettles, 41)
        group.metrics.add(MetricName.outOfOrderApplies, 3)
        group.metrics.examples = [
            FlawKind.olderAnswer.rawValue: FlawExample(typist: 17, timeNs: 12_300_000_000, shown: "app", field: "apple"),
        ]
        return try DecisionTests.record([group, DecisionTests.group("calm", runner: "virtual", requests: 3, ttfrMs: 300)])
    }

    @Test func eachFlawIsOneSentenceWithItsFirstExample() throws {
        let record = try Self.flawed()
        let summary = try #require(record.summaries.first { $0.name == "naive" })
        let sentences = Verdict.flawEvidence(for: summary)
        #expect(sentences.first == .init(
            text: "naive ended on an older query's answer in 4.1 % of searches (41 of 1000); first at typist 17, 12.3 s: the answer for 'app' on the screen while the field held 'apple'.",
            example: .olderAnswer))
        // Out of order without a kept example: the count alone, nothing to link.
        #expect(sentences.contains(.init(text: "3 times a late response replaced newer results.", example: nil)))
        #expect(record.summaries.first { $0.name == "calm" }.map { Verdict.flaws(for: $0) }?.first?.hasPrefix("No flaw seen") == true)
    }

    @Test func theReportLinksTheSentenceToTheTimelineAndNamesThePopulations() throws {
        var report = HTMLReport(record: try Self.flawed())
        report.timelines = [FlawTimeline(group: "naive|runner=virtual", kind: .olderAnswer, title: "naive: typist 17", text: "  12300.0 ms  ⌨ 'e'  field \"apple\"\n")]
        report.populations = ["mobile en, 100 %, on lte"]
        let html = report.render()
        #expect(html.contains(##"<a href="#timeline-naive-runner-virtual-older-answer">See the timeline.</a>"##))
        #expect(html.contains(#"<h3 id="timeline-naive-runner-virtual-older-answer">naive: typist 17</h3>"#))
        #expect(html.contains("Typists: mobile en, 100 %, on lte."))
        #expect(html.contains("<th>older answer</th>"))
        // Without the timeline there is no link.
        #expect(!HTMLReport(record: try Self.flawed()).render().contains("See the timeline"))
    }
}
