/// One thing a typist does to the search field, at the time the typist intends to do it.
///
/// A typist's session is a sequence of these in non-decreasing `at`. Runners (virtual, live
/// in-process, live HTTP) consume them through `TypistSession`, so every runner sees the same
/// keystrokes for the same (scenario seed, typist index).
public struct TypingEvent: Sendable, Hashable, Codable {
    /// Intended time in nanoseconds from the start of the typist's session.
    public var at: Int64
    /// What the typist did at ``at``.
    public var action: Action

    /// An event doing `action` at `at` nanoseconds from the session's start.
    public init(at: Int64, action: Action) {
        self.at = at
        self.action = action
    }

    /// What a typist can do to the search field: change its text with a key, change the scope or
    /// tokens, submit, or leave.
    public enum Action: Sendable, Hashable, Codable {
        /// A key changed the field: `key` names what was pressed (`"a"`, `"ㅎ"`, `"⌫"` for
        /// backspace, `"⌘V"` for a paste, `"⎋"` for clearing the field, `"⇥"` for accepting a
        /// suggestion or word prediction, a pinyin candidate pick `"␣"`, `"1"` or `"2"`, the
        /// Korean `"한/영"` toggle; see `TypingKey`), and
        /// `text` is the field's whole text after it, IME composition included: exactly what a
        /// search field's text binding sees (`text.string` as a String).
        case edit(key: String, text: FieldText)
        /// The search scope changed (`nil`: all scopes).
        case scope(String?)
        /// The active search tokens changed to this set.
        case tokens([String])
        /// The typist submitted the query (Return).
        case submit
        /// The typist left the field; the session ends here.
        case end

        /// An edit whose field text is given as a String (copied once into a ``FieldText``):
        /// for writing traces and tests by hand.
        public static func edit(key: String, text: String) -> Action {
            .edit(key: key, text: FieldText(text))
        }
    }
}

/// A source of one typist's events, in time order.
///
/// Generated typists and recorded traces both conform, so runners take either unchanged.
public protocol TypistSession {
    /// The next event, or `nil` when the session is over.
    mutating func next() -> TypingEvent?
}
