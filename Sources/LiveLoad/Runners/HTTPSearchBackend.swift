import TypestormMetrics
import TypestormSystem
import SearchField
import Locking
import Synchronization

/// A search endpoint over HTTP, through `HTTPLoadClient` (the plain HTTP/1.1 client or
/// libcurl's): Typestorm's own server or any API described by an `HTTPSearchTarget`.
///
/// Cancel aborts the request; the client reports the abort as `.failed(.cancelled)` once it
/// closed the request's connection. A 2xx answer is results with the count at the target's count path (without a
/// count path, results of unknown count). A non-2xx answer (or a 2xx one without the target's count) is a server error, a timed-out transfer a timeout, anything
/// else (refused, reset) a transport failure. The server's own work is not visible from here, so
/// the recorder judges wasted work from the client's side; the server's `/metrics` has its side.
public final class HTTPSearchBackend: LiveSearchBackend {
    /// False: only the server knows its side, so wasted work is judged from the client's.
    public let reportsBackendWork = false

    private struct Pending {
        var completion: @Sendable (LiveSearchOutcome) -> Void
    }

    private let target: HTTPSearchTarget
    private let timeoutNanos: UInt64?
    /// Completions waiting for their transfer, by the client's request id.
    private final class PendingTable: Sendable {
        let entries = Locked<[UInt64: Pending]>([:])
    }

    private let pending = PendingTable()
    /// Transfer ids, unique for this client: several runs (strategies) may share one backend,
    /// and their (typist, request) numbers repeat.
    private let nextTransfer = Atomic<UInt64>(1)
    private let client: HTTPLoadClient

    /// - Parameters:
    ///   - maxConnections: connections the client keeps open at most (reused between requests).
    ///   - timeout: per-request timeout (`nil`: the client's default, 10 s).
    ///   - headers: extra request headers, `Name: value` each.
    ///   - caFile: PEM bundle of the certificate authorities to trust for `https://`.
    ///   - compressed: ask for compressed responses and decode them.
    ///   - client: which HTTP client sends the requests (`auto`: the plain one for `http://`).
    /// - Throws: ``SetupError`` for a timeout not above zero or a client that cannot reach the
    ///   target; the client's start errors.
    public init(target: HTTPSearchTarget, maxConnections: Int = 1024, timeout: Duration? = nil,
                headers: [String] = [], caFile: String? = nil, compressed: Bool = false, client: HTTPClientChoice = .auto) throws {
        if let timeout, timeout <= .zero {
            throw SetupError(description: "timeout: expected a duration above 0, found \(timeout)")
        }
        self.target = target
        self.timeoutNanos = timeout.map { UInt64($0.wholeNanoseconds) }
        let pending = pending
        if client == .plain, let refusal = HTTPClientChoice.plainRefusal(url: target.template.template) { throw SetupError(description: refusal) }
        var configuration = target.clientConfiguration(maxConnections: maxConnections, client: client)
        configuration.headers = headers
        if target.body != nil, !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
            configuration.headers.append("Content-Type: application/json")
        }
        configuration.caFile = caFile
        configuration.acceptCompressed = compressed
        let expectsCount = target.countPath != nil
        self.client = try HTTPLoadClient(configuration: configuration) { completion in
            guard let entry = pending.entries.withLock({ $0.removeValue(forKey: completion.id) }) else { return }
            entry.completion(HTTPSearchBackend.outcome(of: completion, expectsCount: expectsCount))
        }
    }

    /// Sends `request` as an HTTP search on the shared client; `completion` is called exactly once,
    /// with the failure's ``ErrorCause`` when it fails.
    public func start(_ request: LiveSearchRequest, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) -> any LiveSearchTicket {
        let id = nextTransfer.wrappingAdd(1, ordering: .relaxed).oldValue
        pending.entries.withLock { $0[id] = Pending(completion: completion) }
        let url = target.url(query: request.query.text, scope: request.query.scope, tokens: request.query.tokens)
        let body = target.body(query: request.query.text, scope: request.query.scope, tokens: request.query.tokens)
        client.submit(id: id, url: url, body: body, intendedNanos: request.intendedNanos, timeoutNanos: timeoutNanos)
        return CancelTicket { [client] in client.abort(id: id) }
    }

    /// Stops the HTTP client and closes its connections.
    public func shutdown() {
        client.shutdown()
    }

    /// `expectsCount`: the target names a count path, so a 2xx answer without a count there is
    /// not an answer the search field could show (`count_missing`).
    static func outcome(of completion: HTTPCompletion, expectsCount: Bool = false) -> LiveSearchOutcome {
        let result: LiveSearchOutcome.Result
        var cause: ErrorCause?
        switch completion.outcome {
        case let .response(status, _, count, _):
            if (200..<300).contains(status), expectsCount, count == nil {
                result = .failed(.serverError)
                cause = .countMissing
            } else if (200..<300).contains(status) {
                // No count path: the answer counts as results whose number is unknown, not as 0.
                result = .results(count: expectsCount ? count : nil)
            } else {
                result = .failed(.serverError)
                cause = .httpStatus(status)
            }
        case .cancelled:
            result = .failed(.cancelled)
        case .timedOut:
            result = .failed(.timeout)
            cause = .timeout
        case .failed:
            result = .failed(.transport)
            cause = completion.cause ?? .transport
        }
        return LiveSearchOutcome(result: result, startedNanos: completion.startedNanos, cause: cause)
    }
}
