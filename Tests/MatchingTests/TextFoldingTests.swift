import Testing
@testable import Matching

@Suite("Text folding", .timeLimit(.minutes(5)))
struct TextFoldingTests {
    @Test("ASCII folds to lower case", arguments: [("Coffee GRINDER", "coffee grinder"), ("ABC xyz 123", "abc xyz 123")])
    func ascii(input: String, expected: String) {
        #expect(TextFolding.foldedString(input) == expected)
    }

    /// The byte path for ASCII, Hangul syllables and CJK ideographs gives what utf8proc gives,
    /// for every such character, between ASCII capitals and next to each other.
    @Test func plainTextFoldsAsUTF8ProcFoldsIt() {
        let ranges: [ClosedRange<UInt32>] = [0x4E00...0x9FFF, 0xAC00...0xD7A3, 0x01...0x7F]
        var mismatches: [UInt32] = []
        for range in ranges {
            for value in range {
                let scalar = Unicode.Scalar(value)!
                let text = Array("A\(Character(scalar))Z\(Character(scalar))\u{AC00}".utf8)
                let plain = text.withUnsafeBufferPointer { TextFolding.isPlain($0) }
                var viaBytes: [UInt8] = []
                var viaUTF8Proc: [UInt8] = []
                text.withUnsafeBufferPointer {
                    TextFolding.fold($0, into: &viaBytes)
                    TextFolding.foldUnicode($0, into: &viaUTF8Proc)
                }
                if !plain || viaBytes != viaUTF8Proc { mismatches.append(value) }
            }
        }
        #expect(mismatches.isEmpty)
        // Anything else takes utf8proc: a combining mark, a jamo, full-width letters, cut UTF-8.
        for text in ["e\u{0301}", "\u{AC00}\u{11A8}", "ＡＢＣ", "ß", "\u{3400}"] {
            #expect(!Array(text.utf8).withUnsafeBufferPointer { TextFolding.isPlain($0) })
        }
        #expect(![UInt8]([0x41, 0xEA, 0xB0]).withUnsafeBufferPointer { TextFolding.isPlain($0) })
    }

    @Test func turkishDottedCapitalIFoldsToPlainI() {
        #expect(TextFolding.foldedString("İstanbul") == "istanbul")
        #expect(TextFolding.foldedString("ISTANBUL") == "istanbul")
    }

    @Test func fullWidthFormsFoldToASCII() {
        #expect(TextFolding.foldedString("ＡＢＣ１２３") == "abc123")
    }

    @Test func hangulNFDAndNFCFoldTheSame() {
        let nfc = "한국어"
        let nfd = "\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}\u{110B}\u{1165}"
        #expect(Array(nfc.utf8) != Array(nfd.utf8))
        #expect(TextFolding.fold(nfc) == TextFolding.fold(nfd))
    }

    @Test func sharpSFoldsToSS() {
        #expect(TextFolding.foldedString("Straße") == "strasse")
    }

    @Test func decomposedAccentComposes() {
        #expect(TextFolding.fold("Cafe\u{301}") == TextFolding.fold("CAFÉ"))
    }

    @Test func nulIsDropped() {
        #expect(TextFolding.fold("a\u{0}b") == Array("ab".utf8))
    }

    /// U+0000 goes before normalizing, so the letter and the mark around it compose at once,
    /// as a second fold would compose them.
    @Test func nulBetweenALetterAndAMarkIsDroppedBeforeComposing() {
        #expect(TextFolding.foldedString("l\u{0}\u{301}") == "\u{13A}")
        #expect(TextFolding.foldedString("L\u{0}\u{0}\u{301}x") == "\u{13A}x")
    }

    /// The U+0307 after `i` is dropped, and what it separated composes: `İ` + U+0301 folds as
    /// `í` does.
    @Test func dotAboveBetweenIAndAMarkIsDroppedAndTheRestComposes() {
        #expect(TextFolding.foldedString("i\u{307}\u{301}") == "\u{ED}")
        #expect(TextFolding.foldedString("\u{130}\u{301}") == "\u{ED}")
        #expect(TextFolding.foldedString("I\u{307}\u{307}\u{301}") == "\u{ED}")
        #expect(TextFolding.fold("\u{130}\u{301}stanbul") == TextFolding.fold("ístanbul"))
    }

    @Test("Folding a folded text changes nothing", arguments: [
        "l\u{0}\u{301}", "i\u{307}\u{301}", "\u{130}\u{301}", "\u{130}\u{323}\u{301}", "a\u{0}\u{308}\u{0}\u{301}",
        "\u{1100}\u{0}\u{1161}", "\u{FB01}\u{307}\u{301}", "Straße", "ＡＢＣ", "한국어", "İstanbul", "e\u{0}\u{301}\u{0}\u{327}",
    ].map(EscapedText.init))
    func foldingIsIdempotent(sample: EscapedText) {
        let once = TextFolding.fold(sample.text)
        var twice: [UInt8] = []
        once.withUnsafeBufferPointer { TextFolding.fold($0, into: &twice) }
        #expect(twice == once)
    }

    @Test func queriesAreTrimmed() {
        #expect(TextFolding.foldQuery("  Mug \t") == Array("mug".utf8))
        #expect(TextFolding.foldQuery("\u{3000}커피\u{3000}") == Array("커피".utf8))
        #expect(TextFolding.foldQuery(" \t\n ").isEmpty)
        #expect(TextFolding.foldQuery("a b") == Array("a b".utf8))
    }
}

/// A test argument shown with its control characters and marks escaped, so that U+0000 and a
/// lone combining mark do not garble the test log.
struct EscapedText: CustomTestStringConvertible, Sendable {
    let text: String
    var testDescription: String { text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() }
}
