import Matching

/// Minimal JSON building for responses, straight into UTF-8 bytes.
///
/// The server writes a handful of fixed shapes; writing bytes (not `String`s, which iterate and
/// re-validate Unicode scalars on every append) keeps a first-page response to a few
/// microseconds, which matters when the HTTP layer is measured against nginx.
struct JSONWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func integer<T: BinaryInteger>(_ value: T) {
        if value == 0 { bytes.append(UInt8(ascii: "0")); return }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// Appends `text` as a JSON string literal (quotes included). Bytes of multi-byte UTF-8
    /// sequences are all ≥ 0x80 and pass through unchanged.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var plainStart = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                default:
                    let hex: StaticString = "0123456789abcdef"
                    raw("\\u00")
                    hex.withUTF8Buffer { digits in
                        bytes.append(digits[Int(byte >> 4)])
                        bytes.append(digits[Int(byte & 0xF)])
                    }
                }
                plainStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

enum JSONText {
    static func string(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `{"error": message, "status": status}`.
    static func error(_ message: String, status: Int) -> [UInt8] {
        var out = JSONWriter(capacity: 128)
        out.raw("{\"error\":")
        out.string(message)
        out.raw(",\"status\":")
        out.integer(status)
        out.raw("}")
        return out.bytes
    }

    /// The parts of a `/search` body that a repeated request shares (see `FirstPageCache`).
    static func searchPage(_ request: SearchRequest, result: BackendResult) -> FirstPageCache.Page {
        var out = JSONWriter(capacity: 256)
        out.raw("{\"query\":")
        out.string(request.text)
        out.raw(",\"scope\":")
        if let scope = request.scope { out.string(scope) } else { out.raw("null") }
        out.raw(",\"tokens\":[")
        for (i, token) in request.tokens.enumerated() {
            if i > 0 { out.raw(",") }
            out.string(token)
        }
        out.raw("],\"offset\":")
        out.integer(request.offset)
        out.raw(",\"limit\":")
        out.integer(request.limit)
        out.raw(",\"total\":")
        out.integer(result.total)
        var items = JSONWriter(capacity: 16 + result.items.count * 64)
        items.raw(",\"items\":[")
        for (i, hit) in result.items.enumerated() {
            items.raw(i > 0 ? ",{\"id\":" : "{\"id\":")
            items.string(hit.id)
            items.raw(",\"name\":")
            items.string(hit.name)
            items.raw("}")
        }
        items.raw("]")
        return FirstPageCache.Page(head: out.bytes, items: items.bytes)
    }

    /// The body of a successful `GET /search`: its shared parts (`searchPage`), how it was found this time and its timing.
    static func searchResponse(
        _ page: FirstPageCache.Page, path: String, itemsScanned: Int, queueNanos: UInt64, serviceNanos: UInt64, injectedDelayNanos: UInt64
    ) -> [UInt8] {
        var out = JSONWriter(capacity: page.head.count + page.items.count + 128)
        out.bytes.append(contentsOf: page.head)
        out.raw(",\"path\":")
        out.string(path)
        out.raw(",\"itemsScanned\":")
        out.integer(itemsScanned)
        out.bytes.append(contentsOf: page.items)
        out.raw(",\"timing\":{\"queueMicros\":")
        out.integer(queueNanos / 1000)
        out.raw(",\"serviceMicros\":")
        out.integer(serviceNanos / 1000)
        out.raw(",\"injectedDelayMicros\":")
        out.integer(injectedDelayNanos / 1000)
        out.raw("}}")
        return out.bytes
    }

    /// `Server-Timing` value: `queue;dur=0.012, search;dur=1.234` (milliseconds, 3 decimals).
    static func serverTiming(queueNanos: UInt64, serviceNanos: UInt64) -> String {
        func millis(_ nanos: UInt64) -> String {
            let micros = nanos / 1000
            let fraction = String(micros % 1000)
            return "\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        }
        return "queue;dur=\(millis(queueNanos)), search;dur=\(millis(serviceNanos))"
    }
}
