import Foundation
import SearchField
import Testing
@testable import TypestormMetrics

private func ms(_ value: Int64) -> Int64 { value * 1_000_000 }
private func q(_ text: String, tokens: [String] = []) -> QueryIdentity { QueryIdentity(text: text, tokens: tokens) }

/// The worked "sw" scenario of the recorder tests on typist slot `slot`, shifted by `offset` ms:
/// the late answer for "sw" lands after "swe"'s and stays on the screen.
private func lateAnswer(_ recorder: inout Recorder, slot: Int, offset: Int64) {
    func at(_ time: Int64, _ record: Record) { recorder.record(record, typist: slot, at: ms(time + offset)) }
    at(0, .keystroke(text: "s", query: q("s")))
    at(0, .requestStart(id: 1, query: q("s"), lag: 0))
    at(100, .keystroke(text: "sw", query: q("sw")))
    at(100, .requestStart(id: 2, query: q("sw"), lag: 0))
    at(100, .workStopped(id: 1, reason: .completed))
    at(100, .backendStopped(id: 1, work: BackendWork(queueNanos: 0, serviceNanos: ms(50))))
    at(100, .apply(id: 1, query: q("s"), kind: .results))
    at(100, .display(.results, query: q("s")))
    at(200, .keystroke(text: "swe", query: q("swe", tokens: ["red"])))
    at(200, .requestStart(id: 3, query: q("swe", tokens: ["red"]), lag: 0))
    at(300, .workStopped(id: 3, reason: .completed))
    at(300, .backendStopped(id: 3, work: BackendWork(queueNanos: 0, serviceNanos: ms(50))))
    at(300, .apply(id: 3, query: q("swe", tokens: ["red"]), kind: .results))
    at(300, .display(.results, query: q("swe", tokens: ["red"])))
    at(1000, .backendStopped(id: 2, work: BackendWork(queueNanos: ms(300), serviceNanos: ms(600))))
    at(1000, .workStopped(id: 2, reason: .completed))
    at(1000, .apply(id: 2, query: q("sw"), kind: .results))
    at(1000, .display(.results, query: q("sw")))
    at(3000, .sessionEnd)
}

@Suite("Flaw examples", .timeLimit(.minutes(5)))
struct FlawExampleTests {
    @Test func aSearchEndingOnAnOlderAnswerIsCountedAndKeptAsTheFirstExample() throws {
        var recorder = try Recorder(typists: 2)
        recorder.globalTypists = [40, 41]
        lateAnswer(&recorder, slot: 1, offset: 5_000)
        recorder.finish(at: ms(9_000))
        let metrics = recorder.metrics()
        #expect(metrics.counter(MetricName.olderAnswerSettles) == 1)
        #expect(metrics.counter(MetricName.staleSettles) == 1)
        let examples = try #require(metrics.examples)
        // The settle closes at finish; its time is its last keystroke.
        #expect(examples[FlawKind.olderAnswer.rawValue] == FlawExample(typist: 41, timeNs: ms(5_200), shown: "sw", field: "swe [red]"))
        #expect(examples[FlawKind.outOfOrder.rawValue] == FlawExample(typist: 41, timeNs: ms(6_000), shown: "sw", field: "swe [red]"))
        #expect(examples[FlawKind.neverFresh.rawValue]?.typist == 41)
    }

    @Test func theEarliestExampleWinsWhateverTheOrderOfRecordingAndMerging() throws {
        // Typist 7 has its flaw later in time but is recorded first.
        var one = try Recorder(typists: 2)
        one.globalTypists = [7, 3]
        lateAnswer(&one, slot: 0, offset: 2_000)
        lateAnswer(&one, slot: 1, offset: 1_000)
        one.finish(at: ms(9_000))
        let whole = one.metrics()
        #expect(whole.examples?[FlawKind.olderAnswer.rawValue]?.typist == 3)

        var first = try Recorder(typists: 1)
        first.globalTypists = [7]
        lateAnswer(&first, slot: 0, offset: 2_000)
        first.finish(at: ms(9_000))
        var second = try Recorder(typists: 1)
        second.globalTypists = [3]
        lateAnswer(&second, slot: 0, offset: 1_000)
        second.finish(at: ms(9_000))
        var merged = first.metrics()
        try merged.merge(second.metrics())
        var reversed = second.metrics()
        try reversed.merge(first.metrics())
        #expect(merged.examples == whole.examples)
        #expect(reversed.examples == whole.examples)
        #expect(merged.counter(MetricName.olderAnswerSettles) == 2)
    }

    @Test func aRunWithoutFlawsHasNoExamplesAndOldRecordsStillLoad() throws {
        var recorder = try Recorder(typists: 1)
        recorder.record(.keystroke(text: "a", query: q("a")), typist: 0, at: 0)
        recorder.record(.requestStart(id: 1, query: q("a"), lag: 0), typist: 0, at: 0)
        recorder.record(.workStopped(id: 1, reason: .completed), typist: 0, at: ms(50))
        recorder.record(.backendStopped(id: 1, work: BackendWork(queueNanos: 0, serviceNanos: ms(10))), typist: 0, at: ms(50))
        recorder.record(.apply(id: 1, query: q("a"), kind: .results), typist: 0, at: ms(50))
        recorder.record(.display(.results, query: q("a")), typist: 0, at: ms(50))
        recorder.finish(at: ms(3_000))
        let metrics = recorder.metrics()
        #expect(metrics.examples == nil)
        #expect(metrics.counter(MetricName.olderAnswerSettles) == 0)
        // Encoded without examples: no key, as records written before them.
        let data = try JSONEncoder().encode(metrics)
        #expect(!String(decoding: data, as: UTF8.self).contains("examples"))
        let old = #"{"counters":{"settles":1},"maxima":{},"histograms":{}}"#
        let decoded = try JSONDecoder().decode(MetricSet.self, from: Data(old.utf8))
        #expect(decoded.examples == nil && decoded.counter(MetricName.settles) == 1)
    }
}
