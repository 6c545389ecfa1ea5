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

    /// A worker starts serving a request.
    @inlinable @_specialize(exported: true, where Handle == Int32)
    package mutating func startServing() { busy += 1 }

    /// A worker is done with its request (served, or stopped by a cancellation).
    @inlinable @_specialize(exported: true, where Handle == Int32)
    package mutating func stopServing() { busy -= 1 }


    /// A request arrives: `true` when one of `workers` workers is free for it now (the runner
    /// starts serving it), else it joins the queue (`false`).
    @inlinable @_specialize(exported: true, where Handle == Int32)
    package mutating func admit(_ handle: Handle, workers: Int) -> Bool {
        if busy < workers { return true }
        waiting.append(handle)
        return false
    }

    /// The next waiting request, when one of `workers` workers is free for it; it leaves the
    /// queue (the runner starts it, or skips it if it was dropped while it waited).
    ///
    /// Specialised here for the virtual runner's handles (as are the methods above): its calls
    /// from another module run the generic body, which looked up the queue's generic metadata on
    /// every call.
    @inlinable @_specialize(exported: true, where Handle == Int32)
    package mutating func nextWaiting(workers: Int) -> Handle? {
        busy < workers ? waiting.popFirst() : nil
    }
}

/// Where a request is on the server side of the model, on either clock.
package enum ServerPhase: UInt8, Sendable {
    /// On its way to the server (or lost there).
    case travelling
    /// In its cell's queue, waiting for a worker.
    case queued
    /// A worker is serving it.
    case inService
    /// The server is done with it: served, dropped or stopped.
    case done
}
