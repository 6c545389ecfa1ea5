import LiveLoad

/// `--http-client auto|plain|curl`, on the commands that take a search URL (`load`,
/// `calibrate`, `run`).
enum HTTPClientOption {
    static let option = Option.value(
        "http-client", "CLIENT",
        help: "Which HTTP client sends the requests: plain (Typestorm's own HTTP/1.1 client, http:// only), curl (libcurl: https://, compression), or auto (plain for http://, curl otherwise).",
        default: "auto")

    /// The client given, `nil` when the option is absent.
    static func value(_ arguments: ParsedArguments) throws -> HTTPClientChoice? {
        try arguments.choice("http-client", among: HTTPClientChoice.allCases.map(\.rawValue)).flatMap(HTTPClientChoice.init(rawValue:))
    }
}
