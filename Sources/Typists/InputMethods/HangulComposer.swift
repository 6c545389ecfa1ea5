/// The syllable being composed by a Dubeolsik input method, libhangul-style.
///
/// The state is the stack of jamo keys typed into the current syllable (at most five: lead,
/// two vowel keys, two final keys), so backspace removes exactly one jamo, undoing a compound
/// vowel or a cluster final one key at a time.
struct HangulComposer: Hashable {
    /// Stack entries packed one byte each, oldest in the low byte.
    private(set) var packed: UInt64 = 0
    private(set) var count: Int = 0
    /// The stack's shape, kept as keys are pushed and popped: it is always an optional lead
    /// consonant, then vowel keys, then final consonant keys.
    private var hasLead = false
    private var vowelKeys = 0
    private var finalKeys = 0

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func at(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: packed >> (8 * UInt64(i))) }

    @inline(__always)
    private mutating func push(_ jamo: UInt8) {
        if Hangul.isVowel(jamo) {
            vowelKeys += 1
        } else if count == 0 {
            hasLead = true
        } else {
            finalKeys += 1
        }
        packed |= UInt64(jamo) << (8 * UInt64(count))
        count += 1
    }

    @inline(__always)
    private mutating func pop() -> UInt8 {
        if finalKeys > 0 {
            finalKeys -= 1
        } else if vowelKeys > 0 {
            vowelKeys -= 1
        } else {
            hasLead = false
        }
        count -= 1
        let value = at(count)
        packed &= ~(UInt64(0xFF) << (8 * UInt64(count)))
        return value
    }

    /// A value that identifies the preedit exactly, for comparing states.
    var signature: UInt64 { packed | UInt64(truncatingIfNeeded: count) << 56 }

    /// Lead (or 0xFF), number of vowel keys, number of final keys.
    @inline(__always)
    private var shape: (lead: UInt8, vowels: Int, finals: Int) {
        (hasLead ? at(0) : 0xFF, vowelKeys, finalKeys)
    }

    /// Type one jamo; syllables that are finished are appended to `committed` as UTF-8.
    /// Returns whether the text before the key (committed text and preedit) is still there
    /// unchanged, with the new preedit after it; otherwise the preedit changed.
    @discardableResult
    mutating func input(_ jamo: UInt8, committed: inout RawBuffer<UInt8>) -> Bool {
        let vowel = Hangul.isVowel(jamo)
        let (lead, vowels, finals) = shape
        let hasLead = lead != 0xFF
        switch (count, vowels, finals) {
        case (0, _, _):
            push(jamo)
            return true
        case (_, 0, _):
            if vowel {
                push(jamo)
                return false
            }
        case (_, _, 0):
            if vowel {
                if vowels == 1, Hangul.combine(at(count - 1), jamo) != nil {
                    push(jamo)
                    return false
                }
            } else if hasLead && Hangul.tailIndex[Int(jamo)] > 0 {
                push(jamo)
                return false
            }
        default:
            if vowel {
                let moved = pop()
                flush(into: &committed)
                push(moved)
                push(jamo)
                return false
            } else if finals == 1, Hangul.combine(at(count - 1), jamo) != nil {
                push(jamo)
                return false
            }
        }
        flush(into: &committed)
        push(jamo)
        return true
    }

    /// Remove the last jamo typed; `false` if there was none.
    mutating func backspace() -> Bool {
        guard count > 0 else { return false }
        _ = pop()
        return true
    }

    /// Commit the preedit to `committed`.
    @inline(__always)
    mutating func flush(into committed: inout RawBuffer<UInt8>) {
        guard count > 0 else { return }
        appendPreedit(to: &committed)
        self = HangulComposer()
    }

    /// The preedit as UTF-8: one syllable, or one compatibility jamo when it is alone (three
    /// bytes either way).
    func appendPreedit(to bytes: inout RawBuffer<UInt8>) {
        guard count > 0 else { return }
        let scalar = preeditScalar
        bytes.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12),
                     UInt8(truncatingIfNeeded: 0x80 | (scalar >> 6) & 0x3F),
                     UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
    }

    /// Bytes of the preedit in UTF-8: every syllable and compatibility jamo takes three.
    static let preeditByteCount = 3

    /// The preedit's scalar: a precomposed syllable (U+AC00…U+D7A3) or a compatibility jamo
    /// (U+3131…U+3163); the composer must not be empty.
    @inline(__always)
    var preeditScalar: UInt32 {
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
        if lead != 0xFF && vowel != 0xFF {
            let t = tail == 0xFF ? 0 : Int(Hangul.tailIndex[Int(tail)])
            return Hangul.syllable(lead: Int(Hangul.leadIndex[Int(lead)]), vowel: Int(vowel - Hangul.vowelOffset), tail: t)
        }
        return Hangul.scalar(ofJamo: lead != 0xFF ? lead : vowel)
    }
}
