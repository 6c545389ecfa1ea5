import Foundation

// Keystroke traces as JSON Lines: one object per line, one event per object.
//
// The format (version 1), which `typestorm typists sample --trace-out` writes and the replay
// command reads:
//
// ```
// {"session":0,"typist":3,"seed":1,"device":"mobile","language":"ko","wpm":31.4}
// {"t_ms":1204.113,"key":"ㅎ","text":"ㅎ"}
// {"t_ms":1391.5,"scope":"brands"}
// {"t_ms":1391.5,"scope":null}
// {"t_ms":2210,"tokens":["in-stock"]}
// {"t_ms":3012.25,"submit":true}
// {"t_ms":5400,"end":true}
// ```
//
// - `t_ms`: milliseconds from the start of the session (decimals allowed, non-decreasing
//   within a session).
// - An event has exactly one of `key` (with `text`, the field's whole text after the key),
//   `scope` (a string, or `null` for all scopes), `tokens` (array of strings), `submit: true`,
//   `end: true`. Key names: the character typed, or `⌫` backspace, `⎋` clear, `⌘V` paste,
//   `⇥` accepted suggestion or prediction, `␣` pinyin pick with space, `한/영` toggle.
// - A line with `session` (and no `t_ms`) starts a new session; its other keys (`typist`,
//   `seed`, `device`, `language`, `wpm`) are optional metadata. Lines before any header form
//   session 0. Blank lines are skipped; unknown keys are ignored, so later versions may add
//   fields.

/// Metadata at the start of a session in a trace.
public struct TraceHeader: Sendable, Hashable, Codable {
    /// The session's number within the trace.
    public var session: Int
    /// The population index of the typist who typed it; `nil` when unknown.
    public var typist: Int?
    /// The population seed the session was generated with; `nil` when not generated.
    public var seed: UInt64?
    /// `desktop` or `mobile`; `nil` when unknown.
    public var device: String?
    /// The typing language (`en`, `ko`, `zh`, ...); `nil` when unknown.
    public var language: String?
    /// The typist's copy-typing speed in words per minute; `nil` when unknown.
    public var wpm: Double?

    /// A header for session `session`; every other field is optional metadata.
    public init(session: Int, typist: Int? = nil, seed: UInt64? = nil, device: String? = nil, language: String? = nil, wpm: Double? = nil) {
        self.session = session
        self.typist = typist
        self.seed = seed
        self.device = device
        self.language = language
        self.wpm = wpm
    }

    /// A header describing a generated typist.
    public init(session: Int, seed: UInt64, profile: TypistProfile) {
        self.init(session: session, typist: profile.index, seed: seed, device: profile.device.rawValue,
                  language: profile.language.rawValue, wpm: (profile.wpm * 10).rounded() / 10)
    }
}

/// What is wrong with a trace, and where.
public struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The trace file's path.
    public var file: String
    /// 1-based line, or 0 when the file as a whole is the problem.
    public var line: Int
    /// What is wrong, in words.
    public var reason: String

    public var description: String {
        line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)"
    }
}
