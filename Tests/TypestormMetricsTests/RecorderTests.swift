import SearchField
import Testing
@testable import TypestormMetrics

private func ms(_ value: Int64) -> Int64 { value * 1_000_000 }
private func q(_ text: String) -> QueryIdentity { QueryIdentity(text: text) }

/// Feeds one typist's records with times in milliseconds.
private struct Script {
    var recorder: Recorder

    init(typists: Int = 1) {
        recorder = Recorder(typists: typists, expectsBackend: true, settleIntervalNanos: 1_000_000_000)
    }

    mutating func at(_ time: Int64, _ record: Record, typist: Int = 0) {
        recorder.record(record, typist: typist, at: ms(time))
    }

    mutating func key(_ time: Int64, _ text: String, query: String?? = .none, typist: Int = 0) {
        let key: QueryIdentity? = switch query {
        case .none: q(text)
        case let .some(value): value.map(q)
        }
        at(time, .keystroke(text: text, query: key), typist: typist)
    }

    mutating func finish(_ time: Int64) -> MetricSet {
        recorder.finish(at: ms(time))
        return recorder.metrics()
    }
}

private extension MetricSet {
    func values(_ name: String) -> [Int64] {
        histograms[name]?.buckets.flatMap { Array(repeating: $0.value, count: Int($0.count)) } ?? []
    }
}

@Suite("Recorder", .timeLimit(.minutes(5)))
struct RecorderTests {
    @Test("fan-out, task churn, signal latency and time to fresh results of one settle")
    func fanOutAndChurn() {
        var s = Script()
        s.key(0, "ab")
        s.at(0, .waitStarted(id: 1, query: q("ab")))
        s.key(100, "abc")
        s.at(100, .cancelRequested(id: 1, wait: true))
        s.at(100, .waitStarted(id: 2, query: q("abc")))
        s.at(400, .waitFired(id: 2, lateness: 0))
        s.at(400, .commit(q("abc"), cached: false))
        s.at(400, .requestStart(id: 1, query: q("abc"), lag: 0))
        s.at(400, .display(.loading, query: nil))
        s.at(500, .backendStopped(id: 1, work: BackendWork(queueNanos: 0, serviceNanos: ms(80), itemsScanned: 1000)))
        s.at(500, .workStopped(id: 1, reason: .completed))
        s.at(500, .apply(id: 1, query: q("abc"), kind: .results))
        s.at(500, .display(.results, query: q("abc")))
        s.at(2000, .sessionEnd)
        let m = s.finish(2000)
        #expect(m.counter(MetricName.keystrokes) == 2)
        #expect(m.counter(MetricName.settles) == 1)
        #expect(m.counter(MetricName.requestsStarted) == 1)
        #expect(m.values(MetricName.fanOutPerSettle) == [1])
        #expect(m.counter(MetricName.debounceWaits) == 2)
        #expect(m.counter(MetricName.taskChurn) == 1)
        #expect(m.values(MetricName.signalLatency) == [0])
        #expect(m.histograms[MetricName.timeToFresh]?.max == ms(400))
        #expect(m.counter(MetricName.staleSettles) == 0)
        #expect(m.counter(MetricName.neverFresh) == 0)
        #expect(m.counter(MetricName.wastedRequests) == 0)
        #expect(m.counter(MetricName.serviceNs) == ms(80))
        #expect(m.counter(MetricName.itemsScanned) == 1000)
        #expect(m.counter(MetricName.mismatchNs) == 0)
        #expect(m.counter(MetricName.displayChanges) == 2)
        // The spinner was up 100 ms: a blink.
        #expect(m.counter(MetricName.blinks) == 1)
        #expect(m.histograms[MetricName.requestLatency]?.max == ms(100))
        #expect(m.counter(MetricName.distinctCommits) == 1)
        #expect(m.counter(MetricName.sessionNs) == ms(2000))
    }

    /// Worked scenario 1: naive, "sw" slow at 900 ms. "sw" (#1) is sent at 100, "swe" (#2) at 200;
    /// #2 answers at 300, #1 at 1000 and overwrites it; the session ends at 3000.
    @Test("worked scenario: the slow \"sw\" — out-of-order apply, stale final screen, mismatch, waste")
    func swSlow() {
        var s = Script()
        s.key(0, "s")
        s.at(0, .requestStart(id: 1, query: q("s"), lag: 0))
        s.key(100, "sw")
        s.at(100, .requestStart(id: 2, query: q("sw"), lag: 0))
        s.at(100, .workStopped(id: 1, reason: .completed))
        s.at(100, .backendStopped(id: 1, work: BackendWork(queueNanos: 0, serviceNanos: ms(50))))
        s.at(100, .apply(id: 1, query: q("s"), kind: .results))
        s.at(100, .display(.results, query: q("s")))
        s.key(200, "swe")
        s.at(200, .requestStart(id: 3, query: q("swe"), lag: 0))
        s.at(300, .workStopped(id: 3, reason: .completed))
        s.at(300, .backendStopped(id: 3, work: BackendWork(queueNanos: 0, serviceNanos: ms(50))))
        s.at(300, .apply(id: 3, query: q("swe"), kind: .results))
        s.at(300, .display(.results, query: q("swe")))
        s.at(1000, .backendStopped(id: 2, work: BackendWork(queueNanos: ms(300), serviceNanos: ms(600))))
        s.at(1000, .workStopped(id: 2, reason: .completed))
        s.at(1000, .apply(id: 2, query: q("sw"), kind: .results))
        s.at(1000, .display(.results, query: q("sw")))
        s.at(3000, .sessionEnd)
        let m = s.finish(3000)
        #expect(m.counter(MetricName.outOfOrderApplies) == 1)
        #expect(m.counter(MetricName.settles) == 1)
        #expect(m.counter(MetricName.staleSettles) == 1)
        #expect(m.counter(MetricName.neverFresh) == 1)
        #expect(m.histograms[MetricName.timeToFresh]?.isEmpty == true)
        // results(s) shown 100–200 while the field said "sw"... and "swe"; results(sw) 1000–3000.
        #expect(m.counter(MetricName.mismatchNs) == ms(100) + ms(100) + ms(2000))
        // #1 ("s") and #2 ("sw") answered queries the field had left: their service is wasted.
        #expect(m.counter(MetricName.wastedRequests) == 2)
        #expect(m.counter(MetricName.wastedServiceNs) == ms(650))
        #expect(m.counter(MetricName.serviceNs) == ms(700))
        #expect(m.counter(MetricName.wastedClientNs) == ms(100) + ms(900))
        #expect(m.values(MetricName.fanOutPerSettle) == [3])
        #expect(m.histograms[MetricName.queueTime]?.max == ms(300))
        #expect(m.maxima[MetricName.maxInFlight] == 2)
    }

    /// Worked scenario 2: split-state-seed, a pause mid-word. "swe" is searched at 500; typing
    /// resumes at 700, which cancels it: the catch writes an empty result; the server notices at 750.
    @Test("worked scenario: a pause mid-word — false empty, signal and stop latencies, waste")
    func pauseMidWord() {
        var s = Script()
        s.key(0, "s", query: .some(nil))
        s.key(100, "sw")
        s.key(200, "swe")
        s.at(500, .requestStart(id: 1, query: q("swe"), lag: 0))
        s.at(500, .display(.loading, query: nil))
        s.key(700, "swea")
        s.at(700, .cancelRequested(id: 1, wait: false))
        s.at(700, .workStopped(id: 1, reason: .cancelledObserved))
        s.at(700, .apply(id: 1, query: q("swe"), kind: .error))
        s.at(700, .display(.empty, query: q("swe")))
        s.at(750, .backendStopped(id: 1, work: BackendWork(queueNanos: 0, serviceNanos: ms(250), itemsScanned: 500)))
        s.key(800, "sweat")
        s.key(900, "sweate")
        s.key(1000, "sweater")
        s.at(1300, .requestStart(id: 2, query: q("sweater"), lag: 0))
        s.at(1300, .display(.loading, query: nil))
        s.at(1600, .backendStopped(id: 2, work: BackendWork(queueNanos: 0, serviceNanos: ms(300), itemsScanned: 600)))
        s.at(1600, .workStopped(id: 2, reason: .completed))
        s.at(1600, .apply(id: 2, query: q("sweater"), kind: .results))
        s.at(1600, .display(.results, query: q("sweater")))
        s.at(5000, .sessionEnd)
        let m = s.finish(5000)
        #expect(m.counter(MetricName.falseEmpties) == 1)
        #expect(m.values(MetricName.signalLatency) == [0])
        #expect(m.values(MetricName.stopLatencyClient) == [0])
        #expect(m.histograms[MetricName.stopLatencyBackend]?.max == ms(50))
        #expect(m.counter(MetricName.cancelsObserved) == 1)
        #expect(m.counter(MetricName.wastedServiceNs) == ms(250))
        #expect(m.counter(MetricName.wastedItems) == 500)
        #expect(m.counter(MetricName.serviceNs) == ms(550))
        #expect(m.histograms[MetricName.timeToFresh]?.max == ms(600))
        #expect(m.counter(MetricName.staleSettles) == 0)
        // empty(swe) shown 700–1300 while the field asked for something else.
        #expect(m.counter(MetricName.mismatchNs) == ms(600))
        #expect(m.values(MetricName.displayChangesPerSettle) == [4])
        #expect(m.counter(MetricName.blinks) == 0)
    }

    @Test("signal latency counts from the input change that made the request obsolete")
    func signalLatency() {
        var s = Script()
        s.key(0, "swe")
        s.at(300, .requestStart(id: 1, query: q("swe"), lag: 0))
        s.key(400, "swea")
        s.key(500, "sweat")
        s.at(800, .cancelRequested(id: 1, wait: false))
        s.at(820, .workStopped(id: 1, reason: .cancelledObserved))
        let m = s.finish(3000)
        #expect(m.histograms[MetricName.signalLatency]?.totalCount == 1)
        #expect(m.histograms[MetricName.signalLatency]?.max == ms(400))
        #expect(m.histograms[MetricName.stopLatencyClient]?.max == ms(20))
        #expect(m.counter(MetricName.wastedRequests) == 1)
        #expect(m.counter(MetricName.wastedClientNs) == ms(520))
    }

    @Test("a pause of at least S splits settles; requests count toward the open one")
    func settles() {
        var s = Script()
        s.key(0, "ab")
        s.at(300, .requestStart(id: 1, query: q("ab"), lag: 0))
        s.at(400, .workStopped(id: 1, reason: .completed))
        s.at(400, .apply(id: 1, query: q("ab"), kind: .results))
        s.at(400, .display(.results, query: q("ab")))
        s.key(999, "abc")
        s.key(2100, "abcd")
        s.at(2100, .requestStart(id: 2, query: q("abcd"), lag: 0))
        s.at(2150, .requestStart(id: 3, query: q("abcd"), lag: 0))
        s.at(2200, .workStopped(id: 2, reason: .completed))
        s.at(2200, .discard(id: 2))
        s.at(2300, .workStopped(id: 3, reason: .completed))
        s.at(2300, .apply(id: 3, query: q("abcd"), kind: .empty))
        s.at(2300, .display(.empty, query: q("abcd")))
        s.at(4000, .sessionEnd)
        let m = s.finish(4000)
        #expect(m.counter(MetricName.settles) == 2)
        #expect(m.values(MetricName.fanOutPerSettle) == [1, 2])
        // First settle ends on results(ab) while the field says "abc": stale and never fresh.
        #expect(m.counter(MetricName.staleSettles) == 1)
        #expect(m.counter(MetricName.neverFresh) == 1)
        // The backend's own empty answer for the current query is fresh, not a false empty.
        #expect(m.histograms[MetricName.timeToFresh]?.max == ms(200))
        #expect(m.counter(MetricName.falseEmpties) == 0)
        #expect(m.counter(MetricName.wastedRequests) == 1)
        #expect(m.counter(MetricName.discards) == 1)
    }

    @Test("blinks: a state visible under 200 ms; below the minimum length, fresh means idle")
    func blinksAndIdle() {
        var s = Script()
        s.key(0, "ab")
        s.at(0, .display(.loading, query: nil))
        s.at(50, .display(.results, query: q("ab")))
        s.at(50, .display(.loading, query: nil))
        s.at(100, .requestStart(id: 1, query: q("ab"), lag: 0))
        s.at(300, .workStopped(id: 1, reason: .completed))
        s.at(300, .apply(id: 1, query: q("ab"), kind: .results))
        s.at(300, .display(.results, query: q("ab")))
        s.key(2000, "a", query: .some(nil))
        s.at(2010, .display(.idle, query: nil))
        let m = s.finish(5000)
        #expect(m.counter(MetricName.blinks) == 2)
        #expect(m.values(MetricName.blinksPerSettle) == [0, 2])
        #expect(m.counter(MetricName.settles) == 2)
        #expect(m.histograms[MetricName.timeToFresh]?.min == ms(10))
        #expect(m.histograms[MetricName.timeToFresh]?.max == ms(300))
    }

    @Test("nothing is credited that never came: a failure shown as an empty list is not fresh, a cache hit is")
    func failuresAreNeverFresh() {
        var s = Script()
        s.key(0, "ab")
        s.at(300, .requestStart(id: 1, query: q("ab"), lag: 0))
        s.at(310, .workStopped(id: 1, reason: .transport))
        s.at(310, .apply(id: 1, query: q("ab"), kind: .error))
        s.at(310, .display(.empty, query: q("ab")))
        // A display of results nobody answered (no apply of a completed response) is no answer.
        s.at(320, .display(.results, query: q("ab")))
        s.key(2000, "abc")
        s.at(2000, .commit(q("abc"), cached: true))
        s.at(2000, .display(.results, query: q("abc")))
        s.at(4000, .sessionEnd)
        let m = s.finish(4000)
        #expect(m.counter(MetricName.settles) == 2)
        #expect(m.counter(MetricName.neverFresh) == 1)
        #expect(m.counter(MetricName.staleSettles) == 1)
        #expect(m.histograms[MetricName.timeToFresh]?.totalCount == 1)
        #expect(m.histograms[MetricName.timeToFresh]?.max == 0)
    }

    @Test("a settle already right at its last keystroke needed no answer: no TTFR sample, counted apart")
    func alreadyFreshSettles() {
        var s = Script()
        // Search 1 needs an answer: "ab" answered 80 ms after the last keystroke.
        s.key(0, "ab")
        s.at(0, .requestStart(id: 1, query: q("ab"), lag: 0))
        s.at(80, .workStopped(id: 1, reason: .completed))
        s.at(80, .apply(id: 1, query: q("ab"), kind: .results))
        s.at(80, .display(.results, query: q("ab")))
        // Search 2: "abc" then back to "ab" at 2100, whose answer is still on screen: already right.
        s.key(2000, "abc")
        s.key(2100, "ab")
        // Search 3: already right at the keystroke, then replaced and right again: it needed one.
        s.key(4000, "ab")
        s.at(4010, .display(.loading, query: nil))
        s.at(4050, .display(.results, query: q("ab")))
        s.at(6000, .sessionEnd)
        let m = s.finish(6000)
        #expect(m.counter(MetricName.settles) == 3)
        #expect(m.counter(MetricName.alreadyFreshSettles) == 1)
        #expect(m.counter(MetricName.neverFresh) == 0)
        let ttfr = m.histograms[MetricName.timeToFresh]
        #expect(ttfr?.totalCount == 2)
        #expect(ttfr?.min == ms(50) && ttfr?.max == ms(80))
        #expect(DerivedMetrics(m).alreadyFreshShare == 1.0 / 3)
    }

    @Test("cache commits, write-back loops and load figures are counted")
    func counters() {
        var s = Script()
        s.key(0, "ab")
        s.at(0, .commit(q("ab"), cached: true))
        s.at(0, .commit(q("ab"), cached: false))
        s.at(0, .writeBack(reentries: 1, runaway: false, brokeComposition: false))
        s.at(10, .writeBack(reentries: 16, runaway: true, brokeComposition: true))
        s.at(20, .requestStart(id: 1, query: q("ab"), lag: ms(3)))
        s.at(30, .workStopped(id: 1, reason: .timeout))
        s.at(40, .waitStarted(id: 9, query: q("ab")))
        s.at(90, .waitFired(id: 9, lateness: ms(2)))
        s.recorder.recordProcess(cpuNanos: 5, peakRSSBytes: 7, allocatedBytes: 11)
        let m = s.finish(100)
        #expect(m.counter(MetricName.commits) == 2)
        #expect(m.counter(MetricName.cachedCommits) == 1)
        #expect(m.counter(MetricName.distinctCommits) == 1)
        #expect(m.counter(MetricName.writeBackReentries) == 17)
        #expect(m.counter(MetricName.writeBackRunaways) == 1)
        #expect(m.counter(MetricName.compositionBreaks) == 1)
        #expect(m.counter(MetricName.timeouts) == 1)
        #expect(m.histograms[MetricName.scheduleLag]?.max == ms(3))
        #expect(m.histograms[MetricName.timerLateness]?.max == ms(2))
        #expect(m.counter(MetricName.cpuNs) == 5 && m.maxima[MetricName.peakRSS] == 7)
        #expect(m.counters[MetricName.allocatedBytes] == 11)
        // Never told (virtual time): the process figures are absent, not 0.
        var never = Script()
        let untold = never.finish(100)
        #expect(untold.counters[MetricName.cpuNs] == nil && untold.counters[MetricName.allocatedBytes] == nil)
        #expect(untold.maxima[MetricName.peakRSS] == nil)
        #expect(m.maxima[MetricName.runEndNs] == ms(100))
    }

    @Test("recording typists apart and merging equals recording them together")
    func mergeEqualsTogether() throws {
        func feed(_ s: inout Script, typist: Int, slot: Int) {
            let offset = Int64(typist) * 37
            s.key(offset, "ab", typist: slot)
            s.at(offset + 300, .requestStart(id: 1, query: q("ab"), lag: 0), typist: slot)
            s.key(offset + 350, "abc", typist: slot)
            s.at(offset + 600 + offset, .workStopped(id: 1, reason: .completed), typist: slot)
            s.at(offset + 600 + offset, .backendStopped(id: 1, work: BackendWork(queueNanos: offset, serviceNanos: 90 + offset)), typist: slot)
            s.at(offset + 600 + offset, .apply(id: 1, query: q("ab"), kind: .results), typist: slot)
            s.at(offset + 600 + offset, .display(.results, query: q("ab")), typist: slot)
            s.at(offset + 3000, .sessionEnd, typist: slot)
        }
        var together = Script(typists: 3)
        for typist in 0..<3 { feed(&together, typist: typist, slot: typist) }
        let whole = together.finish(9000)
        var merged = MetricSet()
        for typist in 0..<3 {
            var alone = Script(typists: 1)
            feed(&alone, typist: typist, slot: 0)
            try merged.merge(alone.finish(5000 + Int64(typist)))
        }
        #expect(merged.counters == whole.counters)
        #expect(merged.histograms == whole.histograms)
        #expect(merged.maxima[MetricName.maxInFlight] == whole.maxima[MetricName.maxInFlight])
    }
}
