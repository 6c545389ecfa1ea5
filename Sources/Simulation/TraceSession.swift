import Foundation
import Typists

/// A recorded typist: events read from a trace, replayed in order.
public struct TraceSession: TypistSession, Sendable {
    public let events: [TypingEvent]
    private var index = 0

    public init(events: [TypingEvent]) {
        self.events = events
    }

    public mutating func next() -> TypingEvent? {
        guard index < events.count else { return nil }
        index += 1
        return events[index - 1]
    }
}

/// A minimal reader for keystroke traces (JSON Lines), until the Typists module's official
/// `TraceReader` lands on main.
///
/// One object per line, `t_ms` required and non-decreasing:
/// `{"t_ms": 0, "key": "s", "text": "s"}` (an edit), `{"t_ms": 900, "scope": "shoes"}` (or
/// `"scope": null` for all scopes), `{"t_ms": 950, "tokens": ["red"]}`, `{"t_ms": 990, "submit": true}`,
/// `{"t_ms": 5000, "end": true}`. Blank lines and lines starting with `#` are skipped.
public enum MinimalTraceReader {
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public var file: String
        public var line: Int
        public var message: String

        public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
    }

    public static func read(contentsOf path: String) throws -> [TypingEvent] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ParseError(file: path, line: 0, message: "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ParseError(file: path, line: 0, message: "not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    public static func parse(_ text: String, file: String = "<trace>") throws -> [TypingEvent] {
        var events: [TypingEvent] = []
        var lastTime: Int64 = .min
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = offset + 1
            let trimmed = rawLine.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            func fail(_ message: String) -> ParseError { ParseError(file: file, line: line, message: message) }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))) as? [String: Any] else {
                throw fail("not a JSON object")
            }
            guard let millis = (object["t_ms"] as? NSNumber)?.doubleValue, millis.isFinite, millis >= 0 else {
                throw fail("field 't_ms' must be a non-negative number")
            }
            let time = Int64((millis * 1e6).rounded())
            guard time >= lastTime else { throw fail("'t_ms' goes backwards (\(millis) after \(Double(lastTime) / 1e6))") }
            lastTime = time
            let action: TypingEvent.Action
            if let value = object["text"] {
                guard let text = value as? String else { throw fail("field 'text' must be a string") }
                let key = object["key"] as? String ?? ""
                action = .edit(key: key, text: text)
            } else if object.keys.contains("scope") {
                if object["scope"] is NSNull {
                    action = .scope(nil)
                } else if let scope = object["scope"] as? String {
                    action = .scope(scope)
                } else {
                    throw fail("field 'scope' must be a string or null")
                }
            } else if let value = object["tokens"] {
                guard let tokens = value as? [String] else { throw fail("field 'tokens' must be an array of strings") }
                action = .tokens(tokens)
            } else if object["submit"] != nil {
                action = .submit
            } else if object["end"] != nil {
                action = .end
            } else {
                throw fail("expected one of 'text', 'scope', 'tokens', 'submit' or 'end'")
            }
            events.append(TypingEvent(at: time, action: action))
        }
        return events
    }
}
