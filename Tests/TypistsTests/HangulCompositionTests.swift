import Testing
@testable import Typists

/// Types Dubeolsik keys (given as the jamo on them, `⌫` for backspace) into a field editor and
/// returns the field's text after each key.
func typeHangul(_ keys: String) -> [String] {
    var editor = FieldEditor(pinyinInField: true)
    defer { editor.freeBuffers() }
    var texts: [String] = []
    let empty: [UInt8] = []
    for key in keys.unicodeScalars {
        if key == "⌫" {
            _ = editor.backspace()
        } else if key.value < 128 {
            _ = empty.withUnsafeBufferPointer { editor.apply(.character(key.value, wordStart: false), target: $0) }
        } else {
            let jamo = UInt8(key.value - Hangul.compatibilityBase)
            _ = empty.withUnsafeBufferPointer { editor.apply(.jamo(jamo, wordStart: false), target: $0) }
        }
        texts.append(String(decoding: editor.renderedText, as: UTF8.self))
    }
    return texts
}

@Suite("Hangul composition (Dubeolsik, Unicode §3.12)", .timeLimit(.minutes(5)))
struct HangulCompositionTests {
    @Test("the written-out lead and tail index tables invert the lists of leads and tails")
    func indexTables() {
        for jamo in 0..<51 {
            #expect(Int(Hangul.leadIndex[jamo]) == Hangul.leads.firstIndex(of: UInt8(jamo)) ?? -1, "lead \(jamo)")
            let tail = Hangul.tails.indices.dropFirst().first { Hangul.tails[$0] == UInt8(jamo) }
            #expect(Int(Hangul.tailIndex[jamo]) == tail ?? -1, "tail \(jamo)")
        }
    }

    @Test("the written-out compounds are the table of combinations")
    func combinations() {
        for first in 0..<51 {
            for second in 0..<51 {
                let compound = Hangul.combinations[first * 51 + second]
                #expect(Hangul.combine(UInt8(first), UInt8(second)) == (compound == 0xFF ? nil : compound), "\(first) \(second)")
            }
        }
    }

    @Test("한글: g k s r m f shows ㅎ 하 한 한ㄱ 한그 한글")
    func hangeul() {
        #expect(typeHangul("ㅎㅏㄴㄱㅡㄹ") == ["ㅎ", "하", "한", "한ㄱ", "한그", "한글"])
    }

    @Test("닭가: a cluster final stays, and splits when a vowel follows")
    func dalkGa() {
        #expect(typeHangul("ㄷㅏㄹㄱㄱㅏ") == ["ㄷ", "다", "달", "닭", "닭ㄱ", "닭가"])
        #expect(typeHangul("ㄷㅏㄹㄱㅏ") == ["ㄷ", "다", "달", "닭", "달가"])
    }

    @Test("괜찮아: compound vowel ㅙ, cluster final ㄶ, then ㅇ starts a new syllable")
    func gwaenchanha() {
        #expect(typeHangul("ㄱㅗㅐㄴㅊㅏㄴㅎㅇㅏ") == ["ㄱ", "고", "괘", "괜", "괜ㅊ", "괜차", "괜찬", "괜찮", "괜찮ㅇ", "괜찮아"])
    }

    @Test("backspace inside a syllable removes one jamo at a time")
    func backspaceInsideSyllable() {
        #expect(typeHangul("ㄱㅗㅐㄴ⌫⌫⌫⌫") == ["ㄱ", "고", "괘", "괜", "괘", "고", "ㄱ", ""])
        #expect(typeHangul("ㄷㅏㄹㄱ⌫") == ["ㄷ", "다", "달", "닭", "달"])
        // After a final moved on, backspace works on the new syllable only.
        #expect(typeHangul("ㅎㅏㄴㅏ⌫⌫⌫").suffix(3) == ["하ㄴ", "하", ""])
    }

    @Test("lone jamo are compatibility jamo; tense consonants come from one shifted key")
    func loneJamoAndTense() {
        #expect(typeHangul("ㅋㅋ") == ["ㅋ", "ㅋㅋ"])
        #expect(typeHangul("ㅏ") == ["ㅏ"])
        #expect(typeHangul("ㅆㅏㄸ") == ["ㅆ", "싸", "싸ㄸ"])
        #expect(typeHangul("ㅇㅣㅆㅇㅓ") == ["ㅇ", "이", "있", "있ㅇ", "있어"])
    }

    @Test("space and digits commit the syllable being composed")
    func spaceCommits() {
        #expect(typeHangul("ㅎㅏㄴ 1") == ["ㅎ", "하", "한", "한 ", "한 1"])
    }

    @Test("every syllable's key plan types it back", arguments: ["한글", "닭가", "괜찮아", "뷁", "왠지", "읽어요", "없다", "값어치", "의자"])
    func plansRoundTrip(_ word: String) {
        var keys: [UInt8] = []
        for scalar in word.unicodeScalars { _ = Hangul.appendKeys(for: scalar.value, to: &keys) }
        let typed = keys.map { String(Character(Unicode.Scalar(Hangul.scalar(ofJamo: $0))!)) }.joined()
        #expect(typeHangul(typed).last == word)
    }
}
