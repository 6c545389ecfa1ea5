import Testing
@testable import Typists

@Suite("Query lists and the pinyin dictionary", .timeLimit(.minutes(5)))
struct QueryPoolTests {
    @Test("the shipped lists load for every language, with words for every length 1…6")
    func shippedLists() {
        for language in TypingLanguage.allCases {
            let pool = Support.shippedPool.pools[language]
            #expect((pool?.phrases.count ?? 0) >= 80, "\(language)")
            #expect(pool?.phrases.contains { $0.wordCount >= 6 } == true, "\(language) needs 6-word phrases")
        }
    }

    @Test("Zipf popularity: the top phrase is drawn about as often as 1/H(n, s) says")
    func zipf() throws {
        let entries = (1...50).map { QueryPool.Entry("w\($0)") }
        let pool = try QueryPool(phrases: [.en: entries], zipfExponent: 1.0)
        var rng = SeededGenerator(seed: 3)
        var top = 0
        for _ in 0..<40_000 where pool.pools[.en]!.draw(words: 1, &rng) == 0 { top += 1 }
        let harmonic = (1...50).reduce(0.0) { $0 + 1 / Double($1) }
        #expect(abs(Double(top) / 40_000 - 1 / harmonic) < 0.01)
    }

    @Test("errors name the file and line", arguments: [
        ("phone case\t-2", "en.txt:1: weight '-2' is not a positive number"),
        ("# c\nphone\tcase\t3", "en.txt:2: expected a phrase, optionally a tab and a weight"),
    ])
    func parseErrors(_ text: String, _ message: String) {
        #expect(throws: QueryPoolError.malformed(file: "en.txt", line: Int(message.split(separator: ":")[1])!,
                                                 reason: String(message.split(separator: ": ", maxSplits: 1)[1]))) {
            try QueryPool.parseEntries(text, file: "en.txt")
        }
    }

    @Test("a Chinese character without a reading is named with where it came from")
    func missingPinyin() throws {
        let entries = try QueryPool.parseEntries("手机\n鲸鱼", file: "zh.txt")
        #expect {
            try QueryPool(phrases: [.zh: entries], pinyin: PinyinDictionary(entries: ["手": ["shou"], "机": ["ji"]]))
        } throws: { error in
            "\(error)" == "zh.txt:2: no pinyin for '鲸' in the pinyin dictionary"
        }
    }

    @Test("phrases from a catalog that cannot be typed can be left out and counted")
    func skippingUntypeable() throws {
        let entries = try QueryPool.parseEntries("手机\n鲸鱼\n手机 手机", file: "zh.txt")
        let pool = try QueryPool(phrases: [.zh: entries, .ko: [.init("한글"), .init("日本")]],
                                 pinyin: PinyinDictionary(entries: ["手": ["shou"], "机": ["ji"]]), skippingUntypeable: true)
        #expect(pool.phrases(for: .zh) == ["手机", "手机 手机"])
        #expect(pool.skipped == [.zh: 1, .ko: 1])
        #expect(pool.phrases(for: .ko) == ["한글"])
    }

    @Test("pinyin dictionary lines are checked")
    func dictionaryErrors() {
        #expect(throws: QueryPoolError.malformed(file: "p.txt", line: 2, reason: "'手机' has 2 characters but 1 syllables")) {
            try PinyinDictionary(parsing: "手\tshou\n手机\tshouji", file: "p.txt")
        }
        #expect(throws: QueryPoolError.malformed(file: "p.txt", line: 1, reason: "syllable 'lǜ' is not lower-case a–z (write ü as v)")) {
            try PinyinDictionary(parsing: "绿\tlǜ", file: "p.txt")
        }
    }

    @Test("a language with a share but no queries is refused")
    func missingLanguage() throws {
        var config = TypistConfig()
        config.languageShares = [.ko: 1]
        let pool = try QueryPool(phrases: [.en: [.init("phone")]])
        #expect(throws: QueryPoolError.invalid("no queries for ko, which the language shares ask for")) {
            try TypistPopulation(config: config, queries: pool, seed: 1)
        }
    }
}

@Suite("Config validation", .timeLimit(.minutes(5)))
struct TypistConfigValidationTests {
    @Test("the defaults are valid")
    func defaults() {
        #expect(TypistConfig().problems().isEmpty)
    }

    @Test("bad knobs are named instead of trapping later")
    func badKnobs() throws {
        var config = TypistConfig()
        config.composingSpeedScale = 0...0.5
        config.intervalShape = .logLogistic(shape: 0.9)
        config.mobile.slipRate = 1.5
        let problems = config.problems()
        #expect(problems.count == 3)
        #expect(problems.contains { $0.hasPrefix("composingSpeedScale") })
        #expect(problems.contains { $0.hasPrefix("intervalShape") })
        #expect(problems.contains { $0.hasPrefix("mobile.slipRate") })
        #expect(throws: QueryPoolError.self) {
            try TypistPopulation(config: config, queries: Support.shippedPool, seed: 1)
        }
    }
}
