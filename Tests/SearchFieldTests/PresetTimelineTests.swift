import Testing
@testable import SearchField

/// The "sw" scenario: "sweater" typed one letter every 100 ms from 0 ms; the request for "sw"
/// takes 900 ms, every other one 100 ms.
let swSlow = typing("sweater")
func swSlowLatency(_ query: QueryIdentity) -> Int64 { query.text == "sw" ? ms(900) : ms(100) }

/// The pause mid-word: "swe" at 0–200 ms, a 500 ms pause (longer than the debounce, shorter than
/// a settle), then "ater" at 700–1000 ms; every request takes 300 ms.
let pauseMidWord = typing("swe") + typing("ater", from: 700, prefix: "swe")
func flat(_ value: Int64) -> (QueryIdentity) -> Int64 { { _ in ms(value) } }

@Suite("Preset timelines", .timeLimit(.minutes(5)))
struct PresetTimelineTests {
    @Test("naive: a request per keystroke, the slow \"sw\" overwrites \"sweater\"")
    func naiveSwSlow() {
        var runner = ScriptedRunner(NaiveField(), latency: swSlowLatency)
        runner.run(swSlow)
        #expect(runner.requests == ["0 #1 s", "100 #2 sw", "200 #3 swe", "300 #4 swea", "400 #5 sweat", "500 #6 sweate", "600 #7 sweater"])
        #expect(runner.displays == [
            "0 loading", "100 results(s #1)", "200 loading", "300 results(swe #3)", "400 loading", "400 results(swea #4)",
            "500 loading", "500 results(sweat #5)", "600 loading", "600 results(sweate #6)", "700 results(sweater #7)",
            "1000 results(sw #2)",
        ])
        #expect(runner.cancels.isEmpty)
    }

    @Test("naive: the empty text searches too, and a failure leaves the spinner on")
    func naiveEmptyAndFailure() {
        var runner = ScriptedRunner(NaiveField(), latency: flat(100))
        runner.failure = { $0.text == "a" ? .serverError : nil }
        runner.resultCount = { _ in 10 }
        runner.run([(ms(0), .textChanged("a")), (ms(500), .textChanged(""))])
        #expect(runner.requests == ["0 #1 a", "500 #2 "])
        #expect(runner.displays == ["0 loading", "600 results( #2)"])
    }

    @Test("manual-cancel: the swallowed CancellationError searches on every keystroke")
    func manualCancelPause() {
        var runner = ScriptedRunner(ManualCancelField(), latency: flat(300))
        runner.run(pauseMidWord)
        #expect(runner.requests == ["100 #1 s", "200 #2 sw", "500 #3 swe", "800 #4 swea", "900 #5 sweat", "1000 #6 sweate", "1300 #7 sweater"])
        #expect(runner.cancels == [
            "100 timer #1", "100 request #1", "200 timer #2", "200 request #2", "700 request #3",
            "800 timer #4", "800 request #4", "900 timer #5", "900 request #5", "1000 timer #6", "1000 request #6",
        ])
        #expect(runner.displays.last == "1600 results(sweater #7)")
    }

    @Test("manual-cancel: a cancelled request the backend ignored is still applied")
    func manualCancelIgnoredCancel() {
        var runner = ScriptedRunner(ManualCancelField(), latency: swSlowLatency)
        runner.cancelMode = .ignored
        runner.run(swSlow)
        #expect(runner.requests == ["100 #1 s", "200 #2 sw", "300 #3 swe", "400 #4 swea", "500 #5 sweat", "600 #6 sweate", "900 #7 sweater"])
        #expect(runner.applies.suffix(2) == ["1000 #7 sweater results", "1100 #2 sw results"])
        #expect(runner.displays.last == "1100 results(sw #2)")
    }

    @Test("split-state-seed: a mid-flight cancel throws into the catch and flashes a false empty")
    func splitStateSeedFalseEmpty() {
        var runner = ScriptedRunner(SplitStateSeedField(), latency: flat(300))
        runner.run(pauseMidWord)
        #expect(runner.requests == ["500 #1 swe", "1300 #2 sweater"])
        #expect(runner.displays == ["500 loading", "700 empty(swe)", "1300 loading", "1600 results(sweater #2)"])
        #expect(runner.applies == ["700 #1 swe error", "1600 #2 sweater results"])
    }

    @Test("split-state-seed: typing back to the committed query skips the search; wrong final screen")
    func splitStateSeedTypingBack() {
        var runner = ScriptedRunner(SplitStateSeedField(), latency: flat(500))
        runner.run([(ms(0), .textChanged("a")), (ms(100), .textChanged("ab")), (ms(500), .textChanged("abc")), (ms(600), .textChanged("ab"))])
        #expect(runner.requests == ["400 #1 ab"])
        #expect(runner.displays == ["400 loading", "500 empty(ab)"])
    }

    @Test("split-state-seed: a cancelled task's late answer lands under the newer loading task")
    func splitStateSeedLateAnswer() {
        var runner = ScriptedRunner(SplitStateSeedField(), latency: { $0.text == "swe" ? ms(850) : ms(100) })
        runner.cancelMode = .ignored
        runner.run(pauseMidWord)
        #expect(runner.requests == ["500 #1 swe", "1300 #2 sweater"])
        // The spinner went off at 1350 with the stale "swe" results while "sweater" was loading.
        #expect(runner.displays == ["500 loading", "1350 results(swe #1)", "1400 results(sweater #2)"])
        #expect(runner.applies == ["1350 #1 swe results", "1400 #2 sweater results"])
    }

    @Test("split-state: one request for the word, nothing for a too-short text")
    func splitStateSwSlow() {
        var runner = ScriptedRunner(SplitStateField(), latency: swSlowLatency)
        runner.run(swSlow)
        #expect(runner.requests == ["900 #1 sweater"])
        #expect(runner.displays == ["900 loading", "1000 results(sweater #1)"])
    }

    @Test("split-state: a pause mid-word cancels quietly; stalled after 200 ms")
    func splitStatePause() {
        var runner = ScriptedRunner(SplitStateField(), latency: flat(300))
        runner.run(pauseMidWord)
        #expect(runner.requests == ["500 #1 swe", "1300 #2 sweater"])
        #expect(runner.displays == ["500 loading", "700 idle", "1300 loading", "1500 stalled", "1600 results(sweater #2)"])
        #expect(runner.applies == ["1600 #2 sweater results"])
    }

    @Test("split-state: typing back searches again and ends on the right screen")
    func splitStateTypingBack() {
        var runner = ScriptedRunner(SplitStateField(), latency: flat(500))
        runner.run([(ms(0), .textChanged("a")), (ms(100), .textChanged("ab")), (ms(500), .textChanged("abc")), (ms(600), .textChanged("ab"))])
        #expect(runner.requests == ["400 #1 ab", "900 #2 ab"])
        #expect(runner.displays == ["400 loading", "500 idle", "900 loading", "1100 stalled", "1400 results(ab #2)"])
    }

    @Test("split-state: previous results stay while the next load; trailing space is the same query")
    func splitStateKeepsResults() {
        var runner = ScriptedRunner(SplitStateField(), latency: flat(100))
        runner.run([(ms(0), .textChanged("ab")), (ms(1000), .textChanged("ab ")), (ms(1100), .textChanged("ab c"))])
        #expect(runner.requests == ["300 #1 ab", "1400 #2 ab c"])
        #expect(runner.displays == ["300 loading", "400 results(ab #1)", "1500 results(ab c #2)"])
    }

    @Test("sequence-guard: every keystroke sends, the late \"sw\" is dropped")
    func sequenceGuardSwSlow() {
        var runner = ScriptedRunner(SequenceGuardField(), latency: swSlowLatency)
        runner.run(swSlow)
        #expect(runner.requests.count == 7)
        #expect(runner.cancels.filter { $0.contains("request") }.isEmpty)
        #expect(runner.displays == [
            "0 loading", "100 results(s #1)", "300 results(swe #3)", "400 results(swea #4)", "500 results(sweat #5)",
            "600 results(sweate #6)", "700 results(sweater #7)",
        ])
        #expect(runner.applies.last == "1000 #2 discarded")
    }

    @Test("debounce-switch: an obsolete in-order result shows during the next wait")
    func debounceSwitchPause() {
        var runner = ScriptedRunner(DebounceSwitchField(), latency: flat(300))
        runner.run(pauseMidWord)
        #expect(runner.requests == ["500 #1 swe", "1300 #2 sweater"])
        #expect(runner.displays == ["800 results(swe #1)", "1600 results(sweater #2)"])
    }

    @Test("debounce-switch: distinctUntilChanged skips a query equal to the last emitted one; switch cancels")
    func debounceSwitchDistinct() {
        var runner = ScriptedRunner(DebounceSwitchField(), latency: flat(1000))
        runner.run([(ms(0), .textChanged("ab")), (ms(400), .textChanged("abc")), (ms(500), .textChanged("ab")), (ms(900), .textChanged("abd"))])
        #expect(runner.requests == ["300 #1 ab", "1200 #2 abd"])
        #expect(runner.cancels.contains("1200 request #1"))
        #expect(runner.displays == ["2200 results(abd #2)"])
    }

    @Test("throttle: leading and trailing, at most one search per window")
    func throttleSwSlow() {
        var runner = ScriptedRunner(ThrottleField(), latency: swSlowLatency)
        runner.run(swSlow)
        #expect(runner.requests == ["0 #1 s", "300 #2 swea", "600 #3 sweater"])
        #expect(runner.displays == ["100 results(s #1)", "400 results(swea #2)", "700 results(sweater #3)"])
    }

    @Test("submit-only: nothing while typing, one request on Return")
    func submitOnly() {
        var runner = ScriptedRunner(SubmitOnlyField(), latency: flat(100))
        runner.run(swSlow + [(ms(1000), .submitted)])
        #expect(runner.requests == ["1000 #1 sweater"])
        #expect(runner.displays == ["1000 loading", "1100 results(sweater #1)"])
    }

    @Test("local-filter: every change filters on the UI thread, the empty text shows everything")
    func localFilter() {
        var runner = ScriptedRunner(LocalFilterField(), latency: flat(5))
        runner.resultCount = { _ in 10 }
        runner.run(typing("ab") + [(ms(500), .textChanged(""))])
        let local = runner.log.compactMap { entry -> String? in
            guard case let .runLocally(id, query) = entry.effect else { return nil }
            return "\(entry.time / 1_000_000) #\(id) \(query.text)"
        }
        #expect(local == ["0 #1 a", "100 #2 ab", "500 #3 "])
        #expect(runner.requests.isEmpty)
        #expect(runner.displays == ["5 results(a #1)", "105 results(ab #2)", "505 results( #3)"])
    }
}
