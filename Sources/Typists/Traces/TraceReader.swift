import Foundation

/// Reads traces; every error names the file and the line.
public enum TraceReader {
    /// The sessions of the trace at `path`, in order. Throws ``TraceError`` naming the file and line
    /// of the first problem.
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

    /// A decoding error in our words: Foundation's ("Expected to decode Double but found a
    /// string instead.") names Swift types, not what the trace format wants.
    private static func describe(_ error: DecodingError) -> String {
        func field(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).filter { !$0.isEmpty }.joined(separator: ".")
        }
        func expected(_ type: Any.Type) -> String {
            switch type {
            case is String.Type: return "a string"
            case is Bool.Type: return "true or false"
            case is Int.Type, is UInt64.Type: return "an integer"
            case is Double.Type: return "a number"
            default: return "a list of strings"
            }
        }
        switch error {
        case let .typeMismatch(type, context), let .valueNotFound(type, context):
            let path = field(context)
            return path.isEmpty ? "not a JSON object" : "field '\(path)': expected \(expected(type))"
        case let .keyNotFound(key, _):
            return "field '\(key.stringValue)' is missing"
        case let .dataCorrupted(context):
            let path = field(context)
            return path.isEmpty ? "not a JSON object (one per line)" : "field '\(path)': not a valid value"
        @unknown default:
            return "not a valid trace line"
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
