import FieldRuntime
import TypestormMetrics
import SearchField

/// One request of one typist, as a live runner hands it to a backend.
public struct LiveSearchRequest: Sendable {
    /// Typist slot in the runner (0..<typists).
    public var typist: Int
    /// The strategy's request number (increasing per typist).
    public var id: RequestID
    /// What to search for.
    public var query: QueryIdentity
    /// `local-filter`: run in memory on the typist's own "UI thread", blocking it.
    public var local: Bool
    /// When the strategy emitted the send effect, on the monotonic clock (ns).
    public var intendedNanos: UInt64

    /// A request of typist slot `typist`, intended at `intendedNanos` on the monotonic clock.
    public init(typist: Int, id: RequestID, query: QueryIdentity, local: Bool, intendedNanos: UInt64) {
        self.typist = typist
        self.id = id
        self.query = query
        self.local = local
        self.intendedNanos = intendedNanos
    }
}

/// How a live request ended.
public struct LiveSearchOutcome: Sendable {
    /// How it ended: the runner core's `RequestResult`, one vocabulary for every runner.
    public typealias Result = RequestResult

    /// How the request ended: results with a count, or a failure (``FailureReason``).
    public var result: Result
    /// When the request actually left (monotonic ns); later than intended is schedule lag.
    public var startedNanos: UInt64
    /// What the backend spent, where the backend reports it.
    public var backendWork: BackendWork?
    /// Why a failed request failed, where the backend knows more than the class (connection
    /// refused, HTTP 503, DNS); `nil` for successes and cancellations.
    public var cause: ErrorCause?

    /// An outcome; `backendWork` and `cause` are `nil` where the backend does not report them.
    public init(result: Result, startedNanos: UInt64, backendWork: BackendWork? = nil, cause: ErrorCause? = nil) {
        self.result = result
        self.startedNanos = startedNanos
        self.backendWork = backendWork
        self.cause = cause
    }

    /// The cause to record: the backend's, or the failure class's generic one; `nil` when the
    /// request did not fail (a cancellation is not a failure).
    public var errorCause: ErrorCause? {
        guard case let .failed(reason) = result else { return nil }
        switch reason {
        case .cancelled: return nil
        case .serverError: return cause ?? .serverError
        case .timeout: return cause ?? .timeout
        case .transport: return cause ?? .transport
        }
    }
}

/// A request in flight, which the strategy may cancel.
public protocol LiveSearchTicket: Sendable {
    /// Asks the backend to stop. The completion still arrives exactly once: as
    /// `.failed(.cancelled)` when the cancellation took effect, or with the answer if the work
    /// had already finished.
    func cancel()
}

/// A ticket whose cancel is a call: the backend's cancel of the request it names.
final class CancelTicket: LiveSearchTicket {
    private let onCancel: @Sendable () -> Void

    init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    func cancel() { onCancel() }
}

/// What a live runner sends searches to: the filter engine in this process, or an HTTP server.
public protocol LiveSearchBackend: Sendable {
    /// The backend reports queue and service time for every request (in-process), so the
    /// recorder judges wasted work from the backend's side too.
    var reportsBackendWork: Bool { get }

    /// Starts `request`; `completion` is called exactly once, from any thread.
    func start(_ request: LiveSearchRequest, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) -> any LiveSearchTicket

    /// Called once the run is over; releases threads and connections.
    func shutdown()
}
