import Foundation

/// The queries typists mean to type, per language, with their popularity.
///
/// Built by the caller (from the shipped `Datasets/queries` files, or from a catalog's product
/// names) because Typists imports no other project module. A typist draws a number of words
/// from the words-per-query distribution, then a phrase with at least that many words by
/// popularity, and types its first words: so targets are words and prefixes of phrases.
public struct QueryPool: Sendable {
    /// One phrase and its popularity weight (`nil`: Zipf by its rank in the list).
    public struct Entry: Sendable, Hashable {
        /// The phrase as typed.
        public var text: String
        /// The phrase's popularity weight; `nil` means Zipf by its rank in the list.
        public var weight: Double?
        /// Where the phrase came from, for error messages (`en.txt:12`).
        public var origin: String?

        /// An entry for `text` with an optional weight and origin (`en.txt:12`).
        public init(_ text: String, weight: Double? = nil, origin: String? = nil) {
            self.text = text
            self.weight = weight
            self.origin = origin
        }
    }

    /// Exponent s of the popularity of the phrase at rank r, 1/r^s [Q8, Q9].
    public let zipfExponent: Double
    let pools: [TypingLanguage: LanguagePool]

    /// Phrases left out because they cannot be typed (see `skippingUntypeable`), per language.
    public let skipped: [TypingLanguage: Int]

    /// - Parameters:
    ///   - phrases: the phrases of each language, most popular first.
    ///   - pinyin: readings for every Chinese character used (needed when `phrases[.zh]` is given).
    ///   - skippingUntypeable: leave out phrases the input method cannot type (a Chinese
    ///     character without a reading, a character a Dubeolsik keyboard lacks) instead of
    ///     failing; for query lists made from a catalog. Counted in `skipped`.
    public init(phrases: [TypingLanguage: [Entry]], zipfExponent: Double = 0.75, pinyin: PinyinDictionary = PinyinDictionary(),
                skippingUntypeable: Bool = false) throws {
        guard zipfExponent.isFinite, zipfExponent >= 0 else {
            throw QueryPoolError.invalid("the Zipf exponent must be a finite number ≥ 0, not \(zipfExponent)")
        }
        self.zipfExponent = zipfExponent
        var pools: [TypingLanguage: LanguagePool] = [:]
        var skipped: [TypingLanguage: Int] = [:]
        for (language, entries) in phrases where !entries.isEmpty {
            let pool = try LanguagePool(language: language, entries: entries, zipfExponent: zipfExponent, pinyin: pinyin,
                                        skippingUntypeable: skippingUntypeable)
            skipped[language] = pool.skipped
            if !pool.phrases.isEmpty { pools[language] = pool }
        }
        self.pools = pools
        self.skipped = skipped
    }

    /// Languages that have at least one phrase.
    public var languages: [TypingLanguage] {
        TypingLanguage.allCases.filter { pools[$0] != nil }
    }

    /// The phrases of `language`, most popular first.
    public func phrases(for language: TypingLanguage) -> [String] {
        pools[language]?.phrases.map(\.text) ?? []
    }
}

/// What is wrong with a query list or a pinyin dictionary.
public enum QueryPoolError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed(file: String, line: Int, reason: String)
    case missingFile(String)
    case invalid(String)
    /// A phrase the input method cannot type (a character without a pinyin reading, …).
    case untypeable(String)

    public var description: String {
        switch self {
        case let .malformed(file, line, reason): return "\(file):\(line): \(reason)"
        case let .missingFile(path): return "cannot read \(path)"
        case let .invalid(message), let .untypeable(message): return message
        }
    }
}

/// A phrase prepared for typing: its bytes, where its words end and, for Chinese, its readings.
final class Phrase: Sendable {
    let text: String
    let bytes: [UInt8]
    /// Byte offset just past each word.
    let wordEnds: [Int]
    /// Chinese only: one unit per character.
    let units: [HanziUnit]
    /// Chinese only: the letters of every reading, concatenated; units point into it.
    let pinyin: [UInt8]
    /// English and Korean: the keys of the whole phrase.
    let plan: PhrasePlan
    /// Chinese: a key for every letter of `pinyin`, the last of each reading marked as the
    /// end of a syllable.
    let pinyinKeys: [PlanKey]

    var wordCount: Int { wordEnds.count }

    init(text: String, bytes: [UInt8], wordEnds: [Int], units: [HanziUnit], pinyin: [UInt8], language: TypingLanguage) {
        self.text = text
        self.bytes = bytes
        self.wordEnds = wordEnds
        self.units = units
        self.pinyin = pinyin
        self.plan = language == .zh ? .empty : PhrasePlan(bytes: bytes, language: language)
        var pinyinKeys = pinyin.map { PlanKey.pinyinLetter($0, wordStart: false, syllableEnd: false) }
        for unit in units where unit.pinyinCount > 0 {
            pinyinKeys[Int(unit.pinyinOffset) + Int(unit.pinyinCount) - 1].flags |= PlanKey.syllableEnd
        }
        self.pinyinKeys = pinyinKeys
    }
}

/// A character of a Chinese phrase and how a pinyin typist enters it.
struct HanziUnit: Sendable {
    var byteOffset: UInt16
    var byteCount: UInt8
    /// Letters of its reading in `Phrase.pinyin` (0 for characters typed as themselves).
    var pinyinOffset: UInt16
    var pinyinCount: UInt8
    /// A candidate pick follows this character.
    var endsSegment: Bool
    var isHan: Bool
}

/// The phrases of one language and the tables to draw them.
///
/// A class, so a session holds one reference to it rather than copies of its arrays, whose
/// shared reference counts would bounce between cores.
final class LanguagePool: Sendable {
    let language: TypingLanguage
    let phrases: [Phrase]
    /// For k = 1, 2, …: indices of the phrases with at least k words and their cumulative weight.
    let draws: [DrawTable]

    struct DrawTable: Sendable {
        var indices: [Int32]
        var cumulative: [Double]
    }

    /// Phrases left out as untypeable.
    let skipped: Int

    init(language: TypingLanguage, entries: [QueryPool.Entry], zipfExponent: Double, pinyin: PinyinDictionary,
         skippingUntypeable: Bool = false) throws {
        self.language = language
        var phrases: [Phrase] = []
        var weights: [Double] = []
        var skipped = 0
        for (rank, entry) in entries.enumerated() {
            let origin = entry.origin ?? "\(language.rawValue) phrase \(rank + 1)"
            let text = entry.text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            guard !text.isEmpty else { throw QueryPoolError.invalid("\(origin): empty phrase") }
            if let weight = entry.weight, !(weight.isFinite && weight > 0) {
                throw QueryPoolError.invalid("\(origin): weight must be a positive number, not \(weight)")
            }
            let phrase: Phrase
            do {
                phrase = try Self.prepare(text, language: language, pinyin: pinyin, origin: origin)
            } catch let error as QueryPoolError where skippingUntypeable {
                guard case .untypeable = error else { throw error }
                skipped += 1
                continue
            }
            weights.append(entry.weight ?? 1 / pow(Double(rank + 1), zipfExponent))
            phrases.append(phrase)
        }
        self.phrases = phrases
        self.skipped = skipped
        let maxWords = phrases.map(\.wordCount).max() ?? 0
        var draws: [DrawTable] = []
        for k in 1...max(1, maxWords) {
            var indices: [Int32] = []
            var cumulative: [Double] = []
            var total = 0.0
            for (index, phrase) in phrases.enumerated() where phrase.wordCount >= k {
                total += weights[index]
                indices.append(Int32(index))
                cumulative.append(total)
            }
            draws.append(DrawTable(indices: indices, cumulative: cumulative))
        }
        self.draws = draws
    }

    /// A phrase with at least `words` words (or the most there are), by popularity.
    func draw(words: Int, _ rng: inout SeededGenerator) -> Int {
        let table = draws[min(max(words, 1), draws.count) - 1]
        let x = rng.nextUnit() * table.cumulative[table.cumulative.count - 1]
        // The first phrase whose cumulative weight passes x (the last one if none does before
        // it), halving the range with selects rather than branches: each halving is a coin toss,
        // which a branch would mispredict half the time.
        var low = 0, remaining = table.cumulative.count - 1
        table.cumulative.withUnsafeBufferPointer { cumulative in
            while remaining > 0 {
                let half = remaining / 2
                let below = cumulative[low + half] <= x
                low = below ? low + half + 1 : low
                remaining = below ? remaining - half - 1 : half
            }
        }
        return Int(table.indices[low])
    }

    static func prepare(_ text: String, language: TypingLanguage, pinyin: PinyinDictionary, origin: String) throws -> Phrase {
        let bytes = Array(text.utf8)
        guard bytes.count < 4000 else { throw QueryPoolError.invalid("\(origin): phrase longer than 4000 bytes") }
        var wordEnds: [Int] = []
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: " ") { wordEnds.append(index) }
        wordEnds.append(bytes.count)
        for scalar in text.unicodeScalars where scalar.properties.generalCategory == .control {
            throw QueryPoolError.invalid("\(origin): control character U+\(String(scalar.value, radix: 16, uppercase: true))")
        }
        switch language {
        case .en:
            return Phrase(text: text, bytes: bytes, wordEnds: wordEnds, units: [], pinyin: [], language: .en)
        case .ko:
            var scratch: [UInt8] = []
            for scalar in text.unicodeScalars where scalar.value >= 128 && !Hangul.appendKeys(for: scalar.value, to: &scratch) {
                throw QueryPoolError.untypeable("\(origin): '\(scalar)' cannot be typed on a Dubeolsik keyboard (Hangul, ASCII and spaces only)")
            }
            return Phrase(text: text, bytes: bytes, wordEnds: wordEnds, units: [], pinyin: [], language: .ko)
        case .zh:
            return try prepareChinese(text, bytes: bytes, wordEnds: wordEnds, dictionary: pinyin, origin: origin)
        }
    }

    private static func prepareChinese(_ text: String, bytes: [UInt8], wordEnds: [Int], dictionary: PinyinDictionary, origin: String) throws -> Phrase {
        var units: [HanziUnit] = []
        var letters: [UInt8] = []
        var byteOffset = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !units.isEmpty {
                units.append(HanziUnit(byteOffset: UInt16(byteOffset), byteCount: 1, pinyinOffset: 0, pinyinCount: 0, endsSegment: false, isHan: false))
                byteOffset += 1
            }
            var run: [Character] = []
            func flushRun() throws {
                guard !run.isEmpty else { return }
                let syllables: [String]
                switch dictionary.syllables(for: run) {
                case let .success(found): syllables = found
                case let .failure(missing):
                    throw QueryPoolError.untypeable("\(origin): no pinyin for '\(missing.character)' in the pinyin dictionary")
                }
                var remaining = run.count
                var segmentLeft = segmentLength(remaining)
                for (character, syllable) in zip(run, syllables) {
                    let count = character.utf8.count
                    segmentLeft -= 1
                    remaining -= 1
                    units.append(HanziUnit(
                        byteOffset: UInt16(byteOffset), byteCount: UInt8(count),
                        pinyinOffset: UInt16(letters.count), pinyinCount: UInt8(syllable.utf8.count),
                        endsSegment: segmentLeft == 0, isHan: true
                    ))
                    letters += syllable.utf8
                    byteOffset += count
                    if segmentLeft == 0 && remaining > 0 { segmentLeft = segmentLength(remaining) }
                }
                run.removeAll()
            }
            for character in word {
                if character.isASCII {
                    try flushRun()
                    guard character.isNumber || character.isPunctuation || character.isSymbol else {
                        throw QueryPoolError.untypeable("\(origin): Latin letter '\(character)' in a Chinese phrase (a pinyin IME would take it as pinyin)")
                    }
                    units.append(HanziUnit(byteOffset: UInt16(byteOffset), byteCount: 1, pinyinOffset: 0, pinyinCount: 0, endsSegment: false, isHan: false))
                    byteOffset += 1
                } else {
                    run.append(character)
                }
            }
            try flushRun()
        }
        return Phrase(text: text, bytes: bytes, wordEnds: wordEnds, units: units, pinyin: letters, language: .zh)
    }

    /// Characters per candidate pick: a run of up to four is one pick; longer runs are cut
    /// into picks of three and two (docs/typing.md: a pick every 2–4 characters).
    private static func segmentLength(_ remaining: Int) -> Int {
        remaining <= 4 ? remaining : (remaining == 5 ? 3 : (remaining >= 6 ? 3 : 2))
    }
}
