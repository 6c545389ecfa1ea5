import Testing
@testable import SearchField

/// Exact effects, event by event, for the parts a timeline summary does not show.
@Suite("Strategy effects", .timeLimit(.minutes(5)))
struct StrategyEffectTests {
    let ab = QueryIdentity(text: "ab")

    @Test("split-state: wait, send with a stalled timer, apply on the guarded response")
    func splitStateEffects() {
        var field = SplitStateField()
        var effects: [SearchEffect] = []
        field.handle(.textChanged("ab"), at: 0, into: &effects)
        #expect(effects == [.scheduleTimer(1, delay: ms(300), purpose: .debounce(ab))])
        effects.removeAll()
        field.handle(.timerFired(1), at: ms(300), into: &effects)
        #expect(effects == [.commit(ab, cached: false), .sendRequest(1, ab), .scheduleTimer(2, delay: ms(200), purpose: .stalled), .display(.loading)])
        effects.removeAll()
        field.handle(.responseArrived(7, ResultSummary(count: 3)), at: ms(350), into: &effects)
        #expect(effects == [.discard(7)])
        effects.removeAll()
        field.handle(.responseArrived(1, ResultSummary(count: 3)), at: ms(400), into: &effects)
        #expect(effects == [.cancelTimer(2), .apply(1, ab, .results), .display(.results(ab, request: 1))])
        effects.removeAll()
        field.handle(.textChanged("a"), at: ms(500), into: &effects)
        #expect(effects == [.display(.idle)])
    }

    @Test("split-state: cancellation is never an error; a server error shows as error")
    func splitStateFailures() {
        var field = SplitStateField()
        var effects: [SearchEffect] = []
        field.handle(.textChanged("ab"), at: 0, into: &effects)
        field.handle(.timerFired(1), at: ms(300), into: &effects)
        effects.removeAll()
        field.handle(.requestFailed(1, .serverError), at: ms(400), into: &effects)
        #expect(effects == [.cancelTimer(2), .apply(1, ab, .error), .display(.error(ab))])
        effects.removeAll()
        field.handle(.textChanged("abc"), at: ms(500), into: &effects)
        field.handle(.timerFired(3), at: ms(800), into: &effects)
        field.handle(.textChanged("abcd"), at: ms(850), into: &effects)
        effects.removeAll()
        field.handle(.requestFailed(2, .cancelled), at: ms(850), into: &effects)
        #expect(effects.isEmpty)
    }

    @Test("split-state: scope and tokens are part of the identity; text-keyed ignores them")
    func identityRestart() {
        var keyed = ScriptedRunner(SplitStateField(), latency: flat(100))
        keyed.run([(ms(0), .textChanged("shoes")), (ms(1000), .scopeChanged("men")), (ms(2000), .tokensChanged(["red"]))])
        #expect(keyed.requests == ["300 #1 shoes", "1300 #2 shoes", "2300 #3 shoes"])
        let sent = keyed.log.compactMap { entry -> QueryIdentity? in
            if case let .sendRequest(_, query) = entry.effect { return query }
            return nil
        }
        #expect(sent.map(\.scope) == [nil, "men", "men"])
        #expect(sent.last?.tokens == ["red"])

        var config = Preset.splitState.defaultConfiguration
        config.restartKey = .text
        var blind = ScriptedRunner(SplitStateField(configuration: config), latency: flat(100))
        blind.run([(ms(0), .textChanged("shoes")), (ms(1000), .scopeChanged("men")), (ms(2000), .textChanged("shoe"))])
        #expect(blind.requests == ["300 #1 shoes", "2300 #2 shoe"])
        #expect(blind.displays.contains("400 results(shoes #1)"))

        var seed = ScriptedRunner(SplitStateSeedField(), latency: flat(100))
        seed.run([(ms(0), .textChanged("shoes")), (ms(1000), .scopeChanged("men"))])
        #expect(seed.requests == ["300 #1 shoes"])
    }

    @Test("client cache: backspace to a query seen before shows it at once without a request")
    func cache() {
        var config = Preset.splitState.defaultConfiguration
        config.cacheCapacity = 4
        var runner = ScriptedRunner(SplitStateField(configuration: config), latency: flat(100))
        runner.run([(ms(0), .textChanged("ab")), (ms(1000), .textChanged("abc")), (ms(2000), .textChanged("ab"))])
        #expect(runner.requests == ["300 #1 ab", "1300 #2 abc"])
        #expect(runner.displays.last == "2000 results(ab #1)")
        #expect(runner.log.contains { $0.time == ms(2000) && $0.effect == .commit(QueryIdentity(text: "ab"), cached: true) })
    }

    @Test("client cache: evicts the least recently used entry")
    func cacheEviction() {
        var cache = ClientCache(capacity: 2)
        let a = QueryIdentity(text: "a"), b = QueryIdentity(text: "b"), c = QueryIdentity(text: "c")
        cache.insert(a, request: 1, summary: ResultSummary(count: 1))
        cache.insert(b, request: 2, summary: ResultSummary(count: 1))
        #expect(cache.lookup(a)?.request == 1)
        cache.insert(c, request: 3, summary: ResultSummary(count: 1))
        #expect(cache.lookup(b) == nil)
        #expect(cache.lookup(a) != nil && cache.lookup(c) != nil)
    }

    @Test("write-back: one re-entry per trimmed change; the base sees both values")
    func writeBack() {
        var config = Preset.splitState.defaultConfiguration
        config.writeBack = true
        var runner = ScriptedRunner(WriteBackField(base: SplitStateField(configuration: config)), latency: flat(100))
        runner.run([(ms(0), .textChanged("ab ")), (ms(1000), .textChanged("abc"))])
        let reports = runner.log.compactMap { entry -> SearchEffect? in
            if case .writeBack = entry.effect { return entry.effect }
            return nil
        }
        #expect(reports == [.writeBack(reentries: 1, runaway: false, brokeComposition: false)])
        #expect(runner.log.contains { $0.effect == .setFieldText("ab") })
        #expect(runner.field.text == "abc")
        #expect(runner.requests == ["300 #1 ab", "1300 #2 abc"])
    }

    @Test("write-back: during a composition the IME puts the text back; the bound stops the loop")
    func writeBackRunaway() {
        var config = Preset.splitState.defaultConfiguration
        config.writeBackBound = 16
        var runner = ScriptedRunner(WriteBackField(base: SplitStateField(configuration: config)), latency: flat(100))
        runner.run([ScriptedRunner<WriteBackField<SplitStateField>>.type(0, " 한", composing: true)])
        let sets = runner.log.filter { if case .setFieldText = $0.effect { return true } else { return false } }
        #expect(sets.count == 16)
        #expect(runner.log.last { if case .writeBack = $0.effect { true } else { false } }?.effect
            == .writeBack(reentries: 16, runaway: true, brokeComposition: true))
    }

    @Test("presets: every name parses and builds, and the write-back flag wraps")
    func presets() {
        #expect(Preset.allCases.map(\.rawValue) == [
            "naive", "manual-cancel", "split-state-seed", "split-state", "sequence-guard", "debounce-switch", "throttle",
            "submit-only", "local-filter",
        ])
        var config = Preset.naive.defaultConfiguration
        config.writeBack = true
        #expect(Preset.naive.make(config) is WriteBackField<NaiveField>)
        #expect(Preset.splitState.make() is SplitStateField)
    }

    @Test("normalizer: trims Unicode whitespace, counts characters, keeps strings without ends to trim")
    func normalizer() {
        let normalizer = QueryNormalizer(trims: true, minimumLength: 2)
        #expect(normalizer.normalize("  ab\n") == "ab")
        #expect(normalizer.normalize("\u{3000}한글\u{3000}") == "한글")
        #expect(normalizer.normalize(" \t ") == "")
        // ASCII ends: every ASCII White_Space character (tab through carriage return, space) and
        // nothing else is trimmed; inner spaces and other control characters stay.
        #expect(QueryNormalizer.trimmed("red shoes ") == "red shoes")
        #expect(QueryNormalizer.trimmed("\u{09}\u{0B}\u{0C}\r\na b\r\n") == "a b")
        #expect(QueryNormalizer.trimmed("\u{01}ab\u{1F}") == "\u{01}ab\u{1F}")
        #expect(QueryNormalizer.trimmed("ab\u{A0}") == "ab")
        #expect(normalizer.identity(text: " 한 ", scope: nil, tokens: []) == nil)
        #expect(normalizer.identity(text: "한글", scope: "k", tokens: []) == QueryIdentity(text: "한글", scope: "k"))
        #expect(Composition.isComposing(key: "ㅎ"))
        #expect(!Composition.isComposing(key: "a"))
    }
}
