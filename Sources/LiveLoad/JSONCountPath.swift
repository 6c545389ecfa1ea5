import Glibc

/// Where to read the result count in a search API's JSON: `total`, `hits.total.value`,
/// `data.items.#` (`#` = the length of an array), `results.0.count` (a number is an array index,
/// or the key of that name in an object), `#` alone for a top-level array's length.
///
/// A count is a JSON number with a whole value from 0 to `Int.max` (`42`, `42.0`, `4.2e1`);
/// anything else at the path (a string, `true`, `1.5`, a negative number) is no count. The
/// document is read as a full JSON parser reads it: any whitespace, escaped keys (`"\u0074otal"`
/// is `total`), and for a key that appears twice in one object the last one counts.
///
/// Read with a small skipping scanner rather than a full decode: the load generator parses every
/// response, and materializing a whole page of items to read one number would make the client,
/// not the server, the bottleneck.
package struct JSONCountPath: Sendable, Equatable, CustomStringConvertible {
    enum Step: Sendable, Equatable {
        case key([UInt8])
        /// A number segment: the element at that index of an array, or the member of that name
        /// of an object.
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
            } else if let index = Int(segment), index >= 0, segment.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                steps.append(.index(index, key: Array(segment.utf8)))
            } else {
                steps.append(.key(Array(segment.utf8)))
            }
        }
        self.steps = steps
    }

    /// The count at this path in `json`, or `nil` if the path is absent, holds no count, or the
    /// document is not well-formed where the scanner passed.
    package func extract(from json: [UInt8]) -> Int? {
        json.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer, steps: steps)
            let count = scanner.value(at: 0)
            scanner.skipSpace()
            return scanner.broken || scanner.i != buffer.count ? nil : count
        }
    }
}

/// A forward-only scanner over JSON bytes that follows a path and skips everything else.
///
/// Every value it enters it reads to its end, so a later duplicate of a key on the path replaces
/// an earlier one, as in a full parse. Skipped values are checked for balance, not validated.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let steps: [JSONCountPath.Step]
    var i = 0
    /// The bytes stopped making sense (unbalanced, truncated, a missing `:`): no count.
    var broken = false

    init(bytes: UnsafeBufferPointer<UInt8>, steps: [JSONCountPath.Step]) {
        self.bytes = bytes
        self.steps = steps
    }

    /// Reads the value at the cursor to its end; the count if `steps[step...]` lead to one in it.
    mutating func value(at step: Int) -> Int? {
        skipSpace()
        guard !broken, let first = peek() else { broken = true; return nil }
        if step == steps.count { return readCount() }
        switch steps[step] {
        case let .key(wanted) where first == UInt8(ascii: "{"):
            return member(wanted, then: step + 1)
        case let .index(_, key: wanted) where first == UInt8(ascii: "{"):
            return member(wanted, then: step + 1)
        case let .index(wanted, _) where first == UInt8(ascii: "["):
            var found: Int?
            var position = 0
            elements { scanner in
                if position == wanted { found = scanner.value(at: step + 1) } else { scanner.skipValue() }
                position += 1
            }
            return found
        case .length where first == UInt8(ascii: "["):
            var count = 0
            elements { scanner in
                scanner.skipValue()
                count += 1
            }
            return broken ? nil : count
        default:
            skipValue()
            return nil
        }
    }

    /// The object at the cursor: the value of its last member named `wanted`, read with
    /// `steps[next...]`; every other member skipped.
    mutating func member(_ wanted: [UInt8], then next: Int) -> Int? {
        i += 1
        skipSpace()
        if peek() == UInt8(ascii: "}") { i += 1; return nil }
        var found: Int?
        while !broken {
            skipSpace()
            let matches = keyEquals(wanted)
            skipSpace()
            guard peek() == UInt8(ascii: ":") else { broken = true; return nil }
            i += 1
            if matches { found = value(at: next) } else { skipValue() }
            skipSpace()
            switch peek() {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "}"): i += 1; return found
            default: broken = true
            }
        }
        return nil
    }

    /// Calls `body` at each element of the array at the cursor (the body reads the element).
    mutating func elements(_ body: (inout JSONScanner) -> Void) {
        i += 1
        skipSpace()
        if peek() == UInt8(ascii: "]") { i += 1; return }
        while !broken {
            skipSpace()
            body(&self)
            skipSpace()
            switch peek() {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "]"): i += 1; return
            default: broken = true
            }
        }
    }

    func peek() -> UInt8? { i < bytes.count ? bytes[i] : nil }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    /// Reads the string at the cursor and tells whether it decodes to `wanted`'s bytes. Without
    /// escapes the raw bytes are compared in place; with escapes the string is decoded first.
    mutating func keyEquals(_ wanted: [UInt8]) -> Bool {
        guard peek() == UInt8(ascii: "\"") else { broken = true; return false }
        let start = i + 1
        var end = start
        var escaped = false
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            if bytes[end] == UInt8(ascii: "\\") { escaped = true; end += 1 }
            end += 1
        }
        guard end < bytes.count else { broken = true; return false }
        i = end + 1
        if !escaped {
            guard end - start == wanted.count else { return false }
            return wanted.withUnsafeBufferPointer { wanted in
                var k = 0
                while k < wanted.count, wanted[k] == bytes[start + k] { k += 1 }
                return k == wanted.count
            }
        }
        guard let decoded = Self.unescape(UnsafeBufferPointer(rebasing: bytes[start..<end])) else { broken = true; return false }
        return decoded == wanted
    }

    /// A string's content with its escapes decoded to UTF-8 (`\uD83D\uDE00` → 😀); nil for a bad
    /// escape.
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var k = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= raw.count else { return nil }
            var value: UInt32 = 0
            for byte in raw[at..<at + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while k < raw.count {
            let byte = raw[k]
            guard byte == UInt8(ascii: "\\") else { out.append(byte); k += 1; continue }
            guard k + 1 < raw.count else { return nil }
            switch raw[k + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(raw[k + 1])
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(k + 2) else { return nil }
                k += 6
                if (0xD800..<0xDC00).contains(scalar) {
                    guard k + 1 < raw.count, raw[k] == UInt8(ascii: "\\"), raw[k + 1] == UInt8(ascii: "u"),
                          let low = hex4(k + 2), (0xDC00..<0xE000).contains(low) else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    k += 6
                } else if (0xDC00..<0xE000).contains(scalar) {
                    return nil
                }
                guard let unicode = Unicode.Scalar(scalar) else { return nil }
                out.append(contentsOf: Array(String(Character(unicode)).utf8))
                continue
            default: return nil
            }
            k += 2
        }
        return out
    }

    /// Moves past the value at the cursor (a string, container or scalar).
    mutating func skipValue() {
        skipSpace()
        guard let first = peek() else { broken = true; return }
        switch first {
        case UInt8(ascii: "\""):
            skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // The hot loop of every response: on locals, one comparison per ordinary byte.
            guard let base = bytes.baseAddress else { broken = true; return }
            let count = bytes.count
            var j = i
            var depth = 0
            while j < count {
                let byte = base[j]
                j += 1
                if byte > UInt8(ascii: "]"), byte != UInt8(ascii: "{"), byte != UInt8(ascii: "}") { continue }
                switch byte {
                case UInt8(ascii: "\""): j = Self.endOfString(base, from: j, count: count)
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { i = j; return }
                default: break
                }
            }
            i = count
            broken = true
        default:
            let start = i
            while i < bytes.count, !Self.endsScalar(bytes[i]) { i += 1 }
            if i == start { broken = true }
        }
    }

    mutating func skipString() {
        guard let base = bytes.baseAddress else { broken = true; return }
        i = Self.endOfString(base, from: i + 1, count: bytes.count)
        if i > bytes.count { i = bytes.count; broken = true }
    }

    /// Just past the closing quote of the string whose content starts at `from`; `count + 1`
    /// when it does not close. Looks for quotes with `memchr` and counts the backslashes before
    /// each, so long strings go at memory speed.
    static func endOfString(_ base: UnsafePointer<UInt8>, from: Int, count: Int) -> Int {
        var j = from
        while j < count {
            guard let quote = memchr(base + j, Int32(UInt8(ascii: "\"")), count - j) else { return count + 1 }
            let at = base.distance(to: quote.assumingMemoryBound(to: UInt8.self))
            var backslashes = 0
            while at - backslashes - 1 >= from, base[at - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            if backslashes % 2 == 0 { return at + 1 }
            j = at + 1
        }
        return count + 1
    }

    static func endsScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: true
        default: false
        }
    }

    /// The value at the cursor as a count: a number with a whole value in 0...Int.max.
    mutating func readCount() -> Int? {
        let start = i
        guard let first = peek(), first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39) else {
            skipValue()
            return nil
        }
        // The common case, digits only, without making a string.
        var value = 0
        var overflow = false
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(Int(bytes[i] - 0x30))
            overflow = overflow || o1 || o2
            value = plus
            i += 1
        }
        if i > start, !overflow, i == bytes.count || Self.endsScalar(bytes[i]) { return value }
        while i < bytes.count, !Self.endsScalar(bytes[i]) { i += 1 }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        if let whole = Int(text) { return whole >= 0 ? whole : nil }
        // 2^63 is the first Double beyond Int.max.
        guard let real = Double(text), real.isFinite, real >= 0, real < 9_223_372_036_854_775_808.0,
              real == real.rounded(.towardZero) else { return nil }
        return Int(real)
    }
}
