/// The kind of keyboard a typist uses; it decides speed, error rates and timing effects.
public enum DeviceClass: String, Sendable, Hashable, Codable, CaseIterable {
    /// A physical keyboard: faster, key-pair effects and rollover.
    case desktop
    /// A touch keyboard: slower, more errors, word predictions, no rollover.
    case mobile
}

/// The language a typist searches in, which decides the input method.
public enum TypingLanguage: String, Sendable, Hashable, Codable, CaseIterable {
    /// English on a QWERTY layout: every key adds or removes one character.
    case en
    /// Korean on the Dubeolsik (2-set) layout, with syllable composition in the field.
    case ko
    /// Chinese through a pinyin input method: Latin pinyin, then a candidate pick.
    case zh
}
