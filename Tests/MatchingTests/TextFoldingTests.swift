import Testing
@testable import Matching

@Suite("Text folding")
struct TextFoldingTests {
    @Test("ASCII folds to lower case", arguments: [("Coffee GRINDER", "coffee grinder"), ("ABC xyz 123", "abc xyz 123")])
    func ascii(input: String, expected: String) {
        #expect(TextFolding.foldedString(input) == expected)
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

    @Test func queriesAreTrimmed() {
        #expect(TextFolding.foldQuery("  Mug \t") == Array("mug".utf8))
        #expect(TextFolding.foldQuery("\u{3000}커피\u{3000}") == Array("커피".utf8))
        #expect(TextFolding.foldQuery(" \t\n ").isEmpty)
        #expect(TextFolding.foldQuery("a b") == Array("a b".utf8))
    }
}
