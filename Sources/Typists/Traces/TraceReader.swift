import Foundation

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
