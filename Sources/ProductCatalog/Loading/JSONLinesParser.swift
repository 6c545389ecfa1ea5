/// Parses JSON Lines catalogs: one flat JSON object per line.
///
/// A small hand-written parser rather than `JSONSerialization`: it decodes only the keys a
/// product has, straight into bytes, and skips any other value. Errors name the column where
/// the JSON went wrong.
struct JSONLinesParser {
    let file: String

    func parse(_ reader: inout LineReader, into sink: inout RowSink) throws(CatalogError) {
        var row = RawRow()
        let file = file
        while true {
            let outcome: Result<Bool, CatalogError>? = try reader.nextLine { (line: UnsafeBufferPointer<UInt8>) throws(CatalogError) -> Result<Bool, CatalogError> in
                var cursor = JSONCursor(bytes: line)
                cursor.skipWhitespace()
                if cursor.atEnd { return .success(false) }
                row.reset(line: 0)
                do throws(JSONCursor.Failure) {
                    try cursor.parseObject(into: &row)
                    cursor.skipWhitespace()
                    if !cursor.atEnd { throw JSONCursor.Failure(message: "text after the object", column: cursor.position + 1, field: nil) }
                } catch {
                    return .failure(CatalogError(file: file, line: nil, field: error.field, kind: error.field == nil || error.wrongType == false
                        ? .malformedRow("\(error.message) at column \(error.column)")
                        : .invalidValue("\(error.message) at column \(error.column)")))
                }
                return .success(true)
            }
            guard let outcome else { break }
            switch outcome {
            case .success(false):
                continue
            case .success(true):
                row.line = reader.lineNumber
                try sink.accept(row)
            case var .failure(error):
                error.line = reader.lineNumber
                try sink.fail(error)
            }
        }
    }
}

/// A position in one line of JSON.
struct JSONCursor {
    struct Failure: Error {
        var message: String
        var column: Int
        var field: String?
        var wrongType = false
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var atEnd: Bool { position >= bytes.count }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func fail(_ message: String, field: String? = nil, wrongType: Bool = false) -> Failure {
        Failure(message: message, column: position + 1, field: field, wrongType: wrongType)
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else {
            throw fail(atEnd ? "the line ends where \(what) was expected" : "expected \(what)")
        }
        position += 1
    }

    mutating func parseObject(into row: inout RawRow) throws(Failure) {
        try expect(0x7B, "'{'")
        skipWhitespace()
        if position < bytes.count, bytes[position] == 0x7D { position += 1; return }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == 0x22 else { throw fail("expected a key in double quotes") }
            let key = String(decoding: try parseString(), as: UTF8.self)
            try expect(0x3A, "':'")
            skipWhitespace()
            switch CatalogColumn(rawValue: key) {
            case .id:
                if peek == 0x22 { row.id = try parseString() }
                else if let number = try parseNumberIfPresent() { row.id = number }
                else { throw fail("'id' must be a string or a number", field: key, wrongType: true) }
            case .name:
                guard peek == 0x22 else { throw fail("'name' must be a string", field: key, wrongType: true) }
                row.name = try parseString()
            case .scope:
                if try parseNullIfPresent() { row.scope = nil; break }
                guard peek == 0x22 else { throw fail("'scope' must be a string", field: key, wrongType: true) }
                row.scope = try parseString()
            case .tokens:
                if try parseNullIfPresent() { break }
                guard peek == 0x5B else { throw fail("'tokens' must be an array of strings", field: key, wrongType: true) }
                position += 1
                skipWhitespace()
                if peek == 0x5D { position += 1; break }
                while true {
                    skipWhitespace()
                    guard peek == 0x22 else { throw fail("'tokens' must be an array of strings", field: key, wrongType: true) }
                    row.tokens.append(try parseString())
                    skipWhitespace()
                    if peek == 0x2C { position += 1; continue }
                    try expect(0x5D, "',' or ']'")
                    break
                }
            case .popularity:
                if try parseNullIfPresent() { break }
                guard let number = try parseNumberIfPresent() else { throw fail("'popularity' must be a number", field: key, wrongType: true) }
                row.popularity = number
            case nil:
                try skipValue(depth: 0)
            }
            skipWhitespace()
            if peek == 0x2C { position += 1; continue }
            try expect(0x7D, "',' or '}'")
            return
        }
    }

    private var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func parseNullIfPresent() throws(Failure) -> Bool {
        guard peek == 0x6E else { return false }
        try literal("null")
        return true
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw fail("unknown literal") }
        for k in 0..<count where bytes[position + k] != word.utf8Start[k] { throw fail("unknown literal") }
        position += count
    }

    /// A JSON number's text, or nil if the value is not a number.
    private mutating func parseNumberIfPresent() throws(Failure) -> [UInt8]? {
        let start = position
        while position < bytes.count {
            switch bytes[position] {
            case 0x30...0x39, 0x2D, 0x2B, 0x2E, 0x65, 0x45: position += 1
            default:
                return position > start ? Array(bytes[start..<position]) : nil
            }
        }
        return position > start ? Array(bytes[start..<position]) : nil
    }

    /// Decodes a string starting at the opening quote into UTF-8 bytes.
    mutating func parseString() throws(Failure) -> [UInt8] {
        position += 1
        var out: [UInt8] = []
        var runStart = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == 0x22 {
                out.append(contentsOf: bytes[runStart..<position])
                position += 1
                return out
            }
            if byte == 0x5C {
                out.append(contentsOf: bytes[runStart..<position])
                position += 1
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x2F: out.append(0x2F)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard position + 1 < bytes.count, bytes[position] == 0x5C, bytes[position + 1] == 0x75 else {
                            throw fail("a lone UTF-16 surrogate in a \\u escape")
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("a lone UTF-16 surrogate in a \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("a lone UTF-16 surrogate in a \\u escape")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    position -= 1
                    throw fail("unknown escape '\\\(Character(Unicode.Scalar(escape)))'")
                }
                runStart = position
                continue
            }
            if byte < 0x20 { throw fail("a control character inside a string") }
            position += 1
        }
        throw fail("the line ends inside a string")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw fail("a \\u escape needs four hex digits")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// Skips any JSON value (for keys a product does not have).
    private mutating func skipValue(depth: Int) throws(Failure) {
        guard depth < 64 else { throw fail("nested too deeply") }
        skipWhitespace()
        guard let byte = peek else { throw fail("the line ends where a value was expected") }
        switch byte {
        case 0x22: _ = try parseString()
        case 0x7B, 0x5B:
            let close: UInt8 = byte == 0x7B ? 0x7D : 0x5D
            position += 1
            skipWhitespace()
            if peek == close { position += 1; return }
            while true {
                if close == 0x7D {
                    skipWhitespace()
                    guard peek == 0x22 else { throw fail("expected a key in double quotes") }
                    _ = try parseString()
                    try expect(0x3A, "':'")
                }
                try skipValue(depth: depth + 1)
                skipWhitespace()
                if peek == 0x2C { position += 1; continue }
                try expect(close, close == 0x7D ? "',' or '}'" : "',' or ']'")
                return
            }
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        default:
            guard try parseNumberIfPresent() != nil else { throw fail("expected a value") }
        }
    }
}
