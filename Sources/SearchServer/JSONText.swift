/// Minimal JSON text building for responses: the server writes a handful of fixed shapes, and
/// hand-written output keeps a first-page response at a few microseconds.
enum JSONText {
    /// Appends `text` as a JSON string literal (quotes included).
    static func appendString(_ text: String, to out: inout String) {
        out.append("\"")
        var plainStart = text.unicodeScalars.startIndex
        var index = plainStart
        let scalars = text.unicodeScalars
        while index != scalars.endIndex {
            let scalar = scalars[index]
            let escape: String?
            switch scalar {
            case "\"": escape = "\\\""
            case "\\": escape = "\\\\"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escape = nil
            }
            if let escape {
                out.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
                out.append(escape)
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        out.unicodeScalars.append(contentsOf: scalars[plainStart..<scalars.endIndex])
        out.append("\"")
    }

    static func string(_ text: String) -> String {
        var out = ""
        appendString(text, to: &out)
        return out
    }

    /// `{"error": message, "status": status}`.
    static func error(_ message: String, status: Int) -> String {
        var out = "{\"error\":"
        appendString(message, to: &out)
        out += ",\"status\":\(status)}"
        return out
    }

    /// The body of a successful `GET /search`.
    static func searchResponse(
        _ query: SearchQuery, result: BackendResult, queueNanos: UInt64, serviceNanos: UInt64, injectedDelayNanos: UInt64
    ) -> String {
        var out = "{\"query\":"
        appendString(query.query, to: &out)
        out += ",\"scope\":"
        if let scope = query.scope { appendString(scope, to: &out) } else { out += "null" }
        out += ",\"tokens\":["
        for (i, token) in query.tokens.enumerated() {
            if i > 0 { out += "," }
            appendString(token, to: &out)
        }
        out += "],\"offset\":\(query.offset),\"limit\":\(query.limit),\"total\":\(result.total),\"path\":"
        appendString(result.path, to: &out)
        out += ",\"itemsScanned\":\(result.itemsScanned),\"items\":["
        for (i, hit) in result.items.enumerated() {
            if i > 0 { out += "," }
            out += "{\"id\":\(hit.id),\"name\":"
            appendString(hit.name, to: &out)
            out += "}"
        }
        out += "],\"timing\":{\"queueMicros\":\(queueNanos / 1000),\"serviceMicros\":\(serviceNanos / 1000),\"injectedDelayMicros\":\(injectedDelayNanos / 1000)}}"
        return out
    }
}
