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
