import FieldRuntime
import SearchField
import TypestormMetrics

/// The virtual runner's world — its agenda and the modelled network and servers — for a runner
/// that is not a `FieldHost` of a strategy: a field written as ordinary async Swift, driven in
/// virtual time by FieldHarness. It shares everything with `VirtualRunner` (the same agenda,
/// the same draws from (seed, typist, request id), the same server cells), so the same requests
/// get the same latencies, failures and cancellations as a preset's.
package struct ModelledWorld {
    var world: VirtualWorld

    /// What the agenda holds next.
    package enum Step {
        /// The typist's next keystroke is due.
        case typing(typist: Int)
        /// A wake-up the runner scheduled (`scheduleWake`), with its token.
        case wake(token: UInt64)
        /// A request ended as the client sees it.
        case finished(typist: Int, id: RequestID, result: RequestResult)
        /// A network or server step with nothing for the client.
        case internalStep
    }

    package init(backend: BackendModel, seed: UInt64, globalIndices: [Int]) {
        world = VirtualWorld(backend: backend, seed: seed, globalIndices: globalIndices)
    }

    /// Virtual time in nanoseconds: the time of the step taken last. Stored (not read through
    /// `world`), so reading it from another module does not copy the world.
    package private(set) var now: Int64 = 0

    package mutating func scheduleTyping(at time: Int64, typist: Int) {
        world.queue.push(max(time, now), .typing, typist: Int32(typist))
    }

    package mutating func scheduleWake(at time: Int64, token: UInt64) {
        world.queue.push(max(time, now), .timer, typist: 0, payload: token)
    }

    /// Takes the next step off the agenda (nil: nothing left), advancing `now` to its time.
    package mutating func next(recorder: inout Recorder) -> Step? {
        guard let event = world.queue.pop() else { return nil }
        world.now = event.time
        now = event.time
        switch event.kind {
        case .typing: return .typing(typist: Int(event.typist))
        case .timer: return .wake(token: event.payload)
        default:
            guard let step = world.requestEvent(event) else { return .internalStep }
            // The harness's run is this field's host: the backend's side is recorded for it here.
            if let work = step.backendWork {
                recorder.record(.backendStopped(id: step.id, work: work), typist: step.typist, at: world.now)
            }
            guard let result = step.result else { return .internalStep }
            return .finished(typist: step.typist, id: step.id, result: result)
        }
    }

    /// Sends request `id` of `typist` now; returns its handle for `cancel`.
    package mutating func send(_ id: RequestID, query: QueryIdentity, typist: Int) -> Int32 {
        world.send(id, query, typist: typist, local: false)
    }

    /// The client cancels the request: its end is still reported once, as the backend model's
    /// cancellation mode decides.
    package mutating func cancel(_ handle: Int32, typist: Int) {
        world.cancel(handle, typist: typist)
    }
}
