import CCurl
import Foundation
import TypestormSystem
import Locking
import Synchronization

/// An HTTP load client driven by threads of its own (one by default; `Configuration.threads`
/// runs several, each with its own event loop and connections).
///
/// Two implementations carry the requests (`Configuration.client`): the plain HTTP/1.1 client
/// (`PlainHTTPLoop`: keep-alive connections on epoll, `http://` only) and libcurl's multi
/// interface (`CurlLoop`: libcurl's socket API on epoll, https and compression too). Either way
/// thousands of requests run concurrently on one event loop with connection reuse, per-request
/// timeouts, and cancellation that aborts the request (closing its connection, which is how the
/// server learns it can stop). A request may be
/// submitted ahead of its intended time: the loop holds it and sends it when due, and every
/// completion carries intended, start and finish times so latency excludes client-side queueing
/// only when the client was on time (no coordinated omission).
///
/// Completions are delivered to `onCompletion` on the client's thread that carried the request:
/// keep it short (record and return, or submit the next request, which is cheap from there).
/// With several threads, request `id` goes to thread `id % threads`, so completions of different
/// ids may arrive at once on different threads; a request submitted from a completion callback
/// with an id of the same remainder stays on that thread (no hand-over).
package final class HTTPLoadClient: Sendable {
    /// How the client connects and what it keeps of responses.
    package struct Configuration: Sendable {
        /// Which implementation carries the requests: `auto` is the plain client unless
        /// `acceptCompressed` or `useEnvironmentProxy` needs libcurl. Whoever knows the URLs
        /// resolves `auto` for them first (`HTTPClientChoice.resolved(forURL:)`): the plain
        /// client fails a request to an `https://` URL.
        package var client: HTTPClientChoice = .auto
        /// Upper bound on open connections (requests queue for one beyond it), shared out evenly
        /// among the threads.
        package var maxConnections = 1024
        /// Event-loop threads, each with its own connections and epoll set.
        /// One is enough for live runs; a closed-loop maximum-rate run on several cores needs more.
        package var threads = 1
        /// Timeout of a request without its own, from when the loop starts it (connecting or
        /// waiting for a connection included).
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
                    headers: [String] = [], client: HTTPClientChoice = .auto) {
            self.client = client
            self.headers = headers
            self.maxConnections = maxConnections
            self.defaultTimeoutNanos = defaultTimeoutNanos
            self.countPath = countPath
            self.keepBodies = keepBodies
            self.useEnvironmentProxy = useEnvironmentProxy
        }
    }

    /// Why the client could not start: libcurl could not initialise, a header is malformed, or the
    /// plain client was chosen for what only libcurl does. (An option libcurl refuses is a
    /// `CurlError`; no epoll instance or pipe, a `SystemError`.)
    package struct StartError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    private let loops: [any HTTPClientLoop]
    /// The implementation carrying the requests (`auto` resolved).
    package let client: HTTPClientChoice
    private let stopped = Locked(false)

    package init(configuration: Configuration = Configuration(), onCompletion: @escaping @Sendable (HTTPCompletion) -> Void) throws {
        let client: HTTPClientChoice
        switch configuration.client {
        case .curl: client = .curl
        case .auto: client = configuration.acceptCompressed || configuration.useEnvironmentProxy ? .curl : .plain
        case .plain:
            if configuration.acceptCompressed {
                throw StartError(description: "the plain HTTP client decodes no compressed answers; use the curl client")
            }
            if configuration.useEnvironmentProxy {
                throw StartError(description: "the plain HTTP client goes through no proxy; use the curl client")
            }
            client = .plain
        }
        if client == .curl {
            guard CurlGlobal.initialized else { throw StartError(description: "curl_global_init failed") }
        }
        for header in configuration.headers {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex,
                  !header.contains("\r"), !header.contains("\n") else {
                throw StartError(description: "header '\(header)' must look like 'Name: value' on one line")
            }
        }
        guard configuration.threads >= 1 else {
            throw StartError(description: "threads is \(configuration.threads); a client needs at least one thread")
        }
        let threads = min(configuration.threads, max(1, configuration.maxConnections))
        var loops: [any HTTPClientLoop] = []
        for index in 0..<threads {
            var share = configuration
            // Connections split evenly; the first threads take the remainder.
            share.maxConnections = configuration.maxConnections / threads + (index < configuration.maxConnections % threads ? 1 : 0)
            switch client {
            case .curl: loops.append(try CurlLoop(configuration: share, onCompletion: onCompletion))
            default: loops.append(try PlainHTTPLoop(configuration: share, onCompletion: onCompletion))
            }
        }
        self.loops = loops
        self.client = client
        let name = client == .curl ? "typestorm-curl" : "typestorm-http"
        for (index, loop) in loops.enumerated() {
            let thread = Thread { loop.run() }
            thread.name = threads == 1 ? name : "\(name)-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// The loop that carries request `id`.
    private func loop(for id: UInt64) -> any HTTPClientLoop {
        loops.count == 1 ? loops[0] : loops[Int(id % UInt64(loops.count))]
    }

    /// Event-loop threads running (`Configuration.threads`, at most one per connection).
    package var threadCount: Int { loops.count }

    /// A client whose completions arrive on an `AsyncStream` instead of a callback.
    package static func makeStreaming(configuration: Configuration = Configuration()) throws -> (HTTPLoadClient, AsyncStream<HTTPCompletion>) {
        let (stream, continuation) = AsyncStream.makeStream(of: HTTPCompletion.self, bufferingPolicy: .unbounded)
        let client = try HTTPLoadClient(configuration: configuration) { continuation.yield($0) }
        let running = Atomic<Int>(client.loops.count)
        for loop in client.loops {
            loop.mailbox.setOnFinish { if running.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { continuation.finish() } }
        }
        return (client, stream)
    }

    /// Sends `url` at `intendedNanos` (monotonic; now or earlier sends at once). `id` names the
    /// request in its completion and in `abort(id:)`; ids must be unique among live requests.
    /// With a `body`, the request is a `POST` of it.
    package func submit(id: UInt64, url: String, body: [UInt8]? = nil, intendedNanos: UInt64 = MonotonicClock.now(), timeoutNanos: UInt64? = nil) {
        loop(for: id).mailbox.post(.submit(HTTPSubmission(id: id, url: url, body: body, intendedNanos: intendedNanos, timeoutNanos: timeoutNanos)))
    }

    /// Aborts request `id`: its completion is `.cancelled` with the stop latency. A request that
    /// already completed is left alone.
    package func abort(id: UInt64) {
        loop(for: id).mailbox.post(.abort(id: id, requestedNanos: MonotonicClock.now()))
    }

    /// Requests submitted and not yet completed.
    package var outstanding: Int { loops.reduce(0) { $0 + $1.mailbox.outstanding.load(ordering: .relaxed) } }

    /// How often the event loops woke up, over all threads: an idle client wakes about once a
    /// second, a loop that spins on a socket nobody reads wakes thousands of times.
    package var wakeups: Int { loops.reduce(0) { $0 + $1.mailbox.wakeups.load(ordering: .relaxed) } }

    /// Aborts everything outstanding (each reported `.cancelled`) and joins the thread. Idempotent.
    package func shutdown() {
        let first = stopped.withLock { s -> Bool in
            defer { s = true }
            return !s
        }
        guard first else { return }
        for loop in loops { loop.mailbox.post(.stop) }
        // From a completion callback (a loop thread itself) the loops stop after the callback
        // returns; waiting here would deadlock.
        guard !loops.contains(where: \.mailbox.isLoopThread) else { return }
        for loop in loops { loop.mailbox.finished.wait() }
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
