import JSONReading
import LiveLoad

/// How an `http-url` runner talks to a search API beyond its URL template: where the result count
/// is, which headers go with every request, which CA signs the server's certificate, whether
/// responses may come compressed, which HTTP client sends the requests.
///
/// Header values can come from environment variables (`{"env": "SEARCH_API_KEY"}`), read by
/// each worker when its phase starts: the scenario, its canonical JSON, the hash, the record and
/// the report hold only the variable's name, never the secret.
public struct HTTPRequestSpec: Sendable, Equatable {
    /// One header sent with every request: a name and a literal or environment-variable value.
    public struct Header: Sendable, Equatable {
        /// Where a header's value comes from: written in the scenario, or read from the environment so the
        /// secret stays out of every file Typestorm writes.
        public enum Value: Sendable, Equatable {
            case literal(String)
            /// The value of this environment variable, read at run time.
            case environment(String)
        }

        /// The header's name (`Authorization`, `X-API-Key`, ...).
        public var name: String
        /// The header's value, or the environment variable holding it.
        public var value: Value

        /// A header `name` with `value`.
        public init(name: String, value: Value) {
            self.name = name
            self.value = value
        }
    }

    /// Where a known engine puts its result count (and its URL shape, in docs/live.md).
    public var preset: SearchEnginePreset?
    /// JSON path of the result count (`hits.total.value`, `items.#`); wins over the preset's.
    /// When set, a 2xx response without a number there counts as a failed request
    /// (`error_cause.count_missing`).
    public var countPath: String?
    /// Headers sent with every request, in order; empty for none.
    public var headers: [Header]
    /// PEM file of the certificate authorities to trust for `https://` (relative to the scenario).
    public var caFile: String?
    /// Ask for gzip/deflate/brotli responses (`Accept-Encoding`) and decode them.
    public var compressed: Bool
    /// A JSON body template: each search is a `POST` of it (`{"q": "{query}"}`).
    public var body: String?
    /// Which HTTP client sends the requests (`auto`: the plain one for `http://` without
    /// compression, libcurl otherwise).
    public var client: HTTPClientChoice

    /// A request shape; by default no preset, no count check, no headers, the system's CAs,
    /// uncompressed `GET`s, the client chosen for the URL.
    public init(preset: SearchEnginePreset? = nil, countPath: String? = nil, headers: [Header] = [], caFile: String? = nil, compressed: Bool = false,
                body: String? = nil, client: HTTPClientChoice = .auto) {
        self.body = body
        self.client = client
        self.preset = preset
        self.countPath = countPath
        self.headers = headers
        self.caFile = caFile
        self.compressed = compressed
    }

    /// The count path in effect: the explicit one, else the preset's.
    public var effectiveCountPath: String? { countPath ?? preset?.countPath }

    /// A header whose environment variable is not set, at run time.
    public struct MissingEnvironment: Error, Sendable, CustomStringConvertible {
        /// The header's name.
        public var header: String
        /// The environment variable that is not set.
        public var variable: String
        public var description: String { "header \(header) takes its value from the environment variable \(variable), which is not set" }
    }

    /// `Name: value` lines with environment values filled in.
    public func headerLines(environment: [String: String]) throws(MissingEnvironment) -> [String] {
        try headers.map { header throws(MissingEnvironment) -> String in
            switch header.value {
            case let .literal(text): return "\(header.name): \(text)"
            case let .environment(variable):
                guard let value = environment[variable] else { throw MissingEnvironment(header: header.name, variable: variable) }
                return "\(header.name): \(value)"
            }
        }
    }
}

/// Search engines whose response shape Typestorm knows: the JSON path of the result count.
public enum SearchEnginePreset: String, Sendable, Equatable, CaseIterable {
    case meilisearch, typesense, elasticsearch, opensearch, algolia, solr

    /// The JSON path of the result count in this engine's search response (``HTTPRequestSpec/countPath``
    /// overrides it).
    public var countPath: String {
        switch self {
        case .meilisearch: "estimatedTotalHits"
        case .typesense: "found"
        case .elasticsearch, .opensearch: "hits.total.value"
        case .algolia: "nbHits"
        case .solr: "response.numFound"
        }
    }
}

extension HTTPRequestSpec {
    /// The runner's keys in canonical JSON, defaults left out; an environment header keeps only
    /// the variable's name.
    var jsonMembers: [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        if let preset { members.append(("preset", .string(preset.rawValue))) }
        if let countPath { members.append(("count", .string(countPath))) }
        if !headers.isEmpty {
            members.append(("headers", .object(headers.map { header in
                switch header.value {
                case let .literal(text): (key: header.name, value: .string(text))
                case let .environment(variable): (key: header.name, value: .object([(key: "env", value: .string(variable))]))
                }
            })))
        }
        if let caFile { members.append(("caFile", .string(caFile))) }
        if compressed { members.append(("compressed", .bool(true))) }
        if let body { members.append(("body", .string(body))) }
        if client != .auto { members.append(("client", .string(client.rawValue))) }
        return members
    }
}
