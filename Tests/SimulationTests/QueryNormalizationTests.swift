import FieldRuntime
import TypestormMetrics
import SearchField
import Testing
import Typists
@testable import Simulation

private func ms(_ value: Int64) -> Int64 { value * 1_000_000 }

/// Types `text` one character every `every` ms from `start`, continuing from `prefix`.
private func typed(_ text: String, from start: Int64, every: Int64 = 100, prefix: String = "") -> [TypingEvent] {
    var field = prefix
    return text.enumerated().map { index, character in
        field.append(character)
        return TypingEvent(at: ms(start + Int64(index) * every), action: .edit(key: String(character), text: field))
    }
}

/// Strategies that do not trim search for "shoe " when the field holds "shoe ". The engine
/// trims every query (`TextFolding.foldQuery`), so that answer *is* the answer for "shoe": the
/// recorder must judge it as such, or every pause after a space (people pause at word
/// boundaries) counts as a wrong final screen, mismatch time and wasted work.
@Suite("The recorder's view of untrimmed queries", .timeLimit(.minutes(5)))
struct QueryNormalizationTests {
    /// "shoe " at 100 ms a key, a 2 s pause, then "s"; the typist leaves at 3400 ms.
    static let pauseAfterSpace = typed("shoe ", from: 0) + typed("s", from: 2400, prefix: "shoe ")
        + [TypingEvent(at: ms(3400), action: .end)]

    @Test("debounce-switch: results for \"shoe \" shown during a pause after the space are fresh, not stale")
    func debounceSwitchPauseAfterSpace() throws {
        let metrics = Simulation.replay(Self.pauseAfterSpace, strategy: DebounceSwitchField(),
                                        backend: .scripted([:], default: ms(100)), seed: 1).metrics()
        // Wait fires at 700 ms, "shoe " answered at 800 ms; the pause settles at the "s" (2400 ms).
        #expect(metrics.counters[MetricName.settles] == 2)
        #expect(metrics.counters[MetricName.staleSettles] == 0)
        #expect(metrics.counters[MetricName.neverFresh] == 0)
        // Only while "shoe s" waits for its answer (2400 → 2800 ms) does the screen lag the field.
        #expect(metrics.counters[MetricName.mismatchNs] == ms(400))
        #expect(metrics.counters[MetricName.wastedRequests] == 0)
        let ttfr = try #require(metrics.histograms[MetricName.timeToFresh])
        #expect(ttfr.totalCount == 2)
    }

    @Test("every untrimmed preset: a pause after a space is not a wrong final screen",
          arguments: [Preset.naive, .manualCancel, .sequenceGuard, .debounceSwitch, .throttle, .localFilter])
    func untrimmedPresets(preset: Preset) {
        #expect(!preset.defaultConfiguration.normalizer.trims)
        var backend = BackendModel.scripted([:], default: ms(100))
        if preset == .localFilter { backend.scriptedNanos = [:]; backend.scriptedDefaultNanos = nil }
        func run<S: SearchFieldStrategy>(_ strategy: S) -> MetricSet {
            Simulation.replay(Self.pauseAfterSpace, strategy: strategy, backend: backend, seed: 1).metrics()
        }
        let metrics = run(preset.make())
        #expect(metrics.counters[MetricName.settles] == 2)
        #expect(metrics.counters[MetricName.staleSettles] == 0)
        #expect(metrics.counters[MetricName.neverFresh] == 0)
    }

    @Test("\"shoe\" and \"shoe \" are one question: searching both is fan-out, not two distinct queries")
    func duplicateSearchIsFanOut() {
        // "shoe", a 500 ms pause (debounce-switch searches "shoe"), then " " (it searches "shoe "
        // again: distinctUntilChanged compares raw strings), all in one burst.
        let trace = typed("shoe", from: 0) + typed(" ", from: 800, prefix: "shoe")
        let metrics = Simulation.replay(trace, strategy: DebounceSwitchField(), backend: .scripted([:], default: ms(100)), seed: 1).metrics()
        #expect(metrics.counters[MetricName.settles] == 1)
        #expect(metrics.counters[MetricName.requestsStarted] == 2)
        #expect(metrics.counters[MetricName.distinctCommits] == 1)
        #expect(metrics.counters[MetricName.staleSettles] == 0)
        // The space did not change the question, so the wait it restarted was still current.
        #expect(metrics.counters[MetricName.wastedRequests] == 0)
    }

    @Test("the recorder's key for a query identity is trimmed like the expected query")
    func keyIsTrimmed() {
        let key = QueryIdentity(text: " shoe\u{3000}", scope: "brands", tokens: ["in-stock"]).trimmed()
        #expect(key == QueryIdentity(text: "shoe", scope: "brands", tokens: ["in-stock"]))
        let expected = Preset.debounceSwitch.defaultConfiguration.expectedQuery(for: FieldInput(text: "shoe ", scope: "brands", tokens: ["in-stock"]))
        #expect(expected.map { $0.trimmed() } == key)
        #expect(expected.map { $0.trimmed(alreadyTrimmed: true) } == key)
    }
}

/// Faithful flaws that terminal staleness shows with human typists, pinned so that a change in
/// the numbers is a decision, not an accident.
@Suite("Terminal staleness of faithful flaws", .timeLimit(.minutes(5)))
struct FaithfulStalenessTests {
    @Test("debounce-switch with a minimum length: clearing the field leaves the old results on screen")
    func debounceSwitchClearKeepsResults() {
        // "shoe", answered; ⎋ at 1500 ms clears the field (below the minimum: the pipeline drops
        // it, nothing replaces the results); a 2 s pause; then "b".
        var configuration = Preset.debounceSwitch.defaultConfiguration
        configuration.normalizer.minimumLength = 2
        let trace = typed("shoe", from: 0) + [TypingEvent(at: ms(1500), action: .edit(key: "⎋", text: ""))]
            + typed("b", from: 3500) + [TypingEvent(at: ms(4500), action: .end)]
        let metrics = Simulation.replay(trace, strategy: DebounceSwitchField(configuration: configuration),
                                        backend: .scripted([:], default: ms(100)), seed: 1).metrics()
        // Settles: "shoe" (fresh), "" (shows "shoe": stale), "b" (below the minimum, still "shoe": stale).
        #expect(metrics.counters[MetricName.settles] == 3)
        #expect(metrics.counters[MetricName.staleSettles] == 2)
        #expect(metrics.counters[MetricName.requestsStarted] == 1)
        // With the preset's own minimum (0) the empty field is searched and the screen follows.
        let own = Simulation.replay(trace, strategy: DebounceSwitchField(), backend: .scripted([:], default: ms(100)), seed: 1).metrics()
        #expect(own.counters[MetricName.staleSettles] == 0)
    }

    @Test("submit-only: every pause mid-query is a stale settle; after Return the screen is fresh")
    func submitOnlyPausesAreStale() {
        // "sho", a 1.5 s hesitation, "e", Return at 2200 ms; a 3 s read; a follow-up key; leaves.
        let trace = typed("sho", from: 0) + typed("e", from: 1700, prefix: "sho") + [TypingEvent(at: ms(2200), action: .submit)]
            + typed(" ", from: 5200, prefix: "shoe") + [TypingEvent(at: ms(5300), action: .end)]
        let metrics = Simulation.replay(trace, strategy: SubmitOnlyField(), backend: .scripted([:], default: ms(100)), seed: 1).metrics()
        // Settles: "sho" (nothing shown: stale), "shoe" (submitted: fresh), "shoe " (same question: fresh).
        #expect(metrics.counters[MetricName.settles] == 3)
        #expect(metrics.counters[MetricName.staleSettles] == 1)
        #expect(metrics.counters[MetricName.requestsStarted] == 1)
    }
}
