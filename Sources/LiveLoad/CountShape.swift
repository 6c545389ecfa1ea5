import TypestormMetrics

/// Where a search API's answers carry their result count, found from its first answers when the
/// user gave no count path: the common shapes of search engines' JSON, tried in order.
package enum CountShape {
    /// The shapes tried, in order: `total` (many APIs, Typestorm's own server), `count`, `found`
    /// (Typesense), `nbHits` (Algolia), `estimatedTotalHits` (Meilisearch), `hits.total.value`
    /// (Elasticsearch, OpenSearch), `response.numFound` (Solr), and `#`, the length of an answer
    /// that is an array.
    package static let candidates: [String] = [
        "total", "count", "found", "nbHits", "estimatedTotalHits", "hits.total.value", "response.numFound", "#",
    ]

    /// The first candidate that reads a count in every one of `bodies` (2xx answers), or `nil`
    /// when none does or there is no body.
    package static func detect(in bodies: [[UInt8]]) -> JSONCountPath? {
        guard !bodies.isEmpty else { return nil }
        for candidate in candidates {
            let path = try! JSONCountPath(candidate)
            if bodies.allSatisfy({ path.extract(from: $0) != nil }) { return path }
        }
        return nil
    }

    /// What a probe of an API's first answers found.
    package struct Probe: Sendable {
        /// The count path detected, `nil` when no candidate fits every answer.
        package var path: JSONCountPath?
        /// 2xx answers the detection looked at.
        package var answers: Int
        /// Requests that got no 2xx answer, by cause.
        package var failures: [ErrorCause: Int]

        /// One line for the user: which shape is used, or why no count will be read.
        package var summary: String { summary(setting: "--count PATH") }

        /// `summary`, naming `setting` as where the user sets the count path instead.
        package func summary(setting: String) -> String {
            if let path {
                return "count: read at '\(path.description)' (detected in the first \(answers) answers; \(setting) chooses another)"
            }
            if answers == 0 {
                let causes = failures.sorted { $0.key < $1.key }.map { "\($0.key.label) × \($0.value)" }.joined(separator: ", ")
                return "count: unknown, no answer to detect it from (\(causes)); false empties will not be measured (\(setting) sets it)"
            }
            return "count: unknown, none of \(candidates.joined(separator: ", ")) holds a count in the first \(answers) answers; false empties will not be measured (\(setting) sets it)"
        }
    }

    /// Sends `queries` one at a time to `target` (whose count path is ignored) and detects the
    /// count's shape in the 2xx answers.
    package static func probe(target: HTTPSearchTarget, headers: [String], caFile: String? = nil, compressed: Bool = false,
                              client: HTTPClientChoice = .auto, queries: [String], timeoutNanos: UInt64) async throws -> Probe {
        var configuration = target.clientConfiguration(maxConnections: 1, defaultTimeoutNanos: timeoutNanos, client: client)
        configuration.countPath = nil
        configuration.keepBodies = true
        configuration.headers = headers
        if target.body != nil, !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
            configuration.headers.append("Content-Type: application/json")
        }
        configuration.caFile = caFile
        configuration.acceptCompressed = compressed
        let (client, stream) = try HTTPLoadClient.makeStreaming(configuration: configuration)
        defer { client.shutdown() }
        var completions = stream.makeAsyncIterator()
        var bodies: [[UInt8]] = []
        var failures: [ErrorCause: Int] = [:]
        for (index, query) in queries.enumerated() {
            let id = UInt64(index + 1)
            client.submit(id: id, url: target.url(query: query), body: target.body(query: query), timeoutNanos: timeoutNanos)
            while let completion = await completions.next() {
                guard completion.id == id else { continue }
                switch completion.outcome {
                case let .response(status, _, _, body) where (200..<300).contains(status):
                    bodies.append(body ?? [])
                case let .response(status, _, _, _): failures[.httpStatus(status), default: 0] += 1
                case .timedOut: failures[.timeout, default: 0] += 1
                case .failed: failures[completion.cause ?? .transport, default: 0] += 1
                case .cancelled: break
                }
                break
            }
        }
        return Probe(path: detect(in: bodies), answers: bodies.count, failures: failures)
    }
}
