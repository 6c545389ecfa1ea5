import SearchField
import Testing
@testable import TypestormMetrics

/// The worked timelines of docs/metrics.md, record for record: if the recorder changes what a
/// metric means, these fail and the document must change with it.
@Suite("Metrics documentation timelines", .timeLimit(.minutes(5)))
struct MetricsTimelineTests {
    private static func ms(_ value: Int64) -> Int64 { value * 1_000_000 }
    private static func q(_ text: String) -> QueryIdentity { QueryIdentity(text: text) }

    /// One typist's records, times in milliseconds.
    private struct Script {
        var recorder: Recorder

        init(expectsBackend: Bool) {
            recorder = Recorder(typists: 1, expectsBackend: expectsBackend, settleIntervalNanos: 1_000_000_000)
        }

        mutating func at(_ time: Int64, _ records: Record...) {
            for record in records { recorder.record(record, typist: 0, at: MetricsTimelineTests.ms(time)) }
        }

        mutating func finish(_ time: Int64) -> MetricSet {
            recorder.finish(at: MetricsTimelineTests.ms(time))
            return recorder.metrics()
        }
    }

    /// What a histogram holds, exactly (its buckets are only 3 significant digits wide): the
    /// count, and the smallest, largest and sum of the values in milliseconds.
    private struct Recorded: Equatable {
        var count: Int64
        var min: Int64
        var max: Int64
        var sum: Int64
    }

    private static func recorded(_ metrics: MetricSet, _ name: String, unit: Int64 = 1_000_000) -> Recorded? {
        guard let histogram = metrics.histograms[name], !histogram.isEmpty else { return nil }
        return Recorded(count: histogram.totalCount, min: histogram.min / unit, max: histogram.max / unit, sum: histogram.sum / unit)
    }

    private static func work(_ serviceMillis: Int64) -> BackendWork {
        BackendWork(queueNanos: 0, serviceNanos: ms(serviceMillis))
    }

    @Test("timeline 1: a request per keystroke, every response applied")
    func requestPerKeystroke() {
        var s = Script(expectsBackend: true)
        s.at(0, .keystroke(text: "s", query: Self.q("s")), .requestStart(id: 1, query: Self.q("s"), lag: 0), .display(.loading, query: nil))
        s.at(100, .keystroke(text: "sh", query: Self.q("sh")), .requestStart(id: 2, query: Self.q("sh"), lag: 0))
        s.at(200, .keystroke(text: "sho", query: Self.q("sho")), .requestStart(id: 3, query: Self.q("sho"), lag: 0))
        s.at(300, .backendStopped(id: 2, work: Self.work(200)), .workStopped(id: 2, reason: .completed),
             .apply(id: 2, query: Self.q("sh"), kind: .results), .display(.results, query: Self.q("sh")))
        s.at(350, .backendStopped(id: 3, work: Self.work(150)), .workStopped(id: 3, reason: .completed),
             .apply(id: 3, query: Self.q("sho"), kind: .results), .display(.results, query: Self.q("sho")))
        s.at(600, .backendStopped(id: 1, work: Self.work(600)), .workStopped(id: 1, reason: .completed),
             .apply(id: 1, query: Self.q("s"), kind: .results), .display(.results, query: Self.q("s")))
        s.at(3000, .sessionEnd)
        let m = s.finish(3000)
        typealias N = MetricName
        #expect(m.counter(N.keystrokes) == 3)
        #expect(m.counter(N.settles) == 1)
        #expect(Self.recorded(m, N.fanOutPerSettle, unit: 1) == Recorded(count: 1, min: 3, max: 3, sum: 3))
        #expect(m.counter(N.outOfOrderApplies) == 1)
        #expect(m.counter(N.staleSettles) == 1)
        #expect(m.counter(N.neverFresh) == 1)
        #expect(Self.recorded(m, N.timeToFresh) == nil)
        #expect(m.counter(N.mismatchNs) == Self.ms(2450))
        #expect(m.counter(N.sessionNs) == Self.ms(3000))
        #expect(m.counter(N.wastedRequests) == 2)
        #expect(m.counter(N.wastedClientNs) == Self.ms(800))
        #expect(m.counter(N.clientNs) == Self.ms(950))
        #expect(m.counter(N.wastedServiceNs) == Self.ms(800))
        #expect(m.counter(N.serviceNs) == Self.ms(950))
        #expect(Self.recorded(m, N.requestLatency) == Recorded(count: 3, min: 150, max: 600, sum: 950))
        #expect(m.counter(N.displayChanges) == 4)
        #expect(m.counter(N.blinks) == 1)
        let derived = DerivedMetrics(m)
        #expect(derived.mismatchShare.map { ($0 * 1000).rounded() } == 817)
    }

    @Test("timeline 2: debounce, switch to latest, cancellation honoured")
    func debounceSwitch() {
        var s = Script(expectsBackend: true)
        s.at(0, .keystroke(text: "la", query: Self.q("la")), .waitStarted(id: 1, query: Self.q("la")))
        s.at(150, .keystroke(text: "lam", query: Self.q("lam")), .cancelRequested(id: 1, wait: true), .waitStarted(id: 2, query: Self.q("lam")))
        s.at(450, .waitFired(id: 2, lateness: 0), .commit(Self.q("lam"), cached: false), .requestStart(id: 1, query: Self.q("lam"), lag: 0),
             .display(.loading, query: nil))
        s.at(500, .keystroke(text: "lamp", query: Self.q("lamp")), .waitStarted(id: 3, query: Self.q("lamp")))
        s.at(800, .waitFired(id: 3, lateness: 0), .commit(Self.q("lamp"), cached: false), .cancelRequested(id: 1, wait: false),
             .requestStart(id: 2, query: Self.q("lamp"), lag: 0))
        s.at(810, .workStopped(id: 1, reason: .cancelledObserved))
        s.at(830, .backendStopped(id: 1, work: Self.work(380)))
        s.at(950, .backendStopped(id: 2, work: Self.work(150)), .workStopped(id: 2, reason: .completed),
             .apply(id: 2, query: Self.q("lamp"), kind: .results), .display(.results, query: Self.q("lamp")))
        s.at(2500, .sessionEnd)
        let m = s.finish(2500)
        typealias N = MetricName
        #expect(m.counter(N.debounceWaits) == 3)
        #expect(m.counter(N.taskChurn) == 1)
        #expect(Self.recorded(m, N.fanOutPerSettle, unit: 1) == Recorded(count: 1, min: 2, max: 2, sum: 2))
        #expect(m.counter(N.distinctCommits) == 2)
        #expect(Self.recorded(m, N.signalLatency) == Recorded(count: 2, min: 0, max: 300, sum: 300))
        #expect(Self.recorded(m, N.stopLatencyClient) == Recorded(count: 1, min: 10, max: 10, sum: 10))
        #expect(Self.recorded(m, N.stopLatencyBackend) == Recorded(count: 1, min: 30, max: 30, sum: 30))
        #expect(m.counter(N.requestsCancelled) == 1)
        #expect(m.counter(N.cancelsObserved) == 1)
        #expect(m.counter(N.wastedRequests) == 1)
        #expect(m.counter(N.wastedServiceNs) == Self.ms(380))
        #expect(m.counter(N.serviceNs) == Self.ms(530))
        #expect(m.counter(N.wastedClientNs) == Self.ms(360))
        #expect(m.counter(N.clientNs) == Self.ms(510))
        #expect(Self.recorded(m, N.timeToFresh) == Recorded(count: 1, min: 450, max: 450, sum: 450))
        #expect(m.counter(N.staleSettles) == 0)
        #expect(m.counter(N.mismatchNs) == 0)
        #expect(m.counter(N.displayChanges) == 2)
        #expect(m.counter(N.blinks) == 0)
        #expect(DerivedMetrics(m).wastedServiceShare.map { ($0 * 1000).rounded() } == 717)
    }

    @Test("timeline 3: a cancellation thrown into a catch is a false empty")
    func falseEmpty() {
        var s = Script(expectsBackend: false)
        s.at(0, .keystroke(text: "coff", query: Self.q("coff")), .requestStart(id: 1, query: Self.q("coff"), lag: 0), .display(.loading, query: nil))
        s.at(100, .keystroke(text: "coffe", query: Self.q("coffe")), .cancelRequested(id: 1, wait: false),
             .requestStart(id: 2, query: Self.q("coffe"), lag: 0))
        s.at(105, .workStopped(id: 1, reason: .cancelledObserved), .apply(id: 1, query: Self.q("coff"), kind: .error),
             .display(.error, query: Self.q("coff")))
        s.at(180, .workStopped(id: 2, reason: .completed), .apply(id: 2, query: Self.q("coffe"), kind: .results),
             .display(.results, query: Self.q("coffe")))
        let m = s.finish(1500)
        typealias N = MetricName
        #expect(m.counter(N.falseEmpties) == 1)
        #expect(m.counter(N.displayChanges) == 3)
        #expect(m.counter(N.blinks) == 2)
        #expect(Self.recorded(m, N.signalLatency) == Recorded(count: 1, min: 0, max: 0, sum: 0))
        #expect(Self.recorded(m, N.stopLatencyClient) == Recorded(count: 1, min: 5, max: 5, sum: 5))
        #expect(m.counter(N.wastedRequests) == 1)
        #expect(m.counter(N.mismatchNs) == 0)
        #expect(Self.recorded(m, N.timeToFresh) == Recorded(count: 1, min: 80, max: 80, sum: 80))
    }
}
