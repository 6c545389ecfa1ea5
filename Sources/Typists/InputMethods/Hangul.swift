/// Hangul jamo and syllable arithmetic (Unicode Standard §3.12).
///
/// A jamo is carried as its offset from U+3131 in the Hangul Compatibility Jamo block: 0–29 are
/// consonants (ㄱ … ㅎ, clusters included), 30–50 are vowels (ㅏ … ㅣ, in the same order as the
/// 21 medial vowels of the syllable formula). Compatibility jamo are what a field shows for a
/// lone jamo.
enum Hangul {
    static let compatibilityBase: UInt32 = 0x3131
    static let syllableBase: UInt32 = 0xAC00
    static let syllableCount: UInt32 = 11172
    static let vowelOffset: UInt8 = 30

    /// The 19 leading consonants, as compatibility offsets.
    static let leads: [UInt8] = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ".unicodeScalars.map { UInt8($0.value - compatibilityBase) }
    /// The 27 trailing consonants (index 1…27; 0 means none), as compatibility offsets.
    static let tails: [UInt8] = [0xFF] + "ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ".unicodeScalars.map { UInt8($0.value - compatibilityBase) }

    /// Lead index (0…18) of each compatibility offset, or −1 (`leads` inverted; written out so
    /// that the table is static data, read with no check that it was made).
    static let leadIndex: [Int8] = [
        0, 1, -1, 2, -1, -1, 3, 4, 5, -1, -1, -1, -1, -1, -1, -1, 6, 7, 8, -1, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    ]

    /// Tail index (1…27) of each compatibility offset, or −1 (`tails` inverted, written out).
    static let tailIndex: [Int8] = [
        1, 2, 3, 4, 5, 6, 7, -1, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, -1, 18, 19, 20, 21, 22, -1, 23, 24, 25, 26, 27,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    ]

    /// The compound made by two keys, indexed `first × 51 + second` (0xFF: they do not combine).
    static let combinations: [UInt8] = {
        let triples = ["ㅗㅏㅘ", "ㅗㅐㅙ", "ㅗㅣㅚ", "ㅜㅓㅝ", "ㅜㅔㅞ", "ㅜㅣㅟ", "ㅡㅣㅢ",
                       "ㄱㅅㄳ", "ㄴㅈㄵ", "ㄴㅎㄶ", "ㄹㄱㄺ", "ㄹㅁㄻ", "ㄹㅂㄼ", "ㄹㅅㄽ", "ㄹㅌㄾ",
                       "ㄹㅍㄿ", "ㄹㅎㅀ", "ㅂㅅㅄ"]
        var table = [UInt8](repeating: 0xFF, count: 51 * 51)
        for triple in triples {
            let j = triple.unicodeScalars.map { UInt8($0.value - compatibilityBase) }
            table[Int(j[0]) * 51 + Int(j[1])] = j[2]
        }
        return table
    }()

    /// The two keys that type a compound jamo (ㅘ → ㅗ ㅏ, ㄺ → ㄹ ㄱ), packed `first << 8 | second`,
    /// or 0 for a jamo that is one key.
    static let decompositions: [UInt16] = {
        var table = [UInt16](repeating: 0, count: 51)
        for (index, compound) in combinations.enumerated() where compound != 0xFF {
            table[Int(compound)] = UInt16(index / 51) << 8 | UInt16(index % 51)
        }
        return table
    }()

    @inline(__always)
    static func isVowel(_ jamo: UInt8) -> Bool { jamo >= vowelOffset }

    /// The compound made by two keys, or `nil` (`combinations`, written out as a switch: the
    /// composer asks on most keys, and reading the table would check each time that it is made).
    @inline(__always)
    static func combine(_ first: UInt8, _ second: UInt8) -> UInt8? {
        switch (first, second) {
        case (38, 30): return 39  // ㅗ ㅏ → ㅘ
        case (38, 31): return 40  // ㅗ ㅐ → ㅙ
        case (38, 50): return 41  // ㅗ ㅣ → ㅚ
        case (43, 34): return 44  // ㅜ ㅓ → ㅝ
        case (43, 35): return 45  // ㅜ ㅔ → ㅞ
        case (43, 50): return 46  // ㅜ ㅣ → ㅟ
        case (48, 50): return 49  // ㅡ ㅣ → ㅢ
        case (0, 20): return 2    // ㄱ ㅅ → ㄳ
        case (3, 23): return 4    // ㄴ ㅈ → ㄵ
        case (3, 29): return 5    // ㄴ ㅎ → ㄶ
        case (8, 0): return 9     // ㄹ ㄱ → ㄺ
        case (8, 16): return 10   // ㄹ ㅁ → ㄻ
        case (8, 17): return 11   // ㄹ ㅂ → ㄼ
        case (8, 20): return 12   // ㄹ ㅅ → ㄽ
        case (8, 27): return 13   // ㄹ ㅌ → ㄾ
        case (8, 28): return 14   // ㄹ ㅍ → ㄿ
        case (8, 29): return 15   // ㄹ ㅎ → ㅀ
        case (17, 20): return 19  // ㅂ ㅅ → ㅄ
        default: return nil
        }
    }

    static func scalar(ofJamo jamo: UInt8) -> UInt32 { compatibilityBase + UInt32(jamo) }

    /// The precomposed syllable S = 0xAC00 + (L × 21 + V) × 28 + T.
    static func syllable(lead: Int, vowel: Int, tail: Int) -> UInt32 {
        syllableBase + UInt32((lead * 21 + vowel) * 28 + tail)
    }

    /// Keys (compatibility offsets) that type `scalar` on Dubeolsik, or `nil` if it is not
    /// Hangul. Appends one to five keys.
    static func appendKeys(for scalar: UInt32, to keys: inout [UInt8]) -> Bool {
        if scalar >= syllableBase && scalar < syllableBase + syllableCount {
            let s = Int(scalar - syllableBase)
            let lead = s / (21 * 28), vowel = (s / 28) % 21, tail = s % 28
            keys.append(leads[lead])
            appendSplit(vowelOffset + UInt8(vowel), to: &keys)
            if tail > 0 { appendSplit(tails[tail], to: &keys) }
            return true
        }
        if scalar >= compatibilityBase && scalar <= 0x3163 {
            appendSplit(UInt8(scalar - compatibilityBase), to: &keys)
            return true
        }
        return false
    }

    private static func appendSplit(_ jamo: UInt8, to keys: inout [UInt8]) {
        let pair = decompositions[Int(jamo)]
        if pair != 0 {
            keys.append(UInt8(pair >> 8))
            keys.append(UInt8(pair & 0xFF))
        } else {
            keys.append(jamo)
        }
    }
}
