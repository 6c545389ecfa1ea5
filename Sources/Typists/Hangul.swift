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

    /// Lead index (0…18) of each compatibility offset, or −1.
    static let leadIndex: [Int8] = {
        var table = [Int8](repeating: -1, count: 51)
        for (index, jamo) in leads.enumerated() { table[Int(jamo)] = Int8(index) }
        return table
    }()

    /// Tail index (1…27) of each compatibility offset, or −1.
    static let tailIndex: [Int8] = {
        var table = [Int8](repeating: -1, count: 51)
        for (index, jamo) in tails.enumerated() where index > 0 { table[Int(jamo)] = Int8(index) }
        return table
    }()

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

    @inline(__always)
    static func combine(_ first: UInt8, _ second: UInt8) -> UInt8? {
        guard first < 51 && second < 51 else { return nil }
        let compound = combinations[Int(first) * 51 + Int(second)]
        return compound == 0xFF ? nil : compound
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

/// The Dubeolsik (2-set) layout: which physical key types which jamo.
enum Dubeolsik {
    /// Jamo on each unshifted letter key, and the five consonants and two vowels that Shift gives.
    static let plain: [(Character, Character)] = [
        ("q", "ㅂ"), ("w", "ㅈ"), ("e", "ㄷ"), ("r", "ㄱ"), ("t", "ㅅ"), ("y", "ㅛ"), ("u", "ㅕ"),
        ("i", "ㅑ"), ("o", "ㅐ"), ("p", "ㅔ"), ("a", "ㅁ"), ("s", "ㄴ"), ("d", "ㅇ"), ("f", "ㄹ"),
        ("g", "ㅎ"), ("h", "ㅗ"), ("j", "ㅓ"), ("k", "ㅏ"), ("l", "ㅣ"), ("z", "ㅋ"), ("x", "ㅌ"),
        ("c", "ㅊ"), ("v", "ㅍ"), ("b", "ㅠ"), ("n", "ㅜ"), ("m", "ㅡ"),
    ]
    static let shifted: [(Character, Character)] = [
        ("q", "ㅃ"), ("w", "ㅉ"), ("e", "ㄸ"), ("r", "ㄲ"), ("t", "ㅆ"), ("o", "ㅒ"), ("p", "ㅖ"),
    ]

    /// Physical key of each jamo offset (or `KeyboardLayout.none` for clusters and compounds,
    /// which are never a single key).
    static let physicalOfJamo: [UInt8] = {
        var table = [UInt8](repeating: KeyboardLayout.none, count: 51)
        for (key, jamo) in plain + shifted {
            let offset = Int(jamo.unicodeScalars.first!.value - Hangul.compatibilityBase)
            table[offset] = KeyboardLayout.physical(ofASCII: key.asciiValue!)
        }
        return table
    }()

    /// The unshifted jamo on each physical key, or 0xFF.
    static let jamoOfPhysical: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: KeyboardLayout.characters.count)
        for (key, jamo) in plain {
            let physical = Int(KeyboardLayout.physical(ofASCII: key.asciiValue!))
            table[physical] = UInt8(jamo.unicodeScalars.first!.value - Hangul.compatibilityBase)
        }
        return table
    }()
}

/// The syllable being composed by a Dubeolsik input method, libhangul-style.
///
/// The state is the stack of jamo keys typed into the current syllable (at most five: lead,
/// two vowel keys, two final keys), so backspace removes exactly one jamo, undoing a compound
/// vowel or a cluster final one key at a time.
struct HangulComposer: Hashable {
    /// Stack entries packed one byte each, oldest in the low byte.
    private(set) var packed: UInt64 = 0
    private(set) var count: Int = 0

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func at(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: packed >> (8 * UInt64(i))) }

    @inline(__always)
    private mutating func push(_ jamo: UInt8) {
        packed |= UInt64(jamo) << (8 * UInt64(count))
        count += 1
    }

    @inline(__always)
    private mutating func pop() -> UInt8 {
        count -= 1
        let value = at(count)
        packed &= ~(UInt64(0xFF) << (8 * UInt64(count)))
        return value
    }

    /// A value that identifies the preedit exactly, for comparing states.
    var signature: UInt64 { packed | UInt64(count) << 56 }

    /// Lead (or 0xFF), number of vowel keys, number of final keys.
    private var shape: (lead: UInt8, vowels: Int, finals: Int) {
        guard count > 0 else { return (0xFF, 0, 0) }
        var i = 0
        var lead: UInt8 = 0xFF
        if !Hangul.isVowel(at(0)) {
            lead = at(0)
            i = 1
        }
        var vowels = 0
        while i < count && Hangul.isVowel(at(i)) {
            vowels += 1
            i += 1
        }
        return (lead, vowels, count - i)
    }

    /// Type one jamo; syllables that are finished are appended to `committed` as UTF-8.
    mutating func input(_ jamo: UInt8, committed: inout [UInt8]) {
        let vowel = Hangul.isVowel(jamo)
        let (lead, vowels, finals) = shape
        let hasLead = lead != 0xFF
        switch (count, vowels, finals) {
        case (0, _, _):
            push(jamo)
        case (_, 0, _):
            if vowel {
                push(jamo)
            } else {
                flush(into: &committed)
                push(jamo)
            }
        case (_, _, 0):
            if vowel {
                if vowels == 1, Hangul.combine(at(count - 1), jamo) != nil {
                    push(jamo)
                } else {
                    flush(into: &committed)
                    push(jamo)
                }
            } else if hasLead && Hangul.tailIndex[Int(jamo)] > 0 {
                push(jamo)
            } else {
                flush(into: &committed)
                push(jamo)
            }
        default:
            if vowel {
                let moved = pop()
                flush(into: &committed)
                push(moved)
                push(jamo)
            } else if finals == 1, Hangul.combine(at(count - 1), jamo) != nil {
                push(jamo)
            } else {
                flush(into: &committed)
                push(jamo)
            }
        }
    }

    /// Remove the last jamo typed; `false` if there was none.
    mutating func backspace() -> Bool {
        guard count > 0 else { return false }
        _ = pop()
        return true
    }

    /// Commit the preedit to `committed`.
    mutating func flush(into committed: inout [UInt8]) {
        appendPreedit(to: &committed)
        packed = 0
        count = 0
    }

    /// The preedit as UTF-8: one syllable, or one compatibility jamo when it is alone.
    func appendPreedit(to bytes: inout [UInt8]) {
        guard count > 0 else { return }
        let (lead, vowels, finals) = shape
        var i = lead == 0xFF ? 0 : 1
        var vowel: UInt8 = 0xFF
        if vowels > 0 {
            vowel = at(i)
            if vowels == 2 { vowel = Hangul.combine(vowel, at(i + 1)) ?? vowel }
            i += vowels
        }
        var tail: UInt8 = 0xFF
        if finals > 0 {
            tail = at(i)
            if finals == 2 { tail = Hangul.combine(tail, at(i + 1)) ?? tail }
        }
        let scalar: UInt32
        if lead != 0xFF && vowel != 0xFF {
            let t = tail == 0xFF ? 0 : Int(Hangul.tailIndex[Int(tail)])
            scalar = Hangul.syllable(lead: Int(Hangul.leadIndex[Int(lead)]), vowel: Int(vowel - Hangul.vowelOffset), tail: t)
        } else {
            scalar = Hangul.scalar(ofJamo: lead != 0xFF ? lead : vowel)
        }
        UTF8Bytes.append(scalar, to: &bytes)
    }
}

/// Small UTF-8 helpers on byte arrays, so the field is edited without building Strings.
enum UTF8Bytes {
    @inline(__always)
    static func append(_ scalar: UInt32, to bytes: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            bytes.append(UInt8(scalar))
        case 0x80..<0x800:
            bytes.append(UInt8(0xC0 | scalar >> 6))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            bytes.append(UInt8(0xE0 | scalar >> 12))
            bytes.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        default:
            bytes.append(UInt8(0xF0 | scalar >> 18))
            bytes.append(UInt8(0x80 | (scalar >> 12) & 0x3F))
            bytes.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// The scalar at `offset` of valid UTF-8 and its length in bytes.
    @inline(__always)
    static func decode(_ bytes: [UInt8], at offset: Int) -> (scalar: UInt32, width: Int) {
        let b0 = UInt32(bytes[offset])
        if b0 < 0x80 { return (b0, 1) }
        if b0 < 0xE0 { return ((b0 & 0x1F) << 6 | UInt32(bytes[offset + 1]) & 0x3F, 2) }
        if b0 < 0xF0 {
            return ((b0 & 0x0F) << 12 | (UInt32(bytes[offset + 1]) & 0x3F) << 6 | UInt32(bytes[offset + 2]) & 0x3F, 3)
        }
        return ((b0 & 0x07) << 18 | (UInt32(bytes[offset + 1]) & 0x3F) << 12
                | (UInt32(bytes[offset + 2]) & 0x3F) << 6 | UInt32(bytes[offset + 3]) & 0x3F, 4)
    }

    /// Remove the last scalar; `false` if empty.
    @inline(__always)
    static func removeLastScalar(_ bytes: inout [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return false }
        while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
        return true
    }
}
