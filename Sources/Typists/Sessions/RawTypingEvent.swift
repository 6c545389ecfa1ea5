/// An event as the generator produces it, before any String is made.
///
/// `GeneratedSession.nextRaw()` and `withFieldUTF8(_:)` give the stream without allocating per
/// keystroke, for a caller that works on UTF-8 bytes (today the typist benchmark and the
/// determinism tests; every runner uses `next()`, which wraps the same stream into
/// `TypingEvent`s).
public struct RawTypingEvent: Sendable, Hashable {
    /// What the event does: an edit (a key), a scope change, a token change, a submit, or the end of
    /// the session.
    public enum Kind: UInt8, Sendable {
        case edit, scope, tokens, submit, end
    }

    /// Intended time in nanoseconds from the start of the typist's session.
    public var at: Int64
    /// What kind of event this is; ``key`` says which.
    public var kind: Kind
    /// For edits, the key (`TypingKey`); for scope and token changes, an index into the
    /// session's pending changes.
    public var key: UInt32
    @usableFromInline var textStart: Int32
    @usableFromInline var textCount: Int32
}

/// Key codes of edits: a Unicode scalar value for a character key, or one of the named keys.
public enum TypingKey {
    /// Backspace (`⌫` in ``TypingEvent`` and traces).
    public static let backspace: UInt32 = 0x11_0000
    /// Clearing the field (`⎋`).
    public static let clear: UInt32 = 0x11_0001
    /// A paste of the whole query (`⌘V`).
    public static let paste: UInt32 = 0x11_0002
    /// Accepting a suggestion or a word prediction.
    public static let acceptSuggestion: UInt32 = 0x11_0003
    /// A pinyin candidate pick with the space bar.
    public static let pickWithSpace: UInt32 = 0x11_0004
    /// The Korean 한/영 (Hangul/Latin) key.
    public static let toggleHangul: UInt32 = 0x11_0005

    /// The key as `TypingEvent.Action.edit(key:)` names it: the character, or `⌫`, `⎋`, `⌘V`,
    /// `⇥`, `␣`, `한/영`. Every name is a small string, so no allocation.
    public static func name(_ code: UInt32) -> String {
        name(code, names: names)
    }

    /// ``name(_:)`` with the table of names passed in: a session reads it from its population's
    /// settings, which spares the check that the global table is made on every key.
    @inline(__always)
    static func name(_ code: UInt32, names: [String]) -> String {
        switch code {
        case backspace: return "⌫"
        case clear: return "⎋"
        case paste: return "⌘V"
        case acceptSuggestion: return "⇥"
        case pickWithSpace: return "␣"
        case toggleHangul: return "한/영"
        default:
            if code < 0x3200 { return names[Int(code)] }
            guard let scalar = Unicode.Scalar(code) else { return "?" }
            return String(Character(scalar))
        }
    }

    /// Codes below this have their name in `names`.
    @inlinable
    static var namedBelow: UInt32 { 0x3200 }

    /// Names of the scalars below U+3200 (ASCII and the compatibility jamo are what typists
    /// press), made once: every one is a small string, so copying them costs nothing.
    static let names: [String] = (0..<0x3200).map { code in
        Unicode.Scalar(UInt32(code)).map { String(Character($0)) } ?? "?"
    }
}
