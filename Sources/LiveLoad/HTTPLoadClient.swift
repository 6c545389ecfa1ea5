import CCurl
import Foundation
import TypestormSystem
import Locking

/// An HTTP load client on libcurl's multi interface, driven by one thread of its own.
///
/// Thousands of transfers run concurrently on one event loop (libcurl's socket API on epoll,
/// `CurlLoop`) with connection reuse
/// (curl's connection cache), per-request timeouts, and cancellation that aborts the transfer
/// (closing its connection, which is how the server learns it can stop). A request may be
/// submitted ahead of its intended time: the loop holds it and sends it when due, and every
/// completion carries intended, start and finish times so latency excludes client-side queueing
/// only when the client was on time (no coordinated omission).
///
/// Completions are delivered to `onCompletion` on the client's thread: keep it short (record and
/// return, or submit the next request, which is cheap from there).
package final class HTTPLoadClient: Sendable {
    /// How the client connects and what it keeps of responses.
    package struct Configuration: Sendable {
        /// Upper bound on open connections (curl queues transfers beyond it).
        package var maxConnections = 1024
        /// Timeout of a request without its own, from when it is handed to curl.
        package var defaultTimeoutNanos: UInt64 = 10_000_000_000
        /// Where to read the result count in response bodies; nil to skip parsing.
        package var countPath: JSONCountPath?
        /// Keep response bodies in completions (tests, debugging); off for load runs.
        package var keepBodies = false
        /// Honour `http_proxy`/`no_proxy` from the environment. Off by default: a load generator
        /// aims at the endpoint itself, and libcurl would read the environment on every transfer.
        package var useEnvironmentProxy = false
        /// Extra request headers, `Name: value` each (e.g. an API key for a user's search API).
        package var headers: [String] = []
        /// PEM bundle of the certificate authorities to trust (`nil`: the system's).
        package var caFile: String?
        /// Send `Accept-Encoding` for every encoding libcurl decodes, and decode the answers.
        package var acceptCompressed = false

        package init(maxConnections: Int = 1024, defaultTimeoutNanos: UInt64 = 10_000_000_000,
                    countPath: JSONCountPath? = nil, keepBodies: Bool = false, useEnvironmentProxy: Bool = false,
                    headers: [String] = []) {
            self.headers = headers
            self.maxConnections = maxConnections
            self.defaultTimeoutNanos = defaultTimeoutNanos
            self.countPath = countPath
            self.keepBodies = keepBodies
            self.useEnvironmentProxy = useEnvironmentProxy
        }
    }

    /// Why the client could not start: libcurl could not initialise, or a header is malformed.
    /// (An option libcurl refuses is a `CurlError`; no epoll instance or pipe, a `SystemError`.)
    package struct StartError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    private let loop: CurlLoop
    private let stopped = Locked(false)

    package init(configuration: Configuration = Configuration(), onCompletion: @escaping @Sendable (HTTPCompletion) -> Void) throws {
        guard CurlGlobal.initialized else { throw StartError(description: "curl_global_init failed") }
        for header in configuration.headers {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex,
                  !header.contains("\r"), !header.contains("\n") else {
                throw StartError(description: "header '\(header)' must look like 'Name: value' on one line")
            }
        }
        let loop = try CurlLoop(configuration: configuration, onCompletion: onCompletion)
        self.loop = loop
        let thread = Thread { loop.run() }
        thread.name = "typestorm-curl"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// A client whose completions arrive on an `AsyncStream` instead of a callback.
    package static func makeStreaming(configuration: Configuration = Configuration()) throws -> (HTTPLoadClient, AsyncStream<HTTPCompletion>) {
        let (stream, continuation) = AsyncStream.makeStream(of: HTTPCompletion.self, bufferingPolicy: .unbounded)
        let client = try HTTPLoadClient(configuration: configuration) { continuation.yield($0) }
        client.loop.setOnFinish { continuation.finish() }
        return (client, stream)
    }

    /// Sends `url` at `intendedNanos` (monotonic; now or earlier sends at once). `id` names the
    /// request in its completion and in `abort(id:)`; ids must be unique among live requests.
    /// With a `body`, the request is a `POST` of it.
    package func submit(id: UInt64, url: String, body: [UInt8]? = nil, intendedNanos: UInt64 = MonotonicClock.now(), timeoutNanos: UInt64? = nil) {
        loop.post(.submit(CurlLoop.Submission(id: id, url: url, body: body, intendedNanos: intendedNanos, timeoutNanos: timeoutNanos)))
    }

    /// Aborts request `id`: its completion is `.cancelled` with the stop latency. A request that
    /// already completed is left alone.
    package func abort(id: UInt64) {
        loop.post(.abort(id: id, requestedNanos: MonotonicClock.now()))
    }

    /// Requests submitted and not yet completed.
    package var outstanding: Int { loop.outstanding.load(ordering: .relaxed) }

    /// Aborts everything outstanding (each reported `.cancelled`) and joins the thread. Idempotent.
    package func shutdown() {
        let first = stopped.withLock { s -> Bool in
            defer { s = true }
            return !s
        }
        guard first else { return }
        loop.post(.stop)
        // From a completion callback (the loop thread itself) the loop stops after the callback
        // returns; waiting here would deadlock.
        if !loop.isLoopThread { loop.finished.wait() }
    }

    /// Runs `body` with a started client and shuts it down afterwards, also when `body` throws.
    package static func withClient<Result: Sendable>(
        configuration: Configuration = Configuration(),
        onCompletion: @escaping @Sendable (HTTPCompletion) -> Void,
        _ body: (HTTPLoadClient) async throws -> Result
    ) async throws -> Result {
        let client = try HTTPLoadClient(configuration: configuration, onCompletion: onCompletion)
        defer { client.shutdown() }
        return try await body(client)
    }

    deinit {
        shutdown()
    }
}

/// `curl_global_init`, once per process.
enum CurlGlobal {
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
}
