import Testing
@testable import SearchField

@Suite("The query normalizer's fast paths", .timeLimit(.minutes(5)))
struct QueryNormalizerTests {
    /// The White_Space check agrees with the standard library's Unicode tables on every scalar.
    @Test func whiteSpaceIsUnicodesOnEveryScalar() {
        var disagreements: [UInt32] = []
        var spaces = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if scalar.properties.isWhitespace { spaces += 1 }
            if QueryNormalizer.isWhiteSpace(value) != scalar.properties.isWhitespace { disagreements.append(value) }
        }
        #expect(disagreements.isEmpty, "disagree at \(disagreements.prefix(10).map { String($0, radix: 16) })")
        #expect(spaces == 25)
    }

    /// Every scalar counted as a character of its own is one next to each kind of such scalar,
    /// on either side and next to itself: two scalars, two characters.
    @Test func ownCharactersStandAloneBesideEachOther() {
        let neighbours: [Unicode.Scalar] = [" ", "a", "~", "ㄱ", "ㅏ", "가", "각", "힣", "中", "㐀", "鿿"]
        var joined: [String] = []
        for value in UInt32(0)...0xFFFF where QueryNormalizer.isOwnCharacter(value) {
            let scalar = Unicode.Scalar(value)!
            for neighbour in neighbours {
                for pair in [[scalar, neighbour], [neighbour, scalar], [scalar, scalar]] {
                    var view = String.UnicodeScalarView()
                    view.append(contentsOf: pair)
                    if String(view).count != 2 { joined.append(String(view)) }
                }
            }
        }
        #expect(joined.isEmpty, "joined: \(joined.prefix(10))")
    }

    /// Counting up to a minimum length agrees with counting every character, on texts of own
    /// characters, of characters that join (combining marks, conjoining jamo, emoji sequences,
    /// CR LF) and of both.
    @Test func countingUpToAMinimumAgreesWithCountingAll() {
        let parts = ["a", "ab", " ", "한", "한글", "ㅎ", "ㅎㅏ", "中", "中文", "e\u{301}", "\u{1100}\u{1161}", "가\u{11A8}",
                     "🙂", "👩‍👩‍👧", "🇰🇷", "\r\n", "\u{300}", "x\u{200D}", "\u{0E33}"]
        for first in parts {
            for second in parts {
                for third in ["", "a", "\u{301}", "글"] {
                    let text = first + second + third
                    for count in 0...6 {
                        #expect(QueryNormalizer.hasCharacters(text, atLeast: count) == (text.count >= count),
                                "\(text.debugDescription) has at least \(count)")
                    }
                }
            }
        }
    }

    /// Texts with every kind of end (ASCII and other White_Space, Hangul, CJK, emoji, combining
    /// marks, control characters): trimming and the identity's one-read path give what the
    /// plain definitions give (trim White_Space scalars at both ends, then count characters).
    @Test func fastPathsAgreeWithThePlainDefinitions() {
        let ends = ["", " ", "\t", "\r\n", "\u{01}", "\u{A0}", "\u{85}", "\u{3000}", "\u{2009}", "\u{200B}", "\u{1680}",
                    "a", "é", "e\u{301}", "한", "ㅎ", "中", "🙂", "👩‍👩‍👧", "\u{FEFF}"]
        let middles = ["", "a", "ab", "red shoes", "한글", "中文字", "🙂🙂", "x y", "\r"]
        func plainTrim(_ text: String) -> String {
            let scalars = Array(text.unicodeScalars)
            guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[start...end])
            return String(view)
        }
        for minimumLength in 0...4 {
            let normalizer = QueryNormalizer(trims: true, minimumLength: minimumLength)
            for left in ends {
                for middle in middles {
                    for right in ends {
                        let text = left + middle + right
                        let trimmed = plainTrim(text)
                        #expect(QueryNormalizer.trimmed(text) == trimmed, "trimming \(text.debugDescription)")
                        let expected = trimmed.count >= minimumLength ? QueryIdentity(text: trimmed, scope: nil) : nil
                        #expect(normalizer.identity(text: text, scope: nil, tokens: []) == expected,
                                "identity of \(text.debugDescription) at minimum length \(minimumLength)")
                        #expect(normalizer.isSearchable(trimmed) == (trimmed.count >= minimumLength))
                    }
                }
            }
        }
    }
}
