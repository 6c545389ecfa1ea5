import SearchServer

// Helpers for tests that start servers and processes; every suite that uses them sets a
// `.timeLimit`, so a hang fails that test instead of stalling the run.

/// A loopback HTTP server for tests that answers every request with the JSON body its
/// `answer` closure picks from the request's path (`/meilisearch?q=a` → a Meilisearch-shaped
/// body), one request per connection; `close()` stops it.
final class CannedJSONServer: Sendable {
    private let server: LoopbackHTTPServer

    var port: UInt16 { server.port }

    init(answer: @escaping @Sendable (_ path: String) -> String) throws {
        server = try LoopbackHTTPServer(port: 0, threadName: "canned-json") { _, target in
            .ok(contentType: "application/json", body: answer(target.isEmpty ? "/" : String(target)))
        }
    }

    func close() {
        server.close()
    }
}
