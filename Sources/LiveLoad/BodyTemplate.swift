/// A JSON request body with the search's values in it, for search APIs queried by `POST`:
/// `{"q": "{query}", "limit": {limit}}`.
///
/// Only the placeholders `{query}`, `{scope}`, `{tokens}`, `{limit}` and `{offset}` are replaced
/// (the JSON's own braces stay); text values are JSON-escaped, so write them inside quotes. A
/// `{word}` that is no placeholder is refused as a likely typo.
public struct BodyTemplate: Sendable, Equatable {
    public let template: String
    let parts: [URLTemplate.Part]

    private static let names: [String: URLTemplate.Part] = ["query": .query, "scope": .scope, "tokens": .tokens, "limit": .limit, "offset": .offset]

    public init(_ template: String) throws(URLTemplate.ParseError) {
        self.template = template
        var parts: [URLTemplate.Part] = []
        var literal = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            literal += rest[..<open]
            let after = rest[rest.index(after: open)...]
            let word = after.prefix { $0.isASCII && $0.isLetter }
            if !word.isEmpty, after.dropFirst(word.count).first == "}" {
                guard let part = Self.names[String(word)] else {
                    throw URLTemplate.ParseError(description: "body template: unknown placeholder {\(word)}; use {query}, {scope}, {tokens}, {limit} or {offset}")
                }
                if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
                parts.append(part)
                rest = after.dropFirst(word.count + 1)
            } else {
                literal.append("{")
                rest = after
            }
        }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(literal)) }
        guard parts.contains(.query) else {
            throw URLTemplate.ParseError(description: "body template has no {query} placeholder")
        }
        self.parts = parts
    }

    /// The body for one search.
    public func render(query: String, scope: String? = nil, tokens: [String] = [], limit: Int = 20, offset: Int = 0) -> String {
        URLTemplate.render(parts, query: query, scope: scope, tokens: tokens, limit: limit, offset: offset, encode: Self.escape)
    }

    /// The inside of a JSON string: quote, backslash and control characters escaped.
    static func escape(_ text: String, into out: inout String) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
    }
}
