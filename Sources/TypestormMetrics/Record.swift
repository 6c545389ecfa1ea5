import SearchField

/// What the screen shows, as the recorder sees it.
public enum DisplayKind: String, Hashable, Sendable {
    case idle, loading, stalled, results, empty, error
}

/// How a unit of backend work ended, from the client's side.
public enum StopReason: String, Hashable, Sendable {
    /// The response came back.
    case completed
    /// The client saw the cancellation take effect (the awaited call threw, the transfer ended).
    case cancelledObserved = "cancelled-observed"
    case serverError = "server-error"
    case timeout
    case transport
}

/// What the backend spent on a request, where the runner knows it.
public struct BackendWork: Hashable, Sendable {
    /// Time spent waiting for a worker.
    public var queueNanos: Int64
    /// Time a worker spent on it (until done or until it noticed the cancellation).
    public var serviceNanos: Int64
    /// Catalog items the backend examined for this request (0 when the backend does not count them).
    public var itemsScanned: Int64

    /// The backend's report for one request: nanoseconds queued and in service, and items scanned.
    public init(queueNanos: Int64, serviceNanos: Int64, itemsScanned: Int64 = 0) {
        self.queueNanos = queueNanos
        self.serviceNanos = serviceNanos
        self.itemsScanned = itemsScanned
    }
}

/// One timestamped fact about one typist's search field (docs/metrics.md, "What the recorder is
/// told"). Time and typist
/// travel next to it (`Recorder.record(_:typist:at:)`).
public enum Record: Hashable, Sendable {
    /// The field's input changed (a key, a paste, a scope or token change). `text` is the raw field
    /// text, IME composition included; `query` the normalized identity the field now asks for,
    /// `nil` below the strategy's minimum length.
    case keystroke(text: String, query: QueryIdentity?)
    case submit
    /// The typist left the field; no more input from this typist.
    case sessionEnd
    /// The strategy decided to search for `query`; `cached`: answered from the client cache.
    case commit(QueryIdentity, cached: Bool)
    /// A debounce wait for `query` started (other timers are not units of work).
    case waitStarted(id: UInt64, query: QueryIdentity)
    /// A debounce wait ran out; `lateness`: how much later than scheduled it fired.
    case waitFired(id: UInt64, lateness: Int64)
    /// A request was sent; `lag`: how much later than the strategy asked the runner sent it,
    /// when known at the start (else a `scheduleLag` record follows once it is).
    case requestStart(id: UInt64, query: QueryIdentity, lag: Int64?)
    /// The client asked to cancel request `id` (or, with `wait: true`, debounce wait `id`).
    case cancelRequested(id: UInt64, wait: Bool)
    /// The client stopped waiting for request `id`.
    case workStopped(id: UInt64, reason: StopReason)
    /// The backend stopped working on request `id` (the record's time is when): after the
    /// client's stop when the server ignored or had not yet seen the cancellation. Runners that
    /// know nothing of the backend never send it (see `Recorder.init(expectsBackend:)`).
    case backendStopped(id: UInt64, work: BackendWork)
    /// The response (or failure) of request `id` was written into the screen's state.
    case apply(id: UInt64, query: QueryIdentity, kind: DisplayKind)
    /// The response of request `id` arrived and the strategy dropped it.
    case discard(id: UInt64)
    /// Request `id` was answered without a result count (an API whose answers carry none where
    /// one was looked for): an empty screen cannot be told from a full one, so the metrics that
    /// need that (false empties) are absent from the run's metrics.
    case countUnknown(id: UInt64)
    case display(DisplayKind, query: QueryIdentity?)
    /// One user change went through a write-back handler (seed 001).
    case writeBack(reentries: Int, runaway: Bool, brokeComposition: Bool)
    /// A timer other than a debounce wait fired late by `lateness`.
    case timerLateness(Int64)
    /// A typist's input was handled `lag` after its intended time (the UI thread was busy, or a
    /// live load generator fell behind).
    case inputLag(Int64)
    /// A request left `lag` after the strategy asked for it (the runner or its client library
    /// was busy): the intended-vs-actual time that keeps latency free of coordinated omission.
    case scheduleLag(Int64)
}
