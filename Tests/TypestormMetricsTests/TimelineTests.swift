import SearchField
import Testing
@testable import TypestormMetrics

@Suite("Recorder timeline", .timeLimit(.minutes(5)))
struct TimelineTests {
    static let second: Int64 = 1_000_000_000

    @Test func startsCompletionsAndInFlightTimePerBucket() throws {
        var recorder = try Recorder(typists: 2, expectsBackend: false)
        let query = QueryIdentity(text: "lamp")
        recorder.record(.keystroke(text: "lamp", query: query), typist: 0, at: 0)
        recorder.record(.requestStart(id: 1, query: query, lag: 0), typist: 0, at: Self.second / 2)
        recorder.record(.workStopped(id: 1, reason: .completed), typist: 0, at: 2 * Self.second + Self.second / 2)
        recorder.record(.keystroke(text: "lamp", query: query), typist: 1, at: 0)
        recorder.record(.requestStart(id: 1, query: query, lag: 0), typist: 1, at: Self.second + Self.second / 4)
        recorder.record(.workStopped(id: 1, reason: .cancelledObserved), typist: 1, at: Self.second + Self.second / 2)
        // Typist 1's second request never stops: it is in flight until `finish`.
        recorder.record(.requestStart(id: 2, query: query, lag: 0), typist: 1, at: 3 * Self.second)
        recorder.finish(at: 3 * Self.second + Self.second / 10)
        let metrics = recorder.metrics()

        #expect(metrics.maxima[MetricName.timelineBucket] == Self.second)
        #expect(metrics.counter("timeline_started.0") == 1)
        #expect(metrics.counter("timeline_started.1") == 1)
        #expect(metrics.counter("timeline_started.3") == 1)
        #expect(metrics.counter("timeline_completed.2") == 1)
        #expect(metrics.counters["timeline_completed.1"] == nil)
        #expect(metrics.counter("timeline_in_flight_ns.0") == Self.second / 2)
        #expect(metrics.counter("timeline_in_flight_ns.1") == Self.second + Self.second / 4)
        #expect(metrics.counter("timeline_in_flight_ns.2") == Self.second / 2)
        #expect(metrics.counter("timeline_in_flight_ns.3") == Self.second / 10)
    }

    @Test func shardsMergeIntoTheWholeTimeline() throws {
        func record(_ typists: Range<Int>, into recorder: inout Recorder, slotOffset: Int) {
            for typist in typists {
                let query = QueryIdentity(text: "q\(typist)")
                let slot = typist - slotOffset
                recorder.record(.keystroke(text: query.text, query: query), typist: slot, at: 0)
                recorder.record(.requestStart(id: 1, query: query, lag: 0), typist: slot, at: Int64(typist) * 700_000_000)
                recorder.record(.workStopped(id: 1, reason: .completed), typist: slot, at: Int64(typist) * 700_000_000 + 900_000_000)
            }
        }
        var whole = try Recorder(typists: 6, expectsBackend: false)
        record(0..<6, into: &whole, slotOffset: 0)
        whole.finish(at: 10 * Self.second)
        var first = try Recorder(typists: 3, expectsBackend: false)
        var second = try Recorder(typists: 3, expectsBackend: false)
        record(0..<3, into: &first, slotOffset: 0)
        record(3..<6, into: &second, slotOffset: 3)
        first.finish(at: 10 * Self.second)
        second.finish(at: 10 * Self.second)
        var merged = first.metrics()
        try merged.merge(second.metrics())
        let timeline = { (set: MetricSet) in set.counters.filter { $0.key.hasPrefix("timeline_") } }
        #expect(timeline(merged) == timeline(whole.metrics()))
        #expect(!timeline(merged).isEmpty)
    }
}
