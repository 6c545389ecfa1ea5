/// One key a typist means to press, in the form the field editor applies.
///
/// Plans are built per query into a reused buffer, so a key is a small trivial value.
struct PlanKey: Hashable {
    enum Kind: UInt8 {
        /// A character typed as itself (Latin letters, digits, space, punctuation); it commits
        /// any preedit first.
        case character
        /// A Dubeolsik jamo (compatibility offset in `value`).
        case jamo
        /// A pinyin letter (ASCII in `value`).
        case pinyinLetter
        /// A pinyin candidate pick: commits bytes `value >> 12 ..< +(value & 0xFFF)` of the target.
        case pick
        /// The 한/영 key: switches between Hangul and Latin; commits the preedit.
        case toggle
    }

    var kind: Kind
    /// Physical key (`KeyboardLayout`), for key-pair timing and neighbour slips.
    var physical: UInt8
    var flags: UInt8
    var value: UInt32

    static let wordStart: UInt8 = 1
    /// The pinyin letter ends a syllable (an apostrophe follows it in the preedit).
    static let syllableEnd: UInt8 = 2

    /// Which hand types the key (key-pair timing): both bits clear for keys off the layout.
    static let leftHand: UInt8 = 4
    static let rightHand: UInt8 = 8
    static let handMask: UInt8 = 12

    var isWordStart: Bool { flags & Self.wordStart != 0 }

    static func handFlags(_ physical: UInt8) -> UInt8 {
        switch KeyboardLayout.hand(physical) {
        case .left: return leftHand
        case .right: return rightHand
        case .neutral: return 0
        }
    }

    init(kind: Kind, physical: UInt8, flags: UInt8, value: UInt32) {
        self.kind = kind
        self.physical = physical
        self.flags = (flags & ~Self.handMask) | Self.handFlags(physical)
        self.value = value
    }

    static func character(_ scalar: UInt32, wordStart: Bool) -> PlanKey {
        let physical = scalar < 128 ? KeyboardLayout.physical(ofASCII: UInt8(scalar)) : KeyboardLayout.none
        return PlanKey(kind: .character, physical: physical, flags: wordStart ? Self.wordStart : 0, value: scalar)
    }

    static func jamo(_ jamo: UInt8, wordStart: Bool) -> PlanKey {
        PlanKey(kind: .jamo, physical: Dubeolsik.physicalOfJamo[Int(jamo)], flags: wordStart ? Self.wordStart : 0, value: UInt32(jamo))
    }

    static func pinyinLetter(_ letter: UInt8, wordStart: Bool, syllableEnd: Bool) -> PlanKey {
        PlanKey(
            kind: .pinyinLetter, physical: KeyboardLayout.physical(ofASCII: letter),
            flags: (wordStart ? Self.wordStart : 0) | (syllableEnd ? Self.syllableEnd : 0), value: UInt32(letter)
        )
    }

    /// The key, its flags as given (no hand looked up).
    private init(kind: Kind, physical: UInt8, handFlags flags: UInt8, value: UInt32) {
        self.kind = kind
        self.physical = physical
        self.flags = flags
        self.value = value
    }

    /// A pick with the space bar, which is off the layout's rows: no hand (its flags are 0),
    /// which is made here without reading the layout's tables.
    static func pick(byteOffset: Int, byteCount: Int) -> PlanKey {
        PlanKey(kind: .pick, physical: KeyboardLayout.space, handFlags: 0, value: UInt32(byteOffset) << 12 | UInt32(byteCount))
    }

    static let toggle = PlanKey(kind: .toggle, physical: KeyboardLayout.none, flags: 0, value: 0)

    /// A neighbouring key pressed instead of this one, or `nil` if this key does not slip
    /// (space, picks, toggles, characters off the layout).
    func slip(choosing index: Int) -> PlanKey? {
        guard KeyboardLayout.isSlippable(physical) else { return nil }
        let options = KeyboardLayout.neighbours[Int(physical)]
        let wrong = options[index % options.count]
        let ascii = KeyboardLayout.characters[Int(wrong)]
        switch kind {
        case .character:
            return PlanKey(kind: .character, physical: wrong, flags: flags, value: UInt32(ascii))
        case .pinyinLetter:
            return PlanKey(kind: .pinyinLetter, physical: wrong, flags: flags, value: UInt32(ascii))
        case .jamo:
            let jamo = Dubeolsik.jamoOfPhysical[Int(wrong)]
            guard jamo != 0xFF else { return nil }
            return PlanKey(kind: .jamo, physical: wrong, flags: flags, value: UInt32(jamo))
        case .pick, .toggle:
            return nil
        }
    }
}
