import SearchField
import Testing
@testable import TypestormMetrics

/// The recorder's metrics are only as right as the interner: equal keys must get equal refs and
/// different keys different refs, whichever typist asks and however large the table grows.
@Suite("Query interner", .timeLimit(.minutes(5)))
struct QueryInternerTests {
    /// Keys that differ only in scope, tokens, or where a token boundary falls.
    static let nearMisses: [QueryIdentity] = [
        QueryIdentity(text: "ab"), QueryIdentity(text: "ab", scope: "shoes"), QueryIdentity(text: "ab", scope: ""),
        QueryIdentity(text: "ab", tokens: ["c"]), QueryIdentity(text: "ab", tokens: ["c", "d"]), QueryIdentity(text: "ab", tokens: ["cd"]),
        QueryIdentity(text: "abc"), QueryIdentity(text: "ab", scope: "c"), QueryIdentity(text: "ab ", scope: nil),
        QueryIdentity(text: "가나"), QueryIdentity(text: "sneakers, well past fifteen bytes"),
    ]

    @Test func equalKeysShareARefAndDifferentKeysDoNot() {
        var interner = QueryInterner(typists: 3)
        var refs: [QueryRef] = []
        for (index, key) in Self.nearMisses.enumerated() {
            refs.append(interner.ref(key, typist: index % 3))
        }
        #expect(Set(refs).count == Self.nearMisses.count)
        for (index, key) in Self.nearMisses.enumerated().reversed() {
            #expect(interner.ref(key, typist: (index + 1) % 3) == refs[index])
            #expect(interner.ref(key, typist: (index + 1) % 3) == refs[index])
        }
        #expect(interner.ref(nil, typist: 0) == nil)
    }

    /// A text of up to 15 bytes is usually held inline (a small string), but a string made with
    /// more room than it needs holds the same bytes in a buffer: both must hash, and so intern,
    /// alike.
    @Test(arguments: ["", "a", "lamp", "lamp sha", "lamp shade", "lamp shade blue", "가나다", "lamp shade blue!"])
    func aTextHashesAlikeInlineAndInABuffer(_ text: String) {
        let buffered = String(unsafeUninitializedCapacity: 64) { buffer in
            _ = buffer.initialize(from: text.utf8)
            return text.utf8.count
        }
        #expect(buffered == text)
        #expect(QueryInterner.hash(QueryIdentity(text: buffered)) == QueryInterner.hash(QueryIdentity(text: text)))
        var interner = QueryInterner(typists: 2)
        #expect(interner.ref(QueryIdentity(text: buffered), typist: 0) == interner.ref(QueryIdentity(text: text), typist: 1))
    }

    @Test func refsSurviveTheTableGrowing() {
        var interner = QueryInterner(typists: 2)
        let keys = (0..<5_000).map { QueryIdentity(text: "q\($0)", scope: $0 % 3 == 0 ? "bags" : nil) }
        let refs = keys.enumerated().map { interner.ref($1, typist: $0 % 2) }
        #expect(Set(refs).count == keys.count)
        for (index, key) in keys.enumerated() {
            #expect(interner.ref(key, typist: 1 - index % 2) == refs[index])
        }
    }
}

/// Dropping dead queries must not change a single metric.
@Suite("Recorder query compaction", .timeLimit(.minutes(5)))
struct RecorderCompactionTests {
    /// SplitMix64: a tiny local generator, so the timeline is the same on every run.
    struct Mixer {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// Feeds the same random timeline (many typists, hundreds of distinct queries, every record
    /// kind that carries a query) to `recorder`, then finishes it.
    static func play(into recorder: inout Recorder, typists: Int) {
        var time = [Int64](repeating: 0, count: typists)
        play(into: &recorder, typists: 0..<typists, steps: 20_000, seed: 7, time: &time)
        recorder.finish(at: time.max()! + 1)
    }

    /// `steps` random records for typists `typists` only; `time` holds every typist's clock.
    static func play(into recorder: inout Recorder, typists: Range<Int>, steps: Int, seed: UInt64, time: inout [Int64]) {
        var mixer = Mixer(state: seed)
        var nextID = [UInt64](repeating: 1, count: time.count)
        // Each typist moves through epochs of three queries: equal queries are frequent (so
        // every comparison matters), and old epochs leave thousands of dead queries behind.
        var epoch = 0
        var typist = 0
        func query(_ mixer: inout Mixer) -> QueryIdentity {
            QueryIdentity(text: "t\(typist)e\(epoch)q\(mixer.next(3))", scope: mixer.next(8) == 0 ? "bags" : nil)
        }
        for step in 0..<steps {
            epoch = step / 200
            typist = typists.lowerBound + mixer.next(typists.count)
            time[typist] += Int64(mixer.next(400_000_000))
            let at = time[typist]
            let back = UInt64(mixer.next(3))
            let recent = nextID[typist] > back ? nextID[typist] - back : 1
            switch mixer.next(10) {
            case 0, 1: recorder.keystroke(mixer.next(6) == 0 ? nil : query(&mixer), typist: typist, at: at)
            case 2:
                recorder.waitStarted(id: nextID[typist], query: query(&mixer), typist: typist, at: at)
                nextID[typist] += 1
            case 3:
                if mixer.next(2) == 0 {
                    recorder.cancelRequested(id: recent, wait: mixer.next(2) == 0, typist: typist, at: at)
                } else {
                    recorder.waitFired(id: recent, lateness: 0, typist: typist, at: at)
                }
            case 4:
                recorder.record(.requestStart(id: nextID[typist], query: query(&mixer), lag: 0), typist: typist, at: at)
                nextID[typist] += 1
            case 5: recorder.record(.commit(query(&mixer), cached: mixer.next(4) == 0), typist: typist, at: at)
            case 6: recorder.record(.workStopped(id: recent, reason: mixer.next(3) == 0 ? .cancelledObserved : .completed), typist: typist, at: at)
            case 7:
                recorder.record(.backendStopped(id: recent, work: BackendWork(queueNanos: 5, serviceNanos: Int64(mixer.next(1000)))),
                                typist: typist, at: at)
            case 8: recorder.record(.apply(id: recent, query: query(&mixer), kind: mixer.next(3) == 0 ? .empty : .results), typist: typist, at: at)
            default:
                let kinds: [DisplayKind] = [.idle, .loading, .stalled, .results, .empty, .error]
                let kind = kinds[mixer.next(kinds.count)]
                let shows = kind == .results || kind == .empty || kind == .error
                recorder.display(kind, query: shows ? query(&mixer) : nil, typist: typist, at: at)
            }
        }
    }

    @Test func compactingOftenGivesTheSameMetricsAsNever() {
        var often = Recorder(typists: 20, expectsBackend: true, settleIntervalNanos: 1_000_000_000, blinkThresholdNanos: 200_000_000,
                             compactionFloor: 8)
        var never = Recorder(typists: 20, expectsBackend: true, settleIntervalNanos: 1_000_000_000, blinkThresholdNanos: 200_000_000,
                             compactionFloor: 1 << 30)
        Self.play(into: &often, typists: 20)
        Self.play(into: &never, typists: 20)
        #expect(never.queries.count > 2_000)
        #expect(often.queries.dropped > 0)
        #expect(never.queries.dropped == 0)
        #expect(often.metrics().counters == never.metrics().counters)
        // Whole sets compared as one Bool: a mismatch would print megabytes of histogram bins.
        let sameMetrics = often.metrics() == never.metrics()
        #expect(sameMetrics)
        #expect(often.metrics().counter(MetricName.keystrokes) > 1_000)
    }

    /// The virtual runner retires each server cell's typists once the cell has run; with a
    /// compaction in the middle of cells too, every metric (the examples' texts included) must
    /// be what one table holding every query gives.
    @Test func retiringCellsGivesTheSameMetricsAsNever() {
        func recorder(floor: Int) -> Recorder {
            Recorder(typists: 20, expectsBackend: true, settleIntervalNanos: 1_000_000_000, blinkThresholdNanos: 200_000_000,
                     compactionFloor: floor)
        }
        var retiring = recorder(floor: 64)
        var never = recorder(floor: 1 << 30)
        var retiringTime = [Int64](repeating: 0, count: 20)
        var neverTime = retiringTime
        for (index, cell) in [0..<5, 5..<12, 12..<13, 13..<20].enumerated() {
            Self.play(into: &retiring, typists: cell, steps: 4_000, seed: UInt64(index + 1), time: &retiringTime)
            Self.play(into: &never, typists: cell, steps: 4_000, seed: UInt64(index + 1), time: &neverTime)
            retiring.retire(cell)
            #expect(retiring.queries.count == 0)
        }
        retiring.finish(at: retiringTime.max()! + 1)
        never.finish(at: neverTime.max()! + 1)
        #expect(retiring.queries.dropped > 0)
        #expect(never.metrics().examples?.isEmpty == false)
        #expect(retiring.metrics().examples == never.metrics().examples)
        // Compared as Bools: a mismatch would print megabytes of counters and histogram bins.
        let sameCounters = retiring.metrics().counters == never.metrics().counters
        #expect(sameCounters)
        let sameMetrics = retiring.metrics() == never.metrics()
        #expect(sameMetrics)
        #expect(retiring.metrics().counter(MetricName.keystrokes) > 1_000)
    }
}
