/// Which HTTP client sends an HTTP runner's requests.
///
/// Both speak HTTP/1.1 over keep-alive connections and report the same outcomes (status,
/// timeout, transport failure with its cause, cancellation); they differ in what they can do and
/// in what a request costs the load generator (docs/live.md, "HTTP client").
public enum HTTPClientChoice: String, Sendable, Equatable, CaseIterable {
    /// The plain client for `http://` URLs; libcurl for `https://`, for credentials in the URL
    /// and for compressed answers.
    case auto
    /// Typestorm's own HTTP/1.1 client: `http://` only, no compression, a fraction of libcurl's
    /// CPU per request.
    case plain
    /// libcurl's multi interface: `https://`, compressed answers, proxies.
    case curl
}

extension HTTPClientChoice {
    /// Why the plain client cannot carry requests to `url` (a URL or a URL template), or `nil`
    /// when it can: it speaks `http://` only and sends no credentials from the URL.
    package static func plainRefusal(url: String) -> String? {
        let lowered = url.prefix(7).lowercased()
        guard lowered == "http://" else { return "the plain HTTP client speaks http:// only (\(url.prefix(40))…); use the curl client" }
        let rest = url.utf8.dropFirst(7)
        let authority = rest.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        if authority.contains(UInt8(ascii: "@")) { return "the plain HTTP client sends no credentials from the URL; use the curl client" }
        if authority.isEmpty { return "no host in \(url.prefix(40))" }
        return nil
    }

    /// This choice for requests to `url`: `auto` becomes `curl` when the plain client cannot
    /// carry them, and stays `auto` otherwise (the client decides with its other settings).
    package func resolved(forURL url: String) -> HTTPClientChoice {
        self == .auto && Self.plainRefusal(url: url) != nil ? .curl : self
    }
}
