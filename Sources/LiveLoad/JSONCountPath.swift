/// Where to read the result count in a search API's JSON: `total`, `hits.total.value`,
/// `data.items.#` (`#` = the length of an array), `results.0.count` (a number is an array index,
/// or a key when the value there is an object).
///
/// Read with a small skipping scanner rather than a full decode: the load generator parses every
/// response, and materializing a whole page of items to read one number would make the client,
/// not the server, the bottleneck. On valid JSON it reads what a full parser reads: any
/// whitespace, keys written with escapes (`"tot\u0061l"` is `total`), the last of duplicate
/// keys. A count is a number whose exact value is a whole number from 0 to `Int.max` (`385`,
/// `385.0`, `3.85e2`) or an array's length; anything else (a string, a fraction, a negative
/// number, `true`) is no count. The parts it skips are not validated.
package struct JSONCountPath: Sendable, Equatable, CustomStringConvertible {
    enum Step: Sendable, Equatable {
        case key([UInt8])
        /// An array index, or the key spelled by the same digits when the value is an object.
        case index(Int, key: [UInt8])
        case length
    }

    /// A path that does not parse.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    package let description: String
    let steps: [Step]

    package init(_ path: String) throws(ParseError) {
        description = path
        let segments = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !path.isEmpty, !segments.contains("") else {
            throw ParseError(description: "JSON path '\(path)' has an empty segment; use e.g. total, hits.total or items.#")
        }
        var steps: [Step] = []
        for (position, segment) in segments.enumerated() {
            if segment == "#" {
                guard position == segments.count - 1 else {
                    throw ParseError(description: "JSON path '\(path)': '#' (array length) must be the last segment")
                }
                steps.append(.length)
            } else if let index = Int(segment), index >= 0 {
                steps.append(.index(index, key: Array(segment.utf8)))
            } else {
                steps.append(.key(Array(segment.utf8)))
            }
        }
        self.steps = steps
    }

    /// The count at this path in `json`, or `nil` if the path is absent or not a count.
    package func extract(from json: [UInt8]) -> Int? {
        json.withUnsafeBufferPointer { extract(from: $0) }
    }

    /// The count at this path in the JSON bytes `json` points at.
    package func extract(from json: UnsafeBufferPointer<UInt8>) -> Int? {
        var scanner = JSONScanner(bytes: json)
        return scanner.follow(steps)
    }
}

/// A forward-only scanner over JSON bytes that follows a path and skips everything else.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
    private static let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
    private static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
    private static let comma = UInt8(ascii: ","), colon = UInt8(ascii: ":")

    mutating func follow(_ steps: [JSONCountPath.Step]) -> Int? {
        skipSpace()
        return resolve(steps, 0).count
    }

    /// At the start of a value: the count at `steps[step...]` inside it, with `i` left just past
    /// the value, so one pass over the document reads it (`ok` false: the JSON ends or breaks
    /// here). Every member of an object is looked at and the last one named by the step wins, as
    /// a full parser keeps the last of duplicate keys.
    mutating func resolve(_ steps: [JSONCountPath.Step], _ step: Int) -> (count: Int?, ok: Bool) {
        guard step < steps.count else {
            let start = i
            let count = readCount()
            if count != nil { return (count, true) }
            i = start
            return (nil, skipValue())
        }
        let opening = peek()
        switch steps[step] {
        case .key(let wanted) where opening == Self.openBrace, .index(_, let wanted) where opening == Self.openBrace:
            i += 1
            skipSpace()
            if peek() == Self.closeBrace { i += 1; return (nil, true) }
            var count: Int?
            let wantedIsASCII = wanted.allSatisfy { $0 < 0x80 }
            while true {
                guard let matches = readKey(equalTo: wanted, wantedIsASCII: wantedIsASCII) else { return (nil, false) }
                skipSpace()
                guard peek() == Self.colon else { return (nil, false) }
                i += 1
                skipSpace()
                if matches {
                    let member = resolve(steps, step + 1)
                    guard member.ok else { return (nil, false) }
                    count = member.count
                } else {
                    guard skipValue() else { return (nil, false) }
                }
                skipSpace()
                guard let next = peek() else { return (nil, false) }
                i += 1
                if next == Self.closeBrace { return (count, true) }
                guard next == Self.comma else { return (nil, false) }
                skipSpace()
            }
        case .index(_, _) where opening == Self.openBracket, .length where opening == Self.openBracket:
            let index: Int? = if case .index(let wanted, _) = steps[step] { wanted } else { nil }
            i += 1
            skipSpace()
            if peek() == Self.closeBracket { i += 1; return (index == nil ? 0 : nil, true) }
            var count: Int?
            var position = 0
            while true {
                if position == index {
                    let element = resolve(steps, step + 1)
                    guard element.ok else { return (nil, false) }
                    count = element.count
                } else {
                    guard skipValue() else { return (nil, false) }
                }
                position += 1
                skipSpace()
                guard let next = peek() else { return (nil, false) }
                i += 1
                if next == Self.closeBracket { return (index == nil ? position : count, true) }
                guard next == Self.comma else { return (nil, false) }
                skipSpace()
            }
        default:
            return (nil, skipValue())
        }
    }

    @inline(__always) func peek() -> UInt8? { i < bytes.count ? bytes[i] : nil }

    @inline(__always) mutating func skipSpace() {
        while i < bytes.count {
            let byte = bytes[i]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            i += 1
        }
    }

    /// Reads a key and says whether it equals `wanted`; nil if there is no string here. Plain keys
    /// are compared byte for byte; a key with escapes or non-ASCII bytes is decoded and compared
    /// as a string (as a full parser's dictionary would).
    mutating func readKey(equalTo wanted: [UInt8], wantedIsASCII: Bool) -> Bool? {
        guard peek() == Self.quote else { return nil }
        i += 1
        let start = i
        var plain = true
        while i < bytes.count {
            let byte = bytes[i]
            if byte == Self.quote {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<i])
                i += 1
                if plain, wantedIsASCII { return raw.elementsEqual(wanted) }
                guard let decoded = Self.unescape(raw) else { return nil }
                return String(decoding: decoded, as: UTF8.self) == String(decoding: wanted, as: UTF8.self)
            }
            if byte == Self.backslash { plain = false; i += 2; continue }
            if byte >= 0x80 { plain = false }
            i += 1
        }
        return nil
    }

    /// A JSON string's contents with its escapes decoded to UTF-8 (`\u` surrogate pairs joined).
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var k = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= raw.count else { return nil }
            var value: UInt32 = 0
            for byte in raw[at..<(at + 4)] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while k < raw.count {
            let byte = raw[k]
            guard byte == backslash else { out.append(byte); k += 1; continue }
            guard k + 1 < raw.count else { return nil }
            let escaped = raw[k + 1]
            k += 2
            switch escaped {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(k) else { return nil }
                k += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    guard k + 6 <= raw.count, raw[k] == backslash, raw[k + 1] == UInt8(ascii: "u"),
                          let low = hex4(k + 2), (0xDC00..<0xE000).contains(low) else { return nil }
                    k += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { return nil }
                out.append(contentsOf: String(Character(unicode)).utf8)
            default: out.append(escaped)
            }
        }
        return out
    }

    /// Skips one value starting at `i` (no leading whitespace); false if there is none.
    mutating func skipValue() -> Bool {
        guard let first = peek() else { return false }
        switch first {
        case Self.quote:
            return skipString()
        case Self.openBrace, Self.openBracket:
            var depth = 0
            while i < bytes.count {
                let byte = bytes[i]
                if byte == Self.quote {
                    guard skipString() else { return false }
                    continue
                }
                if byte == Self.openBrace || byte == Self.openBracket {
                    depth += 1
                } else if byte == Self.closeBrace || byte == Self.closeBracket {
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                }
                i += 1
            }
            return false
        default:
            let start = i
            while i < bytes.count {
                let byte = bytes[i]
                if byte == Self.comma || byte == Self.closeBrace || byte == Self.closeBracket
                    || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { break }
                i += 1
            }
            return i > start
        }
    }

    @inline(__always) mutating func skipString() -> Bool {
        i += 1
        while i < bytes.count {
            let byte = bytes[i]
            if byte == Self.backslash { i += 2; continue }
            i += 1
            if byte == Self.quote { return true }
        }
        return false
    }

    /// The number at `i` if its exact value is a whole number in 0...Int.max; nil otherwise.
    /// Computed from the decimal digits, not through a Double: `9007199254740993.0` is exact,
    /// `1.5` and `-3` are nil.
    mutating func readCount() -> Int? {
        @inline(__always) func isDigit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 0x30 && bytes[at] <= 0x39 }
        let negative = peek() == UInt8(ascii: "-")
        if negative { i += 1 }
        let integerStart = i
        while isDigit(i) { i += 1 }
        let integerEnd = i
        guard integerEnd > integerStart else { return nil }
        var fractionStart = i, fractionEnd = i
        if peek() == UInt8(ascii: ".") {
            i += 1
            fractionStart = i
            while isDigit(i) { i += 1 }
            fractionEnd = i
            guard fractionEnd > fractionStart else { return nil }
        }
        var exponent = 0
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            i += 1
            var exponentNegative = false
            if peek() == UInt8(ascii: "+") { i += 1 } else if peek() == UInt8(ascii: "-") { exponentNegative = true; i += 1 }
            guard isDigit(i) else { return nil }
            while isDigit(i) {
                exponent = min(exponent * 10 + Int(bytes[i] - 0x30), 1_000_000)
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // The digits, integer then fraction, as one sequence; value = digits × 10^exponent.
        let integerCount = integerEnd - integerStart, total = integerCount + (fractionEnd - fractionStart)
        @inline(__always) func digit(_ k: Int) -> Int {
            Int(bytes[k < integerCount ? integerStart + k : fractionStart + k - integerCount] - 0x30)
        }
        exponent -= fractionEnd - fractionStart
        var first = 0, last = total
        while first < last, digit(first) == 0 { first += 1 }
        if first == last { return 0 }
        while digit(last - 1) == 0 { last -= 1; exponent += 1 }
        guard !negative, exponent >= 0, last - first + exponent <= 19 else { return nil }
        var value = 0
        for k in first..<last {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(digit(k))
            guard !o1, !o2 else { return nil }
            value = plus
        }
        for _ in 0..<exponent {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            value = times
        }
        return value
    }
}
