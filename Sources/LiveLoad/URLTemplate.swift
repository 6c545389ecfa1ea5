/// A URL with placeholders for the search parameters, so Typestorm can aim at any search API:
/// `http://127.0.0.1:7700/search?q={query}&scope={scope}`.
///
/// Placeholders: `{query}`, `{scope}`, `{tokens}` (comma-joined), `{limit}`, `{offset}`. Values are
/// percent-encoded (everything but RFC 3986 unreserved characters), so a query with `&`, `#`,
/// spaces or Hangul cannot break the URL.
package struct URLTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case query, scope, tokens, limit, offset
    }

    /// A template that does not parse.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    package let template: String
    let parts: [Part]

    package static let embeddedServer = "/search?q={query}&scope={scope}&tokens={tokens}&limit={limit}&offset={offset}"

    /// `requiresQuery`: false for a `POST` target whose body carries the query.
    package init(_ template: String, requiresQuery: Bool = true) throws(ParseError) {
        self.template = template
        guard template.hasPrefix("http://") || template.hasPrefix("https://") else {
            throw ParseError(description: "URL template '\(template)' must start with http:// or https://")
        }
        var parts: [Part] = []
        var literal = ""
        var index = template.startIndex
        while index < template.endIndex {
            let character = template[index]
            if character == "{" {
                guard let close = template[index...].firstIndex(of: "}") else {
                    throw ParseError(description: "URL template '\(template)': '{' without a closing '}'")
                }
                let name = template[template.index(after: index)..<close]
                let part: Part
                switch name {
                case "query": part = .query
                case "scope": part = .scope
                case "tokens": part = .tokens
                case "limit": part = .limit
                case "offset": part = .offset
                default:
                    throw ParseError(description: "URL template '\(template)': unknown placeholder {\(name)}; use {query}, {scope}, {tokens}, {limit} or {offset}")
                }
                if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
                parts.append(part)
                index = template.index(after: close)
            } else if character == "}" {
                throw ParseError(description: "URL template '\(template)': '}' without an opening '{'")
            } else {
                literal.append(character)
                index = template.index(after: index)
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        guard parts.contains(.query) || !requiresQuery else {
            throw ParseError(description: "URL template '\(template)' has no {query} placeholder (nor a body template with one)")
        }
        try Self.checkAuthority(of: template)
        self.parts = parts
    }

    /// The host and port, checked before any request is sent: a host name, an IPv4 address or
    /// a bracketed IPv6 address, no placeholder, and a port in 1...65535.
    static func checkAuthority(of template: String) throws(ParseError) {
        let rest = template.drop { $0 != ":" }.dropFirst(3)
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        func problem(_ text: String) -> ParseError { ParseError(description: "URL template '\(template)': \(text)") }
        if authority.contains("{") { throw problem("the host may not contain a placeholder") }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host: Substring
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw problem("'[' of an IPv6 host without a closing ']'") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), host.contains(":") else {
                throw problem("'[\(host)]' is not an IPv6 address")
            }
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw problem("expected ':port' after ']', found '\(after)'") }
                port = after.dropFirst()
            }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                port = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty else { throw problem("no host") }
            let allowed = host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") }
            guard allowed, !host.hasPrefix("."), !host.hasPrefix("-"), !host.contains("..") else {
                throw problem("'\(host)' is not a host name or IP address")
            }
        }
        if let port {
            guard let number = Int(port), port.allSatisfy(\.isASCII), (1...65_535).contains(number) else {
                throw problem("port '\(port)' is not a number in 1...65535")
            }
        }
    }

    /// The URL for one search.
    package func render(query: String, scope: String? = nil, tokens: [String] = [], limit: Int = 20, offset: Int = 0) -> String {
        Self.render(parts, query: query, scope: scope, tokens: tokens, limit: limit, offset: offset, encode: Self.percentEncode)
    }

    /// `parts` with the search's values in, text values through `encode` (percent-encoding for
    /// a URL, JSON string escaping for a body).
    static func render(_ parts: [Part], query: String, scope: String?, tokens: [String], limit: Int, offset: Int,
                       encode: (String, inout String) -> Void) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let text): out += text
            case .query: encode(query, &out)
            case .scope: encode(scope ?? "", &out)
            case .tokens: encode(tokens.joined(separator: ","), &out)
            case .limit: out += String(limit)
            case .offset: out += String(offset)
            }
        }
        return out
    }

    static func percentEncode(_ text: String, into out: inout String) {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            }
        }
        out += String(decoding: bytes, as: UTF8.self)
    }
}
