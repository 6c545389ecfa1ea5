import JSONReading
import Foundation

/// Writes sessions in the trace format, as text.
public struct TraceWriter: Sendable {
    /// The trace written so far: JSON Lines, readable by ``TraceReader``.
    public private(set) var text = ""
    private var sessions = 0

    /// An empty trace.
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

    /// Appends one event of the current session as a line.
    public mutating func write(_ event: TypingEvent) {
        text += Self.line(for: event) + "\n"
    }

    /// One event as a line (without the newline).
    public static func line(for event: TypingEvent) -> String {
        let time = "{\"t_ms\":" + millis(event.at)
        switch event.action {
        case let .edit(key, text):
            return time + ",\"key\":" + quoted(key) + ",\"text\":" + quoted(text.string) + "}"
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

    /// A JSON string literal (escaped as every JSON Typestorm writes: `JSONValue.escape`).
    public static func quoted(_ string: String) -> String {
        var result = ""
        JSONValue.escape(string, into: &result)
        return result
    }
}
