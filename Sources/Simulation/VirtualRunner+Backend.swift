import FieldRuntime
import TypestormMetrics
import SearchField
import Typists

/// A request in flight in the model, addressed by a reusable handle.
struct SimRequest {
    var typist: Int32 = 0
    var id: RequestID = 0
    /// Bumped when the handle is reused, so stale events for the old request are ignored.
    var generation: UInt32 = 0
    var local = false
    /// The query text's length in UTF-8 bytes and its stable hash: all the model needs of it once
    /// it is sent, so a request holds no reference and copies cheaply.
    var utf8Length: Int32 = 0
    var textHash: UInt64 = 0
    var cell: Int32 = 0
    var oneWay: Int64 = 0
    var arrivedAt: Int64 = 0
    var serviceStart: Int64 = 0
    var serviceNanos: Int64 = 0
    var items: Int64 = 0
    var fails: FailureReason?
    var clientDone = false
    var server = ServerPhase.travelling
    var serverCancel = false
    var scripted = false
    var sentAt: Int64 = 0
    var timeoutScheduled = false
}

/// What one network or server step meant for request `id`, for the host to record and act on:
/// the backend stopped working on it (`backendWork`, what it did), the client saw it end
/// (`result`), or both (local work).
struct RequestStep {
    var typist: Int
    var id: RequestID
    var backendWork: BackendWork? = nil
    var result: RequestResult? = nil
}

/// Per typist, what the virtual clock tracks beside the field: the UI thread's busy time
/// (local-filter), and where its requests go.
struct TypistSlot {
    var uiBusyUntil: Int64 = 0
    /// The timer the typist's field scheduled last, and when it is due: the one a cancel
    /// nearly always names (a new keystroke cancels the wait it replaces).
    var lastTimer: TimerID = .max
    var lastTimerDeadline: Int64 = 0
    let cell: Int32
    let globalIndex: UInt64
}

/// The virtual runner's world: its clock, its event queue and the modelled network and servers.
/// It carries out what a `FieldHost` asks (`FieldRunner`) and reports requests' ends back.
struct VirtualWorld: FieldRunner {
    typealias Handle = Int32

    let backend: BackendModel
    /// What `send` asks of `backend` for every request, answered once: calling a method on the
    /// model copies it (a few hundred bytes), and these answers never change.
    private let hasScripts: Bool
    private let serviceReadsLength: Bool
    let seed: UInt64
    /// Each typist's index in the whole population, by runner-local index.
    let globalIndices: [Int]
    var now: Int64 = 0
    // The queue and the tables are the run's own memory, not values: `beginRun` makes them
    // anew, so a copy of the world (of the runner holding it) never shares them with a run.
    private(set) var queue: EventQueue
    private(set) var slots: WorldTable<TypistSlot>
    private(set) var requests = WorldTable<SimRequest>()
    private(set) var freeHandles = WorldTable<Int32>()
    private(set) var cells: WorldTable<ServerCell<Int32>>
    var observer: ((Int64, Int, TimelineEntry) -> Void)?
    /// The latest deadline of a timer taken off the queue since the cell started (see
    /// `cancelTimer`).
    var removedUntil: Int64 = 0

    init(backend: BackendModel, seed: UInt64, globalIndices indices: [Int]) {
        self.backend = backend
        hasScripts = !backend.scriptedNanos.isEmpty || backend.scriptedDefaultNanos != nil
        serviceReadsLength = backend.serviceDependsOnQueryLength
        self.seed = seed
        globalIndices = indices
        (queue, slots, cells) = Self.makeState(backend: backend, globalIndices: indices)
    }

    /// A new queue, the typists' slots and the server cells, as a run starts.
    private static func makeState(
        backend: BackendModel, globalIndices indices: [Int]
    ) -> (EventQueue, WorldTable<TypistSlot>, WorldTable<ServerCell<Int32>>) {
        let perCell = max(1, backend.typistsPerServer)
        let firstCell = (indices.min() ?? 0) / perCell
        let lastCell = (indices.max() ?? 0) / perCell
        let cells = WorldTable(Array(repeating: ServerCell<Int32>(), count: lastCell - firstCell + 1))
        let slots = WorldTable(indices.map { index in
            TypistSlot(cell: Int32(index / perCell - firstCell), globalIndex: UInt64(index))
        })
        return (EventQueue(capacity: min(indices.count, perCell) * 8), slots, cells)
    }

    /// Starts the world over: time 0, nothing queued, no request, idle servers. A runner calls
    /// it as its run begins, so that each run (of the runner or of a copy of it) has its own
    /// queue and tables.
    mutating func beginRun() {
        now = 0
        removedUntil = 0
        (queue, slots, cells) = Self.makeState(backend: backend, globalIndices: globalIndices)
        requests = WorldTable()
        freeHandles = WorldTable()
    }

    func observe(_ entry: TimelineEntry, typist: Int, at time: Int64) {
        if let observer { observer(time, typist, entry) }
    }

    mutating func scheduleTimer(_ id: TimerID, at deadline: Int64, typist: Int) {
        queue.push(deadline, .timer, typist: Int32(typist), payload: id)
        slots[typist].lastTimer = id
        slots[typist].lastTimerDeadline = deadline
    }

    /// The typist's last timer leaves the queue (a debounce wait a keystroke replaced: about a
    /// third of the waits); another one stays queued and the host ignores it when it pops. The
    /// latest removed deadline still counts as the cell's end (`removedUntil`), where popping
    /// the timer would have put the clock.
    mutating func cancelTimer(_ id: TimerID, typist: Int) {
        let deadline = slots[typist].lastTimerDeadline
        // Before now it has popped already: every event due earlier has.
        guard slots[typist].lastTimer == id, deadline >= now else { return }
        if queue.remove(deadline, .timer, typist: Int32(typist), payload: id) {
            removedUntil = max(removedUntil, deadline)
        }
    }

    mutating func startRequest(_ id: RequestID, query: QueryIdentity, local: Bool, typist: Int, at time: Int64) -> Int32 {
        send(id, query, typist: typist, local: local)
    }

    mutating func cancelRequest(_ handle: Int32, id: RequestID, typist: Int, at time: Int64) {
        cancel(handle, typist: typist)
    }

    private func payload(_ handle: Int32) -> UInt64 {
        UInt64(UInt32(handle)) | UInt64(requests[Int(handle)].generation) << 32
    }

    mutating func send(_ id: RequestID, _ query: QueryIdentity, typist: Int, local: Bool) -> Int32 {
        let handle = allocate()
        let cell = slots[typist].cell
        let globalIndex = slots[typist].globalIndex
        // Made whole (every other field at its start value) rather than read, changed and written
        // back: the handle's old request is only needed for its generation.
        var request = SimRequest()
        request.generation = requests[Int(handle)].generation
        request.typist = Int32(typist)
        request.id = id
        request.local = local
        let text = query.text
        request.utf8Length = Int32(truncatingIfNeeded: text.utf8.count)
        request.textHash = stableHash(text)
        request.cell = cell
        if hasScripts, let scripted = backend.scriptedTime(for: text) {
            request.scripted = true
            request.oneWay = 0
            request.serviceNanos = scripted
        } else if local {
            request.oneWay = 0
            request.items = backend.localCatalogItems
            request.serviceNanos = backend.localServiceNanos
        } else {
            // The length in characters (grapheme breaking, unless the text is plain ASCII) only
            // when the service time depends on it.
            let length = serviceReadsLength ? Self.characterCount(text) : 0
            let draw = backend.draw(seed: seed, typist: globalIndex, request: id, queryLength: length)
            request.oneWay = draw.oneWayNanos
            request.serviceNanos = draw.serviceNanos
            request.items = draw.items
            switch draw.failure {
            case .transport: request.fails = .transport
            case .serverError: request.fails = .serverError
            case nil: break
            }
        }
        let tag = UInt64(UInt32(handle)) | UInt64(request.generation) << 32
        if local {
            let start = max(now, slots[typist].uiBusyUntil)
            slots[typist].uiBusyUntil = start + request.serviceNanos
            request.server = .inService
            request.arrivedAt = now
            request.serviceStart = start
            requests[Int(handle)] = request
            queue.push(start + request.serviceNanos, .localDone, typist: Int32(typist), payload: tag)
            return handle
        }
        request.sentAt = now
        requests[Int(handle)] = request
        queue.push(now + request.oneWay, .serverArrive, typist: Int32(typist), payload: tag)
        if backend.timeoutNanos != nil, request.oneWay * 2 >= backend.timeoutNanos! {
            scheduleTimeout(handle)
        }
        return handle
    }

    /// Timeouts are scheduled only once they can matter (the request waits in a queue, or its
    /// known finish is later than the timeout), which keeps the event heap small: a timeout
    /// event per request would outnumber everything else.
    mutating func scheduleTimeout(_ handle: Int32) {
        guard let timeout = backend.timeoutNanos, !requests[Int(handle)].timeoutScheduled else { return }
        requests[Int(handle)].timeoutScheduled = true
        let request = requests[Int(handle)]
        queue.push(request.sentAt + timeout, .timeout, typist: request.typist, payload: payload(handle))
    }

    mutating func cancel(_ handle: Int32, typist: Int) {
        let request = requests[Int(handle)]
        guard !request.local, !request.clientDone else { return }
        switch backend.cancellation {
        case let .honoured(delay):
            requests[Int(handle)].clientDone = true
            queue.push(now, .clientCancelled, typist: Int32(typist), payload: payload(handle))
            if request.server != .done {
                queue.push(now + request.oneWay + delay, .cancelArrive, typist: Int32(typist), payload: payload(handle))
            }
        case .clientOnly:
            requests[Int(handle)].clientDone = true
            queue.push(now, .clientCancelled, typist: Int32(typist), payload: payload(handle))
        case .ignored:
            break
        }
    }

    /// Carries out one network or server step; returns what it meant for its request (the
    /// backend's side ended, the client saw the end), if anything. The world records nothing:
    /// the host records what the step returns.
    mutating func requestEvent(_ event: ScheduledEvent) -> RequestStep? {
        let handle = Int32(truncatingIfNeeded: event.payload & 0xFFFF_FFFF)
        guard Int(handle) < requests.count, requests[Int(handle)].generation == UInt32(event.payload >> 32) else { return nil }
        switch event.kind {
        case .serverArrive: return serverArrive(handle)
        case .serviceDone: return serviceDone(handle)
        case .cancelArrive: return cancelArrive(handle)
        case .responseArrive: return responseArrive(handle)
        case .clientCancelled: return clientCancelled(handle)
        case .timeout: return timeout(handle)
        case .localDone: return localDone(handle)
        case .typing, .timer: return nil
        }
    }

    private mutating func allocate() -> Int32 {
        if let handle = freeHandles.popLast() { return handle }
        requests.append(SimRequest())
        return Int32(requests.count - 1)
    }

    /// Frees the handle once neither the client nor the server needs it.
    private mutating func releaseIfDone(_ handle: Int32) {
        // Two fields read, not the whole request copied (it is over a hundred bytes).
        guard requests[Int(handle)].clientDone, requests[Int(handle)].server == .done else { return }
        requests[Int(handle)].generation &+= 1
        freeHandles.append(handle)
    }

    private func note(_ typist: Int32, _ text: @autoclosure () -> String) {
        if let observer { observer(now, Int(typist), .backend(text())) }
    }

    private mutating func serverArrive(_ handle: Int32) -> RequestStep? {
        var request = requests[Int(handle)]
        request.arrivedAt = now
        if request.fails == .transport {
            request.server = .done
            requests[Int(handle)] = request
            if !request.clientDone {
                queue.push(now + request.oneWay, .responseArrive, typist: request.typist, payload: payload(handle))
            }
            return backendStopped(handle, queueNanos: 0, serviceNanos: 0, items: 0)
        }
        if request.serverCancel {
            request.server = .done
            requests[Int(handle)] = request
            note(request.typist, "server drops #\(request.id) (cancelled before it arrived)")
            let step = backendStopped(handle, queueNanos: 0, serviceNanos: 0, items: 0)
            releaseIfDone(handle)
            return step
        }
        request.server = .queued
        requests[Int(handle)] = request
        let cell = Int(request.cell)
        if request.scripted || cells[cell].admit(handle, workers: backend.workers) {
            startService(handle)
        } else {
            scheduleTimeout(handle)
            let waiting = cells[cell].waiting.count
            note(request.typist, "server queues #\(request.id) (\(waiting) waiting)")
        }
        return nil
    }

    private mutating func startService(_ handle: Int32) {
        var request = requests[Int(handle)]
        // The service time was drawn with the rest of the request's draws when it was sent.
        if !request.scripted { cells[Int(request.cell)].startServing() }
        request.server = .inService
        request.serviceStart = now
        requests[Int(handle)] = request
        if let timeout = backend.timeoutNanos, now + request.serviceNanos + request.oneWay > request.sentAt + timeout {
            scheduleTimeout(handle)
        }
        note(request.typist, "server starts #\(request.id) (service \(Self.millis(request.serviceNanos)))")
        queue.push(now + request.serviceNanos, .serviceDone, typist: request.typist, payload: payload(handle))
    }

    private mutating func serviceDone(_ handle: Int32) -> RequestStep? {
        let request = requests[Int(handle)]
        guard request.server == .inService else { return nil }
        requests[Int(handle)].server = .done
        if !request.scripted { cells[Int(request.cell)].stopServing() }
        let step = backendStopped(handle, queueNanos: request.serviceStart - request.arrivedAt, serviceNanos: request.serviceNanos, items: request.items)
        note(request.typist, "server finishes #\(request.id)" + (request.clientDone ? " (nobody is waiting)" : ""))
        if !request.clientDone {
            queue.push(now + request.oneWay, .responseArrive, typist: request.typist, payload: payload(handle))
        }
        startQueued(cell: Int(request.cell))
        releaseIfDone(handle)
        return step
    }

    private mutating func startQueued(cell: Int) {
        while let next = cells[cell].nextWaiting(workers: backend.workers) {
            if requests[Int(next)].server == .queued { startService(next) }
        }
    }

    private mutating func cancelArrive(_ handle: Int32) -> RequestStep? {
        let request = requests[Int(handle)]
        requests[Int(handle)].serverCancel = true
        let step: RequestStep
        switch request.server {
        case .travelling, .done:
            return nil
        case .queued:
            requests[Int(handle)].server = .done
            note(request.typist, "server drops queued #\(request.id)")
            step = backendStopped(handle, queueNanos: now - request.arrivedAt, serviceNanos: 0, items: 0)
        case .inService:
            let elapsed = now - request.serviceStart
            let items = request.serviceNanos > 0 ? request.items * elapsed / request.serviceNanos : 0
            requests[Int(handle)].server = .done
            if !request.scripted { cells[Int(request.cell)].stopServing() }
            note(request.typist, "server stops #\(request.id) after \(Self.millis(elapsed))")
            step = backendStopped(handle, queueNanos: request.serviceStart - request.arrivedAt, serviceNanos: elapsed, items: items)
            startQueued(cell: Int(request.cell))
        }
        releaseIfDone(handle)
        return step
    }

    /// The backend's side of the request ended now, having done this work.
    private func backendStopped(_ handle: Int32, queueNanos: Int64, serviceNanos: Int64, items: Int64) -> RequestStep {
        RequestStep(typist: Int(requests[Int(handle)].typist), id: requests[Int(handle)].id,
                           backendWork: BackendWork(queueNanos: queueNanos, serviceNanos: serviceNanos, itemsScanned: items), result: nil)
    }

    private mutating func responseArrive(_ handle: Int32) -> RequestStep? {
        let request = requests[Int(handle)]
        guard !request.clientDone else { return nil }
        requests[Int(handle)].clientDone = true
        releaseIfDone(handle)
        let result: RequestResult
        if let failure = request.fails {
            result = .failed(failure)
        } else {
            result = .results(count: BackendModel.resultCount(utf8Length: Int(request.utf8Length), hash: request.textHash, catalogItems: 1_000_000))
        }
        return RequestStep(typist: Int(request.typist), id: request.id, result: result)
    }

    private mutating func clientCancelled(_ handle: Int32) -> RequestStep? {
        let request = requests[Int(handle)]
        releaseIfDone(handle)
        return RequestStep(typist: Int(request.typist), id: request.id, result: .failed(.cancelled))
    }

    private mutating func timeout(_ handle: Int32) -> RequestStep? {
        let request = requests[Int(handle)]
        guard !request.clientDone else { return nil }
        requests[Int(handle)].clientDone = true
        if case let .honoured(delay) = backend.cancellation, request.server != .done {
            queue.push(now + request.oneWay + delay, .cancelArrive, typist: request.typist, payload: payload(handle))
        }
        releaseIfDone(handle)
        return RequestStep(typist: Int(request.typist), id: request.id, result: .failed(.timeout))
    }

    private mutating func localDone(_ handle: Int32) -> RequestStep? {
        let request = requests[Int(handle)]
        requests[Int(handle)].clientDone = true
        requests[Int(handle)].server = .done
        var step = backendStopped(handle, queueNanos: request.serviceStart - request.arrivedAt, serviceNanos: request.serviceNanos, items: request.items)
        step.result = .results(count: BackendModel.resultCount(utf8Length: Int(request.utf8Length), hash: request.textHash,
                                                               catalogItems: backend.localCatalogItems))
        releaseIfDone(handle)
        return step
    }

    /// `text.count` without grapheme breaking when it cannot matter: in ASCII without a carriage
    /// return (CR LF is one character) every byte is one character.
    static func characterCount(_ text: String) -> Int {
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 < 0x80 && $0 != 0x0D } }
        return plain == true ? text.utf8.count : text.count
    }

    static func millis(_ ns: Int64) -> String {
        let value = Double(ns) / 1e6
        return value >= 10 ? "\(Int(value.rounded()))ms" : "\((value * 10).rounded() / 10)ms"
    }
}
