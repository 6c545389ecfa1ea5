import Locking

/// A scrape endpoint on `http://127.0.0.1:P/metrics`: serves the last text handed to `update`
/// (`run --metrics-port P` hands it the run's figures in the Prometheus text format, so a
/// Grafana user can watch a long run). Loopback only.
///
/// One thread accepts and answers one request at a time (a scraper every few seconds); the body
/// is made when the caller has new figures, not per request.
package final class MetricsEndpoint: Sendable {
    package typealias Failure = LoopbackHTTPServer.Failure

    private let body: Locked<String>
    private let server: LoopbackHTTPServer

    package var port: UInt16 { server.port }

    /// Listens on 127.0.0.1:`port` (0: a free port, see `port`).
    package init(port: UInt16) throws(Failure) {
        let body = Locked<String>("# no progress yet\n")
        self.body = body
        server = try LoopbackHTTPServer(port: port, threadName: "typestorm-metrics") { method, target in
            guard method == "GET", target == "/metrics" || target.hasPrefix("/metrics?") else {
                return .notFound("only GET /metrics is served here\n")
            }
            return .ok(contentType: "text/plain; version=0.0.4; charset=utf-8", body: body.withLock { $0 })
        }
    }

    /// What the next scrapes get (Prometheus text format).
    package func update(_ text: String) {
        body.withLock { $0 = text }
    }

    /// Stops listening and joins the thread. Idempotent.
    package func close() {
        server.close()
    }
}
