import FieldRuntime
import TypestormMetrics
import SearchField
import Testing
import Typists

/// A runner that only writes down what the host asks of it: the host, not the runner, decides
/// what every action, effect and outcome means.
private struct LoggingRunner: FieldRunner {
    typealias Handle = Int
    var log: [String] = []
    var nextHandle = 0

    mutating func scheduleTimer(_ id: TimerID, at deadline: Int64, typist: Int) { log.append("timer \(id) at \(deadline / 1_000_000)") }
    mutating func cancelTimer(_ id: TimerID, typist: Int) { log.append("cancel timer \(id)") }
    mutating func startRequest(_ id: RequestID, query: QueryIdentity, local: Bool, typist: Int, at time: Int64) -> Int {
        nextHandle += 1
        log.append("send #\(id) \(query.text) as handle \(nextHandle)")
        return nextHandle
    }
    mutating func cancelRequest(_ handle: Int, id: RequestID, typist: Int, at time: Int64) { log.append("cancel handle \(handle)") }
}

@Suite("FieldHost: the one runner core", .timeLimit(.minutes(5)))
struct FieldHostTests {
    static let ms: Int64 = 1_000_000

    @Test("typing, a debounce, a request and its answer, with input and schedule lag recorded")
    func oneSearch() throws {
        var configuration = Preset.splitState.defaultConfiguration
        configuration.debounceNanos = 300 * Self.ms
        var host = FieldHost<SplitStateField, Int>(strategy: SplitStateField(configuration: configuration))
        var context = FieldHostContext(configuration: configuration)
        var recorder = try Recorder(typists: 1, expectsBackend: false)
        var runner = LoggingRunner()
        host.type(.edit(key: "a", text: "a"), intendedAt: 0, typist: 0, at: 0, context: &context, recorder: &recorder, runner: &runner)
        // Handled 5 ms late: input lag.
        host.type(.edit(key: "b", text: "ab"), intendedAt: 100 * Self.ms, typist: 0, at: 105 * Self.ms,
                  context: &context, recorder: &recorder, runner: &runner)
        #expect(runner.log.contains { $0.hasPrefix("timer") && $0.hasSuffix("at 405") })
        let timerID = TimerID(runner.log.last { $0.hasPrefix("timer") }!.split(separator: " ")[1])!
        host.timerFired(timerID, deadline: 405 * Self.ms, typist: 0, at: 407 * Self.ms, context: &context, recorder: &recorder, runner: &runner)
        #expect(runner.log.contains("send #1 ab as handle 1"))
        // The answer arrives; the request had left 3 ms after the strategy asked.
        host.requestFinished(1, .results(count: 4), scheduleLag: 3 * Self.ms, typist: 0, at: 450 * Self.ms,
                             context: &context, recorder: &recorder, runner: &runner)
        // A second report of the same request is ignored.
        host.requestFinished(1, .failed(.transport), scheduleLag: nil, typist: 0, at: 460 * Self.ms,
                             context: &context, recorder: &recorder, runner: &runner)
        host.endSession(typist: 0, at: 2_000 * Self.ms, recorder: &recorder)
        #expect(host.isQuiet)
        recorder.finish(at: 2_000 * Self.ms)
        let metrics = recorder.metrics()
        #expect(metrics.counter(MetricName.requestsCompleted) == 1)
        #expect(metrics.counter(MetricName.transportErrors) == 0)
        #expect(metrics.histograms[MetricName.scheduleLag]?.totalCount == 1)
        #expect(metrics.histograms[MetricName.scheduleLag]?.max == 3 * Self.ms)
        #expect(metrics.histograms[MetricName.inputLag]?.totalCount == 2)
        #expect(metrics.histograms[MetricName.inputLag]?.max == 5 * Self.ms)
        #expect(metrics.histograms[MetricName.timerLateness]?.max == 2 * Self.ms)
        #expect(metrics.counter(MetricName.neverFresh) == 0)
    }

    @Test("abandoning open work cancels it through the runner and forgets it")
    func abandon() throws {
        var host = FieldHost<NaiveField, Int>(strategy: NaiveField())
        var context = FieldHostContext(configuration: NaiveField().configuration)
        var recorder = try Recorder(typists: 1, expectsBackend: false)
        var runner = LoggingRunner()
        host.type(.edit(key: "s", text: "s"), intendedAt: 0, typist: 0, at: 0, context: &context, recorder: &recorder, runner: &runner)
        host.type(.edit(key: "w", text: "sw"), intendedAt: 10, typist: 0, at: 10, context: &context, recorder: &recorder, runner: &runner)
        host.endSession(typist: 0, at: 20, recorder: &recorder)
        #expect(!host.isQuiet)
        #expect(host.abandonOpenWork(typist: 0, at: 30, runner: &runner))
        #expect(runner.log.filter { $0.hasPrefix("cancel handle") }.count == 2)
        #expect(host.isQuiet)
        // A late answer for abandoned work is not recorded.
        host.requestFinished(1, .results(count: 1), scheduleLag: 0, typist: 0, at: 40, context: &context, recorder: &recorder, runner: &runner)
        recorder.finish(at: 50)
        #expect(recorder.metrics().counter(MetricName.requestsCompleted) == 0)
        #expect(recorder.metrics().counter(MetricName.unfinishedRequests) == 2)
    }

    /// Naive: "s" then "sw", and the answer for "s" (an empty one when counts are known) arrives
    /// after "sw" was typed: a false empty, or, with no count, nothing that can be judged.
    static func staleAnswer(count: Int?) -> MetricSet {
        var host = FieldHost<NaiveField, Int>(strategy: NaiveField())
        var context = FieldHostContext(configuration: NaiveField().configuration)
        var recorder = Recorder(typists: 1, expectsBackend: false, settleIntervalNanos: 1_000_000_000)
        var runner = LoggingRunner()
        host.type(.edit(key: "s", text: "s"), intendedAt: 0, typist: 0, at: 0, context: &context, recorder: &recorder, runner: &runner)
        host.type(.edit(key: "w", text: "sw"), intendedAt: 10 * Self.ms, typist: 0, at: 10 * Self.ms, context: &context, recorder: &recorder, runner: &runner)
        host.requestFinished(1, .results(count: count), scheduleLag: 0, typist: 0, at: 50 * Self.ms, context: &context, recorder: &recorder, runner: &runner)
        host.requestFinished(2, .results(count: count.map { $0 + 3 }), scheduleLag: 0, typist: 0, at: 60 * Self.ms, context: &context, recorder: &recorder, runner: &runner)
        host.endSession(typist: 0, at: 2_000 * Self.ms, recorder: &recorder)
        recorder.finish(at: 2_000 * Self.ms)
        return recorder.metrics()
    }

    @Test("an answer of unknown count is not an empty one: false empties are absent, never 0")
    func unknownCount() throws {
        let known = Self.staleAnswer(count: 0)
        #expect(known.counters[MetricName.falseEmpties] == 1)
        #expect(known.counters[MetricName.answersWithoutCount] == nil)
        #expect(DerivedMetrics(known).falseEmptiesPerSettle == 1)

        let unknown = Self.staleAnswer(count: nil)
        #expect(unknown.counters[MetricName.falseEmpties] == nil)
        #expect(unknown.counters[MetricName.answersWithoutCount] == 2)
        #expect(DerivedMetrics(unknown).falseEmptiesPerSettle == nil)
        // The answers still count as answers: the screen ended fresh.
        #expect(unknown.counter(MetricName.requestsCompleted) == 2)
        #expect(unknown.counter(MetricName.staleSettles) == 0)

        // A worker that could count merged with one that could not: still not measured.
        var merged = known
        try merged.merge(unknown)
        #expect(merged.counters[MetricName.falseEmpties] == nil)
        var other = unknown
        try other.merge(known)
        #expect(other.counters[MetricName.falseEmpties] == nil)
    }
}
