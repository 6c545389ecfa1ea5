import Foundation

/// Keystroke traces as JSON Lines: one object per line, one event per object.
///
/// The format (version 1), which `typestorm typists sample --trace-out` writes and the replay
/// command reads:
///
/// ```
/// {"session":0,"typist":3,"seed":1,"device":"mobile","language":"ko","wpm":31.4}
/// {"t_ms":1204.113,"key":"ㅎ","text":"ㅎ"}
/// {"t_ms":1391.5,"scope":"brands"}
/// {"t_ms":1391.5,"scope":null}
/// {"t_ms":2210,"tokens":["in-stock"]}
/// {"t_ms":3012.25,"submit":true}
/// {"t_ms":5400,"end":true}
/// ```
///
/// - `t_ms`: milliseconds from the start of the session (decimals allowed, non-decreasing
///   within a session).
/// - An event has exactly one of `key` (with `text`, the field's whole text after the key),
///   `scope` (a string, or `null` for all scopes), `tokens` (array of strings), `submit: true`,
///   `end: true`. Key names: the character typed, or `⌫` backspace, `⎋` clear, `⌘V` paste,
///   `⇥` accepted suggestion or prediction, `␣` pinyin pick with space, `한/영` toggle.
/// - A line with `session` (and no `t_ms`) starts a new session; its other keys (`typist`,
///   `seed`, `device`, `language`, `wpm`) are optional metadata. Lines before any header form
///   session 0. Blank lines are skipped; unknown keys are ignored, so later versions may add
///   fields.
public enum TraceFormat {
    public static let version = 1
}

/// Metadata at the start of a session in a trace.
public struct TraceHeader: Sendable, Hashable, Codable {
    public var session: Int
    public var typist: Int?
    public var seed: UInt64?
    public var device: String?
    public var language: String?
    public var wpm: Double?

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
    public var file: String
    /// 1-based line, or 0 when the file as a whole is the problem.
    public var line: Int
    public var reason: String

    public var description: String {
        line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)"
    }
}

/// Writes sessions in the trace format, as text.
public struct TraceWriter: Sendable {
    public private(set) var text = ""
    private var sessions = 0

    public init() {}

    /// Start a session; its events follow.
    public mutating func beginSession(_ header: TraceHeader) {
        var line = "{\"session\":\(header.session)"
        if let typist = header.typist { line += ",\"typist\":\(typist)" }
        if let seed = header.seed { line += ",\"seed\":\(seed)" }
        if let device = header.device { line += ",\"device\":" + Self.quoted(device) }
        if let language = header.language { line += ",\"language\":" + Self.quoted(language) }
        if let wpm = header.wpm { line += ",\"wpm\":\(Self.number(wpm))" }
        text += line + "}\n"
        sessions += 1
    }

    public mutating func write(_ event: TypingEvent) {
        text += Self.line(for: event) + "\n"
    }

    /// One event as a line (without the newline).
    public static func line(for event: TypingEvent) -> String {
        let time = "{\"t_ms\":" + millis(event.at)
        switch event.action {
        case let .edit(key, text):
            return time + ",\"key\":" + quoted(key) + ",\"text\":" + quoted(text) + "}"
        case let .scope(scope):
            return time + ",\"scope\":" + (scope.map(quoted) ?? "null") + "}"
        case let .tokens(tokens):
            return time + ",\"tokens\":[" + tokens.map(quoted).joined(separator: ",") + "]}"
        case .submit:
            return time + ",\"submit\":true}"
        case .end:
            return time + ",\"end\":true}"
        }
    }

    /// Write the text to `path`.
    public func write(toFile path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw TraceError(file: path, line: 0, reason: "cannot write the file")
        }
    }

    /// Nanoseconds as milliseconds with up to six decimals (exact: 1 ns = 0.000001 ms).
    static func millis(_ nanos: Int64) -> String {
        let sign = nanos < 0 ? "-" : ""
        let magnitude = nanos.magnitude
        let whole = magnitude / 1_000_000, fraction = magnitude % 1_000_000
        guard fraction != 0 else { return sign + String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return sign + String(whole) + "." + digits
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// A JSON string literal.
    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// Reads traces; every error names the file and the line.
public enum TraceReader {
    public static func read(path: String) throws -> [TraceSession] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TraceError(file: path, line: 0, reason: "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw TraceError(file: path, line: 0, reason: "not UTF-8")
        }
        return try parse(text, file: path)
    }

    /// Parse trace text; `file` is used in error messages.
    public static func parse(_ text: String, file: String) throws -> [TraceSession] {
        var sessions: [TraceSession] = []
        var header: TraceHeader?
        var events: [TypingEvent] = []
        var started = false
        var lastTime: Int64 = 0
        let decoder = JSONDecoder()
        var lineNumber = 0
        func finish() {
            if started || !events.isEmpty { sessions.append(TraceSession(header: header, events: events)) }
            events = []
            lastTime = 0
        }
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty { continue }
            func fail(_ reason: String) -> TraceError { TraceError(file: file, line: lineNumber, reason: reason) }
            let record: TraceRecord
            do {
                record = try decoder.decode(TraceRecord.self, from: Data(line.utf8))
            } catch let error as DecodingError {
                throw fail(Self.describe(error))
            } catch {
                throw fail("not a JSON object: \(error)")
            }
            if let session = record.session {
                guard record.tMs == nil else { throw fail("a line has both 'session' and 't_ms'; a session header has no time") }
                finish()
                started = true
                header = TraceHeader(session: session, typist: record.typist, seed: record.seed, device: record.device, language: record.language, wpm: record.wpm)
                continue
            }
            guard let tMs = record.tMs else { throw fail("missing 't_ms' (milliseconds from the session start)") }
            guard tMs.isFinite, tMs >= 0, tMs < 9e12 else { throw fail("'t_ms' must be a finite number ≥ 0, not \(tMs)") }
            let at = Int64((tMs * 1_000_000).rounded())
            guard at >= lastTime else {
                throw fail("'t_ms' \(tMs) is earlier than the previous event's \(Double(lastTime) / 1e6); times must not decrease")
            }
            lastTime = at
            var actions: [TypingEvent.Action] = []
            if let key = record.key {
                guard let text = record.text else { throw fail("'key' needs 'text' (the field's text after the key)") }
                actions.append(.edit(key: key, text: text))
            } else if record.text != nil {
                throw fail("'text' without 'key'")
            }
            if record.hasScope { actions.append(.scope(record.scope)) }
            if let tokens = record.tokens { actions.append(.tokens(tokens)) }
            if let submit = record.submit {
                guard submit else { throw fail("'submit' must be true") }
                actions.append(.submit)
            }
            if let end = record.end {
                guard end else { throw fail("'end' must be true") }
                actions.append(.end)
            }
            guard actions.count == 1 else {
                throw fail(actions.isEmpty
                    ? "no event: expected one of 'key', 'scope', 'tokens', 'submit', 'end'"
                    : "more than one event on one line (\(actions.count)); write one per line")
            }
            events.append(TypingEvent(at: at, action: actions[0]))
        }
        finish()
        return sessions
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .keyNotFound(_, context), let .dataCorrupted(context):
            let path = context.codingPath.map(\.stringValue).filter { !$0.isEmpty }.joined(separator: ".")
            if path.isEmpty { return "not a JSON object: \(context.debugDescription)" }
            return "field '\(path)': \(context.debugDescription)"
        @unknown default:
            return "not valid: \(error)"
        }
    }
}

/// One line of a trace as decoded; which fields are present decides what it is.
struct TraceRecord: Decodable {
    var tMs: Double?
    var key: String?
    var text: String?
    var hasScope = false
    var scope: String?
    var tokens: [String]?
    var submit: Bool?
    var end: Bool?
    var session: Int?
    var typist: Int?
    var seed: UInt64?
    var device: String?
    var language: String?
    var wpm: Double?

    enum CodingKeys: String, CodingKey {
        case tMs = "t_ms", key, text, scope, tokens, submit, end, session, typist, seed, device, language, wpm
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tMs = try c.decodeIfPresent(Double.self, forKey: .tMs)
        key = try c.decodeIfPresent(String.self, forKey: .key)
        text = try c.decodeIfPresent(String.self, forKey: .text)
        hasScope = c.contains(.scope)
        scope = try c.decodeIfPresent(String.self, forKey: .scope)
        tokens = try c.decodeIfPresent([String].self, forKey: .tokens)
        submit = try c.decodeIfPresent(Bool.self, forKey: .submit)
        end = try c.decodeIfPresent(Bool.self, forKey: .end)
        session = try c.decodeIfPresent(Int.self, forKey: .session)
        typist = try c.decodeIfPresent(Int.self, forKey: .typist)
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed)
        device = try c.decodeIfPresent(String.self, forKey: .device)
        language = try c.decodeIfPresent(String.self, forKey: .language)
        wpm = try c.decodeIfPresent(Double.self, forKey: .wpm)
    }
}

/// A recorded session replayed through the same interface as a generated one.
public struct TraceSession: TypistSession, Sendable, Hashable {
    public let header: TraceHeader?
    public let events: [TypingEvent]
    private var position = 0

    public init(header: TraceHeader? = nil, events: [TypingEvent]) {
        self.header = header
        self.events = events
    }

    public mutating func next() -> TypingEvent? {
        guard position < events.count else { return nil }
        defer { position += 1 }
        return events[position]
    }
}
