/// A search endpoint as the HTTP runner aims at it: a URL template plus where the result count
/// sits in the JSON, so the same runner drives Typestorm's own server or a user's search API.
public struct HTTPSearchTarget: Sendable, Equatable {
    package var template: URLTemplate
    package var countPath: JSONCountPath?
    /// Page size put in `{limit}`.
    public var limit: Int
    /// With a body the search is a `POST` of this JSON (`Content-Type: application/json`).
    package var body: BodyTemplate?

    package init(template: URLTemplate, countPath: JSONCountPath?, limit: Int = 20, body: BodyTemplate? = nil) {
        self.template = template
        self.countPath = countPath
        self.limit = limit
        self.body = body
    }

    /// `typestorm serve` at `baseURL` (e.g. `http://127.0.0.1:7700`): all parameters, count at `total`.
    package static func embeddedServer(baseURL: String, limit: Int = 20) throws(URLTemplate.ParseError) -> HTTPSearchTarget {
        HTTPSearchTarget(template: try URLTemplate(baseURL + URLTemplate.embeddedServer), countPath: try! JSONCountPath("total"), limit: limit)
    }

    /// The URL of one search request.
    public func url(query: String, scope: String? = nil, tokens: [String] = [], offset: Int = 0) -> String {
        template.render(query: query, scope: scope, tokens: tokens, limit: limit, offset: offset)
    }

    /// The `POST` body of one search, or `nil` for a `GET`.
    public func body(query: String, scope: String? = nil, tokens: [String] = [], offset: Int = 0) -> [UInt8]? {
        body.map { Array($0.render(query: query, scope: scope, tokens: tokens, limit: limit, offset: offset).utf8) }
    }

    /// A client configuration that parses this target's count, on `client` resolved for this
    /// target's URLs (`auto` is libcurl for `https://`).
    package func clientConfiguration(maxConnections: Int = 1024, defaultTimeoutNanos: UInt64 = 10_000_000_000,
                                     client: HTTPClientChoice = .auto) -> HTTPLoadClient.Configuration {
        var configuration = HTTPLoadClient.Configuration(maxConnections: maxConnections, defaultTimeoutNanos: defaultTimeoutNanos, countPath: countPath)
        configuration.client = client.resolved(forURL: template.template)
        return configuration
    }
}
