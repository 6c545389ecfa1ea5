import Typists

/// A JSON request body with the search's values in it, for search APIs queried by `POST`:
/// `{"q": "{query}", "limit": {limit}}`.
///
/// Only the placeholders `{query}`, `{scope}`, `{tokens}`, `{limit}` and `{offset}` are replaced
/// (the JSON's own braces stay); text values are JSON-escaped, so write them inside quotes. A
/// `{word}` that is no placeholder is refused as a likely typo.
package struct BodyTemplate: Sendable, Equatable {
    package let template: String
    let parts: [URLTemplate.Part]

    private static let names: [String: URLTemplate.Part] = ["query": .query, "scope": .scope, "tokens": .tokens, "limit": .limit, "offset": .offset]

    package init(_ template: String) throws(URLTemplate.ParseError) {
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
    package func render(query: String, scope: String? = nil, tokens: [String] = [], limit: Int = 20, offset: Int = 0) -> String {
        URLTemplate.render(parts, query: query, scope: scope, tokens: tokens, limit: limit, offset: offset, encode: Self.escape)
    }

    /// The inside of a JSON string (the trace writer's escaping, without the quotes).
    static func escape(_ text: String, into out: inout String) {
        out += TraceWriter.quoted(text).dropFirst().dropLast()
    }
}
