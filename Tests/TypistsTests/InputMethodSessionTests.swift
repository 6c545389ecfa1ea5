import Testing
@testable import Typists

/// Whole sessions through each input method, with errors and pauses switched off so the
/// expected stream can be written out by hand.
@Suite("Input methods in generated sessions", .timeLimit(.minutes(5)))
struct InputMethodSessionTests {
    func session(_ phrase: String, language: TypingLanguage, config: TypistConfig? = nil, pinyin: PinyinDictionary = PinyinDictionary()) throws -> [TypingEvent] {
        var config = config ?? Support.flawless(language: language)
        config.wordsPerQuery = [0, 0, 0, 0, 0, 1]
        let pool = try QueryPool(phrases: [language: [.init(phrase)]], pinyin: pinyin)
        let population = try TypistPopulation(config: config, queries: pool, seed: 1)
        var session = population.session(forTypist: 0)
        return Support.events(&session)
    }

    static let dictionary = PinyinDictionary(entries: ["手": ["shou"], "机": ["ji"], "华": ["hua"], "为": ["wei"], "行": ["hang"], "行李箱": ["xing", "li", "xiang"], "李": ["li"], "箱": ["xiang"]])

    @Test("a pick is the space bar's key with no hand, as the general key init makes it")
    func pickKey() {
        #expect(PlanKey.pick(byteOffset: 12, byteCount: 6) == PlanKey(kind: .pick, physical: KeyboardLayout.space, flags: 0, value: 12 << 12 | 6))
    }

    @Test("pinyin: Latin pinyin with apostrophes in the field, replaced by the characters at the pick")
    func pinyinVisible() throws {
        var config = Support.flawless(language: .zh)
        config.pinyinAbbreviateRest = 0
        config.pinyinInitialsOnly = 0
        let events = try session("手机 华为", language: .zh, config: config, pinyin: Self.dictionary)
        #expect(Support.texts(events) == [
            "s", "sh", "sho", "shou", "shou'j", "shou'ji", "手机", "手机 ",
            "手机 h", "手机 hu", "手机 hua", "手机 hua'w", "手机 hua'we", "手机 hua'wei", "手机 华为",
        ])
        #expect(events.suffix(2).map(\.action) == [.submit, .end])
    }

    @Test("pinyin: initials only (sj for 手机) still commit the right characters")
    func pinyinInitials() throws {
        var config = Support.flawless(language: .zh)
        config.pinyinAbbreviateRest = 0
        config.pinyinInitialsOnly = 1
        let events = try session("手机 华为", language: .zh, config: config, pinyin: Self.dictionary)
        #expect(Support.texts(events) == ["s", "s'j", "手机", "手机 ", "手机 h", "手机 h'w", "手机 华为"])
    }

    @Test("pinyin kept out of the field: the field changes only at picks and spaces")
    func pinyinHidden() throws {
        var config = Support.flawless(language: .zh)
        config.pinyinInField = false
        let events = try session("手机 华为", language: .zh, config: config, pinyin: Self.dictionary)
        #expect(Support.texts(events) == ["手机", "手机 ", "手机 华为"])
    }

    @Test("a word entry settles a character with two readings (行李箱: xing, not hang)")
    func polyphone() throws {
        var config = Support.flawless(language: .zh)
        config.pinyinAbbreviateRest = 0
        config.pinyinInitialsOnly = 0
        let events = try session("行李箱", language: .zh, config: config, pinyin: Self.dictionary)
        #expect(Support.texts(events).prefix(4) == ["x", "xi", "xin", "xing"])
        #expect(Support.texts(events).last == "行李箱")
    }

    @Test("Korean session: the field composes syllables in place, and Latin letters use 한/영")
    func korean() throws {
        let events = try session("한글 s24", language: .ko)
        #expect(Support.texts(events) == ["ㅎ", "하", "한", "한ㄱ", "한그", "한글", "한글 ", "한글 s", "한글 s2", "한글 s24"])
        var config = Support.flawless(language: .ko)
        config.emitsUnchangedKeys = true
        let keys = try session("한글 s24", language: .ko, config: config).compactMap { event -> String? in
            if case let .edit(key, _) = event.action { return key } else { return nil }
        }
        #expect(keys == ["ㅎ", "ㅏ", "ㄴ", "ㄱ", "ㅡ", "ㄹ", " ", "한/영", "s", "2", "4"])
    }

    @Test("every shipped phrase, typed without errors, ends as the phrase itself", arguments: TypingLanguage.allCases)
    func shippedPhrasesTypeBack(_ language: TypingLanguage) throws {
        let pool = try #require(Support.shippedPool.pools[language])
        let population = try TypistPopulation(config: Support.flawless(language: language), queries: Support.shippedPool, seed: 3)
        var session = population.session(forTypist: 0)
        for phrase in pool.phrases {
            let typed = session.withState { state in
                state.editor.reset()
                state.plan(phrase: phrase, fromWord: 0, toWord: phrase.wordCount, leadingSpace: false)
                for key in state.keys.elements { state.press(key) }
                state.editor.flush()
                return String(decoding: state.editor.committed.elements, as: UTF8.self)
            }
            #expect(typed == phrase.text)
        }
    }

    @Test("a slip is noticed, backspaced and retyped: the field ends right")
    func correctedSlips() throws {
        var config = Support.flawless(language: .en)
        config.desktop.slipRate = 0.3
        config.desktop.noticeRate = 1
        for language in TypingLanguage.allCases {
            config.languageShares = [language: 1]
            let population = try TypistPopulation(config: config, queries: Support.shippedPool, seed: 77)
            var backspaces = 0
            for index in 0..<100 {
                var session = population.session(forTypist: index)
                let events = Support.events(&session)
                backspaces += events.filter { if case .edit("⌫", _) = $0.action { true } else { false } }.count
                let final = Support.texts(events).last
                #expect(final == session.intendedText, "\(language) typist \(index)")
            }
            #expect(backspaces > 50)
        }
    }

    @Test("scope and token changes come as their own events")
    func scopeAndTokens() throws {
        var config = Support.config(device: .desktop)
        config.scopeOrTokenChangeRate = 1
        config.scopes = ["brands"]
        config.tokens = ["in-stock"]
        let population = try TypistPopulation(config: config, queries: Support.shippedPool, seed: 4)
        var scopes = 0, tokens = 0
        for index in 0..<50 {
            var session = population.session(forTypist: index)
            for event in Support.events(&session) {
                switch event.action {
                case let .scope(scope):
                    scopes += 1
                    #expect(scope == nil || scope == "brands")
                case let .tokens(list):
                    tokens += 1
                    #expect(list.isEmpty || list == ["in-stock"])
                default: break
                }
            }
        }
        #expect(scopes > 10 && tokens > 10)
    }
}
