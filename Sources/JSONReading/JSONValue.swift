/// A parsed JSON document that keeps what `JSONDecoder` throws away: member order, duplicate
/// keys, and numbers as written (so a 64-bit seed is not rounded through `Double`).
///
/// What `JSONParser` (below) returns: the package's one JSON reader, for scenarios and JSON Lines
/// catalogs. Only the load generator's count reader (`JSONCountPath` in LiveLoad) reads JSON
/// another way, skipping instead of building, because it reads every response on the hot path.
package indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's text as written, e.g. `42`, `-0.5`, `1e3`.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in document order.
    case object([(key: String, value: JSONValue)])

    package static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y || (Double(x) != nil && Double(x) == Double(y))
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// What kind of value this is, for "expected …, found …" messages.
    package var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// A short rendering of the value for messages ("found string \"x\"").
    package var brief: String {
        switch self {
        case .null: return "null"
        case let .bool(value): return "\(value)"
        case let .number(text): return text
        case let .string(text): return "\"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
        case let .array(items): return "an array of \(items.count)"
        case .object: return "an object"
        }
    }

    /// Canonical JSON: members sorted by key, no whitespace, strings escaped minimally. Equal
    /// documents give equal bytes, which is what the scenario hash is computed over.
    package var canonical: String {
        var out = ""
        writeCanonical(into: &out, pretty: false, indent: "")
        return out
    }

    /// Canonical JSON with two-space indentation, for files a person reads.
    package var prettyCanonical: String {
        var out = ""
        writeCanonical(into: &out, pretty: true, indent: "")
        return out + "\n"
    }

    private func writeCanonical(into out: inout String, pretty: Bool, indent: String) {
        switch self {
        case .null: out += "null"
        case let .bool(value): out += value ? "true" : "false"
        case let .number(text): out += text
        case let .string(text): JSONValue.escape(text, into: &out)
        case let .array(items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            let inner = indent + "  "
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                if pretty { out += "\n" + inner }
                item.writeCanonical(into: &out, pretty: pretty, indent: inner)
            }
            if pretty { out += "\n" + indent }
            out += "]"
        case let .object(members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            let inner = indent + "  "
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { out += "," }
                if pretty { out += "\n" + inner }
                JSONValue.escape(member.key, into: &out)
                out += pretty ? ": " : ":"
                member.value.writeCanonical(into: &out, pretty: pretty, indent: inner)
            }
            if pretty { out += "\n" + indent }
            out += "}"
        }
    }

    /// Appends `text` as a JSON string literal: quotes, backslashes and control characters
    /// escaped, everything else as it is.
    package static func escape(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20:
                let hex = String(s.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    package subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
}

/// A JSON syntax error with the line and column where it was found.
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    package var message: String

    package var description: String { "line \(line), column \(column): \(message)" }
}

/// A small strict JSON parser (RFC 8259): no comments, no trailing commas, duplicate keys refused.
package struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    package static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the end of the document") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ message: String) -> JSONSyntaxError {
        var line = 1, column = 1
        for byte in bytes[0..<min(index, bytes.count)] {
            if byte == 10 { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return JSONSyntaxError(line: line, column: column, message: message)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of document, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default:
            throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))', expected a value")
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("invalid literal, expected '\(word)'")
        }
        index += expected.count
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > 256 { throw error("nesting deeper than 256 levels") }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        // Duplicate names: a look through the members so far while there are few (most objects
        // are small, and hashing every name costs more), a set once there are many.
        var seen: Set<String>?
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name in double quotes") }
            let keyStart = index
            let key = try parseString()
            let duplicate: Bool
            if seen != nil {
                duplicate = !seen!.insert(key).inserted
            } else {
                duplicate = members.contains { $0.key == key }
                if members.count >= 16 { seen = Set(members.map(\.key) + [key]) }
            }
            guard !duplicate else {
                index = keyStart
                throw error("member \"\(key)\" appears twice in one object")
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after member name \"\(key)\"") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            if try closes(UInt8(ascii: "}"), inside: "an object") { return .object(members) }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            if try closes(UInt8(ascii: "]"), inside: "an array") { return .array(items) }
        }
    }

    /// After a member or an item: `true` past the closing `bracket`, `false` past a comma (another
    /// follows); anything else is an error naming `container`.
    private mutating func closes(_ bracket: UInt8, inside container: String) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of document inside \(container)") }
        if bytes[index] == UInt8(ascii: ",") { index += 1; return false }
        if bytes[index] == bracket { index += 1; return true }
        throw error("expected ',' or '\(Character(Unicode.Scalar(bracket)))' in \(container)")
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let intStart = index
        guard digits() > 0 else { throw error("invalid number") }
        if bytes[intStart] == UInt8(ascii: "0"), index - intStart > 1 { index = intStart; throw error("numbers may not have leading zeros") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("invalid number: digits expected after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("invalid number: digits expected in the exponent") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1
        // Most strings have no escape: taken whole, the same text as the escape-aware loop below.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return String(decoding: bytes[index..<end], as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun() {
            if runStart < index {
                scalars.append(contentsOf: String(decoding: bytes[runStart..<index], as: UTF8.self).unicodeScalars)
            }
        }
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flushRun()
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("control character in a string (escape it)") }
            if byte != UInt8(ascii: "\\") { index += 1; continue }
            flushRun()
            index += 1
            guard index < bytes.count else { throw error("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                scalars.append(scalar)
            default:
                index -= 1
                throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
            }
            runStart = index
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }
}
