import Matching

/// A request the server refuses, with the status and the message the client gets as JSON.
package struct RequestRejection: Error, Sendable, Equatable {
    package var status: Int
    package var message: String
}

/// Limits on what `GET /search` accepts, so a hostile or broken client costs little.
package struct RequestLimits: Sendable, Equatable {
    /// Longest request target (path and query string) in bytes; longer gets 414.
    package var maxURLBytes = 4096
    /// Longest `q` in Unicode scalars; longer gets 400.
    package var maxQueryScalars = 256
    package var maxTokens = 16
    package var maxLimit = 1000
    package var maxOffset = 100_000
    package var defaultLimit = 20
    /// Longest request head (request line and headers, up to the blank line) a connection's
    /// first request may send before it is refused: 414 when the request line alone is longer,
    /// else 431. Kept well inside libmicrohttpd's 16 KiB per-connection buffer.
    package var maxHeadBytes = 8192
    /// Most header lines a connection's first request may send; more gets 431.
    package var maxHeaderLines = 100

    package init() {}
}

/// Where a request head stands in the bytes received so far: the check a connection's first
/// request passes before libmicrohttpd sees it, so a head too big for libmicrohttpd's buffer
/// gets our JSON refusal instead of libmicrohttpd's own HTML one.
enum RequestHead: Equatable {
    /// The blank line ending the head has arrived.
    case complete
    /// More bytes are needed.
    case incomplete
    /// Too long or too many header lines: refuse with this.
    case refused(RequestRejection)

    /// Scans `bytes` (the start of what the client sent; a buffer that holds `maxHeadBytes`
    /// bytes is full). Lines end with LF (CRLF included); empty lines before the request line
    /// are skipped, as HTTP allows.
    static func scan(_ bytes: UnsafeRawBufferPointer, limits: RequestLimits) -> RequestHead {
        var start = 0
        var lines = 0  // request line included
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let isEmpty = newline == start || (newline == start + 1 && bytes[start] == UInt8(ascii: "\r"))
            start = newline + 1
            if isEmpty {
                if lines > 0 { return .complete }
                continue
            }
            lines += 1
            if lines - 1 > limits.maxHeaderLines {
                return .refused(RequestRejection(status: 431, message: "more than \(limits.maxHeaderLines) header lines"))
            }
        }
        guard bytes.count >= limits.maxHeadBytes else { return .incomplete }
        if lines == 0 {
            return .refused(RequestRejection(
                status: 414, message: "request line is longer than \(limits.maxHeadBytes) bytes; the request target limit is \(limits.maxURLBytes)"))
        }
        return .refused(RequestRejection(status: 431, message: "request headers are longer than \(limits.maxHeadBytes) bytes"))
    }
}

/// The strict parser for a raw request target (`/search?q=...`).
///
/// Strict on purpose: a malformed escape or invalid UTF-8 is a client bug the user should see as a
/// clear 400, not a silently mangled query that returns plausible but wrong results.
enum RequestParser {
    static let searchParameters: Set<String> = ["q", "scope", "tokens", "limit", "offset"]
    static let faultParameters: Set<String> = ["fault_delay_ms", "fault_error"]

    /// Splits the raw target into its path and query string (without `?`).
    static func split(target: String) -> (path: Substring, query: Substring) {
        guard let mark = target.firstIndex(of: "?") else { return (target[...], "") }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    /// Decodes `application/x-www-form-urlencoded` pairs: `+` is a space, `%XX` a byte, and the
    /// decoded bytes must be UTF-8. Duplicate names are rejected (which one would win is
    /// ambiguous between frameworks).
    static func parameters(_ query: Substring) throws(RequestRejection) -> [String: String] {
        var result: [String: String] = [:]
        var offset = 0
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            defer { offset += pair.count + 1 }
            if pair.isEmpty { continue }
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let rawName = equals.map { pair[..<$0] } ?? pair[...]
            let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? pair[pair.endIndex...]
            let name = try decode(rawName, what: "a parameter name", at: offset)
            let value = try decode(rawValue, what: "parameter '\(name)'", at: offset + rawName.count + 1)
            if result[name] != nil {
                throw RequestRejection(status: 400, message: "parameter '\(name)' is given more than once")
            }
            result[name] = value
        }
        return result
    }

    static func decode(_ bytes: Substring.UTF8View.SubSequence, what: String, at start: Int) throws(RequestRejection) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        var position = start
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                guard first != bytes.endIndex, bytes.index(after: first) != bytes.endIndex,
                      let high = hexValue(bytes[first]), let low = hexValue(bytes[bytes.index(after: first)]) else {
                    throw RequestRejection(
                        status: 400,
                        message: "invalid percent-encoding in \(what) at byte \(position) of the query string: '%' must be followed by two hex digits")
                }
                out.append(high << 4 | low)
                index = bytes.index(index, offsetBy: 3)
                position += 3
                continue
            }
            out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = bytes.index(after: index)
            position += 1
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw RequestRejection(status: 400, message: "\(what) is not valid UTF-8 after percent-decoding")
        }
        return text
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Validates the parameters of `GET /search`.
    static func searchQuery(
        _ parameters: [String: String], limits: RequestLimits, allowFaultParameters: Bool
    ) throws(RequestRejection) -> (SearchRequest, RequestFaults) {
        let known = allowFaultParameters ? searchParameters.union(faultParameters) : searchParameters
        if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            let hint = faultParameters.contains(unknown) ? " (fault parameters need 'typestorm serve --fault-params')" : ""
            throw RequestRejection(
                status: 400,
                message: "unknown parameter '\(unknown)'\(hint); known: \(known.sorted().joined(separator: ", "))")
        }
        let query = parameters["q"] ?? ""
        let scalars = query.unicodeScalars.count
        if scalars > limits.maxQueryScalars {
            throw RequestRejection(status: 400, message: "parameter 'q' is \(scalars) characters long; the limit is \(limits.maxQueryScalars)")
        }
        let scope = parameters["scope"].flatMap { $0.isEmpty ? nil : $0 }
        let tokens = (parameters["tokens"] ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty }
        if tokens.count > limits.maxTokens {
            throw RequestRejection(status: 400, message: "parameter 'tokens' has \(tokens.count) tokens; the limit is \(limits.maxTokens)")
        }
        func integer(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(RequestRejection) -> Int {
            guard let raw = parameters[name] else { return value }
            guard let parsed = Int(raw), range.contains(parsed) else {
                throw RequestRejection(status: 400, message: "parameter '\(name)' must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(raw)'")
            }
            return parsed
        }
        let limit = try integer("limit", default: limits.defaultLimit, in: 1...limits.maxLimit)
        let offset = try integer("offset", default: 0, in: 0...limits.maxOffset)
        var faults = RequestFaults()
        if allowFaultParameters {
            faults.delayMillis = try integer("fault_delay_ms", default: 0, in: 0...60_000)
            faults.forceError = try integer("fault_error", default: 0, in: 0...1) == 1
        }
        // The answer always carries the total (`BackendResult.total`).
        return (SearchRequest(text: query, scope: scope, tokens: tokens, limit: limit, offset: offset, needsTotal: true), faults)
    }
}
