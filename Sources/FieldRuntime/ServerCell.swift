import TypestormMetrics

/// One modelled server of the backend model: `BackendModel.workers` workers and the FIFO queue
/// (`Deque`) of the requests waiting for one. Typists are grouped into cells by global index
/// (`BackendModel.typistsPerServer` to a cell), so a cell's load is the same whatever runs it.
///
/// The one server cell of the model, on two clocks: the virtual runner serves its requests
/// through it in virtual time, the live modelled backend (`ModelledSearchBackend`) in real time.
/// `Handle` is how the runner names a request (a slot in a table, a key).
package struct ServerCell<Handle> {
    /// Workers serving a request now.
    @usableFromInline package private(set) var busy = 0
    /// Requests waiting for a worker, first come first served.
    @usableFromInline package private(set) var waiting = Deque<Handle>()

    @inlinable package init() {}

    /// Whether one of `workers` workers is free for a request arriving now.
    @inlinable package func hasFreeWorker(of workers: Int) -> Bool { busy < workers }

    /// A worker starts serving a request.
    @inlinable package mutating func startServing() { busy += 1 }

    /// A worker is done with its request (served, or stopped by a cancellation).
    @inlinable package mutating func stopServing() { busy -= 1 }

    /// The request waits for a worker.
    @inlinable package mutating func enqueue(_ handle: Handle) { waiting.append(handle) }

    /// The next waiting request, when one of `workers` workers is free for it; it leaves the
    /// queue (the runner starts it, or skips it if it was dropped while it waited).
    @inlinable package mutating func nextWaiting(workers: Int) -> Handle? {
        busy < workers ? waiting.popFirst() : nil
    }
}
