/// Where to read the result count in a search API's JSON: `total`, `hits.total.value`,
/// `data.items.#` (`#` = the length of an array), `results.0.count` (a number is an array index).
///
/// Read with a small skipping scanner rather than a full decode: the load generator parses every
/// response, and materializing a whole page of items to read one number would make the client,
/// not the server, the bottleneck.
package struct JSONCountPath: Sendable, Equatable, CustomStringConvertible {
    enum Step: Sendable, Equatable {
        case key([UInt8])
        case index(Int)
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
                steps.append(.index(index))
            } else {
                steps.append(.key(Array(segment.utf8)))
            }
        }
        self.steps = steps
    }

    /// The count at this path in `json`, or `nil` if the path is absent or not a number/array.
    package func extract(from json: [UInt8]) -> Int? {
        json.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer)
            return scanner.follow(steps)
        }
    }
}

/// A forward-only scanner over JSON bytes that follows a path and skips everything else.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0

    mutating func follow(_ steps: [JSONCountPath.Step]) -> Int? {
        for step in steps {
            skipSpace()
            switch step {
            case .key(let wanted):
                guard peek() == UInt8(ascii: "{") else { return nil }
                i += 1
                while true {
                    skipSpace()
                    if peek() == UInt8(ascii: "}") { return nil }
                    guard let key = readString() else { return nil }
                    skipSpace()
                    guard peek() == UInt8(ascii: ":") else { return nil }
                    i += 1
                    if key == wanted { break }
                    guard skipValue() else { return nil }
                    skipSpace()
                    if peek() == UInt8(ascii: ",") { i += 1 } else { return nil }
                }
            case .index(let wanted):
                guard peek() == UInt8(ascii: "[") else { return nil }
                i += 1
                for _ in 0..<wanted {
                    skipSpace()
                    guard peek() != UInt8(ascii: "]"), skipValue() else { return nil }
                    skipSpace()
                    if peek() == UInt8(ascii: ",") { i += 1 } else { return nil }
                }
                skipSpace()
                if peek() == UInt8(ascii: "]") { return nil }
            case .length:
                guard peek() == UInt8(ascii: "[") else { return nil }
                i += 1
                skipSpace()
                if peek() == UInt8(ascii: "]") { return 0 }
                var count = 0
                while true {
                    skipSpace()
                    guard skipValue() else { return nil }
                    count += 1
                    skipSpace()
                    if peek() == UInt8(ascii: ",") { i += 1; continue }
                    return peek() == UInt8(ascii: "]") ? count : nil
                }
            }
        }
        skipSpace()
        return readNumber()
    }

    func peek() -> UInt8? { i < bytes.count ? bytes[i] : nil }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    /// Reads a string's raw bytes (escapes other than `\"` and `\\` are kept as written: keys in
    /// a count path are plain ASCII).
    mutating func readString() -> [UInt8]? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") { i += 1; return out }
            if byte == UInt8(ascii: "\\"), i + 1 < bytes.count {
                let next = bytes[i + 1]
                if next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") || next == UInt8(ascii: "/") {
                    out.append(next)
                } else {
                    out.append(byte)
                    out.append(next)
                }
                i += 2
                continue
            }
            out.append(byte)
            i += 1
        }
        return nil
    }

    mutating func skipValue() -> Bool {
        guard let first = peek() else { return false }
        switch first {
        case UInt8(ascii: "\""):
            i += 1
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "\\") { i += 2; continue }
                if bytes[i] == UInt8(ascii: "\"") { i += 1; return true }
                i += 1
            }
            return false
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while i < bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: "\"") {
                    guard skipValue() else { return false }
                    continue
                }
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
                if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                }
                i += 1
            }
            return false
        default:
            let start = i
            while i < bytes.count, !",}] \n\r\t".utf8.contains(bytes[i]) { i += 1 }
            return i > start
        }
    }

    mutating func readNumber() -> Int? {
        let start = i
        while i < bytes.count, "-+0123456789.eE".utf8.contains(bytes[i]) { i += 1 }
        guard i > start else { return nil }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        if let value = Int(text) { return value }
        if let value = Double(text), value.isFinite, value >= Double(Int.min), value <= Double(Int.max) { return Int(value) }
        return nil
    }
}
