import FieldRuntime
import TypestormMetrics
import SearchField
import Simulation
import Testing
import Typists

/// A metric that cannot be measured is absent: when no response ever comes, no strategy may be
/// credited with a fresh screen or a time to fresh results, whatever it renders on failure.
@Suite("Nothing credited that never came", .timeLimit(.minutes(5)))
struct NothingCreditedTests {
    static let ms: Int64 = 1_000_000

    /// Two queries typed a key every 150 ms, each followed by a 3 s pause (a settle).
    static let trace: [TypingEvent] = {
        var events: [TypingEvent] = []
        var at: Int64 = 0
        for word in ["sweater", "red shoes"] {
            var text = ""
            for character in word {
                text.append(character)
                events.append(TypingEvent(at: at, action: .edit(key: String(character), text: text)))
                at += 150 * ms
            }
            at += 3_000 * ms
            // Clear the field for the next query.
            if word != "red shoes" { events.append(TypingEvent(at: at, action: .edit(key: "⌫", text: ""))) }
            at += 150 * ms
        }
        events.append(TypingEvent(at: at + 3_000 * ms, action: .end))
        return events
    }()

    static func replayTyped<S: SearchFieldStrategy>(_ strategy: S, backend: BackendModel) -> MetricSet {
        Simulation.replay(trace, strategy: strategy, backend: backend, seed: 7).metrics()
    }

    @Test("every request fails: every strategy is never fresh on every searchable settle, with no TTFR", arguments: [
        FailureReason.serverError, .transport,
    ])
    func everyRequestFails(reason: FailureReason) {
        let backend = BackendModel(roundTrip: .constant(20 * Self.ms), service: .distribution(.constant(10 * Self.ms)),
                                   slowTailProbability: 0, errorRate: reason == .serverError ? 1 : 0,
                                   transportErrorRate: reason == .transport ? 1 : 0)
        for preset in Preset.allCases where preset != .localFilter && preset != .submitOnly {
            let metrics = Self.replay(preset.make(), backend: backend)
            let settles = metrics.counter(MetricName.settles)
            let idleSettles = settles - 2
            #expect(settles >= 2, "\(preset)")
            // The two query settles need an answer and never get one; the cleared field (if it
            // settles at all) is answered by an idle screen, which needs no request.
            #expect(metrics.counter(MetricName.neverFresh) == 2, "\(preset)")
            #expect((metrics.histograms[MetricName.timeToFresh]?.totalCount ?? 0) == idleSettles, "\(preset)")
            #expect(metrics.counter(MetricName.requestsCompleted) == 0, "\(preset)")
        }
    }

    @Test("the same trace with a working backend is fresh on both query settles")
    func workingBackendIsFresh() {
        let backend = BackendModel(roundTrip: .constant(20 * Self.ms), service: .distribution(.constant(10 * Self.ms)),
                                   slowTailProbability: 0, errorRate: 0)
        for preset in [Preset.naive, .splitState, .splitStateSeed, .sequenceGuard, .debounceSwitch] {
            let metrics = Self.replay(preset.make(), backend: backend)
            #expect(metrics.counter(MetricName.neverFresh) == 0, "\(preset)")
        }
    }
}

extension NothingCreditedTests {
    static func replay(_ strategy: any SearchFieldStrategy, backend: BackendModel) -> MetricSet {
        func open<S: SearchFieldStrategy>(_ s: S) -> MetricSet { replayTyped(s, backend: backend) }
        return open(strategy)
    }
}
