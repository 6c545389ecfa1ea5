import FieldRuntime
import Measurement
import SearchField
import Typists

/// Where a request is on the server side.
enum ServerState: UInt8 {
    case travelling, queued, inService, done
}

/// A request in flight in the model, addressed by a reusable handle.
struct SimRequest {
    var typist: Int32 = 0
    var id: RequestID = 0
    /// Bumped when the handle is reused, so stale events for the old request are ignored.
    var generation: UInt32 = 0
    var local = false
    /// The query text's length in characters and UTF-8 bytes, and its stable hash: all the model
    /// needs of it, so a request holds no reference and copies cheaply.
    var characters: Int32 = 0
    var utf8Length: Int32 = 0
    var textHash: UInt64 = 0
    var cell: Int32 = 0
    var oneWay: Int64 = 0
    var arrivedAt: Int64 = 0
    var serviceStart: Int64 = 0
    var serviceNs: Int64 = 0
    var items: Int64 = 0
    var fails: FailureReason?
    var clientDone = false
    var server = ServerState.travelling
    var serverCancel = false
    var scripted = false
    var sentAt: Int64 = 0
    var timeoutScheduled = false
}

/// One server: `workers` workers and a FIFO queue of request handles.
struct ServerCell {
    var busy = 0
    var waiting: [Int32] = []
    var head = 0

    mutating func enqueue(_ handle: Int32) {
        if head > 64, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        waiting.append(handle)
    }

    mutating func dequeue() -> Int32? {
        guard head < waiting.count else { return nil }
        head += 1
        return waiting[head - 1]
    }
}

extension VirtualRunner {
    private func payload(_ handle: Int32) -> UInt64 {
        UInt64(UInt32(handle)) | UInt64(requests[Int(handle)].generation) << 32
    }

    mutating func send(_ id: RequestID, _ query: QueryIdentity, typist: Int, local: Bool) {
        let handle = allocate()
        let cell = slots[typist].cell
        let globalIndex = slots[typist].globalIndex
        var request = requests[Int(handle)]
        request.typist = Int32(typist)
        request.id = id
        request.local = local
        let text = query.text
        request.characters = Int32(truncatingIfNeeded: text.count)
        request.utf8Length = Int32(truncatingIfNeeded: text.utf8.count)
        request.textHash = stableHash(text)
        request.cell = cell
        request.clientDone = false
        request.server = .travelling
        request.serverCancel = false
        request.fails = nil
        request.items = 0
        request.scripted = false
        request.timeoutScheduled = false
        slots[typist].requests.append(LiveRequest(id: id, handle: handle))
        if let scripted = backend.scriptedTime(for: text) {
            request.scripted = true
            request.oneWay = 0
            request.serviceNs = scripted
        } else if local {
            request.oneWay = 0
            request.items = backend.localCatalogItems
            request.serviceNs = Int64(Double(backend.localCatalogItems) * backend.localNanosPerItem)
        } else {
            let draw = backend.draw(seed: seed, typist: globalIndex, request: id, queryLength: Int(request.characters))
            request.oneWay = draw.oneWayNs
            request.serviceNs = draw.serviceNs
            request.items = draw.items
            switch draw.failure {
            case .transport: request.fails = .transport
            case .serverError: request.fails = .serverError
            case nil: break
            }
        }
        requests[Int(handle)] = request
        let tag = payload(handle)
        if local {
            let start = max(now, slots[typist].uiBusyUntil)
            slots[typist].uiBusyUntil = start + request.serviceNs
            requests[Int(handle)].server = .inService
            requests[Int(handle)].arrivedAt = now
            requests[Int(handle)].serviceStart = start
            queue.push(start + request.serviceNs, .localDone, typist: Int32(typist), payload: tag)
            return
        }
        requests[Int(handle)].sentAt = now
        queue.push(now + request.oneWay, .serverArrive, typist: Int32(typist), payload: tag)
        if backend.timeout != nil, request.oneWay * 2 >= backend.timeout! {
            scheduleTimeout(handle)
        }
    }

    /// Timeouts are scheduled only once they can matter (the request waits in a queue, or its
    /// known finish is later than the timeout), which keeps the event heap small: a timeout
    /// event per request would outnumber everything else.
    mutating func scheduleTimeout(_ handle: Int32) {
        guard let timeout = backend.timeout, !requests[Int(handle)].timeoutScheduled else { return }
        requests[Int(handle)].timeoutScheduled = true
        let request = requests[Int(handle)]
        queue.push(request.sentAt + timeout, .timeout, typist: request.typist, payload: payload(handle))
    }

    mutating func cancel(_ id: RequestID, typist: Int) {
        guard let entry = slots[typist].requests.first(where: { $0.id == id }) else { return }
        recorder.record(.cancelRequest(id), typist: typist, at: now)
        let handle = entry.handle
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

    mutating func requestEvent(_ event: ScheduledEvent) {
        let handle = Int32(truncatingIfNeeded: event.payload & 0xFFFF_FFFF)
        guard Int(handle) < requests.count, requests[Int(handle)].generation == UInt32(event.payload >> 32) else { return }
        switch event.kind {
        case .serverArrive: serverArrive(handle)
        case .serviceDone: serviceDone(handle)
        case .cancelArrive: cancelArrive(handle)
        case .responseArrive: responseArrive(handle)
        case .clientCancelled: clientCancelled(handle)
        case .timeout: timeout(handle)
        case .localDone: localDone(handle)
        case .typing, .timer: break
        }
    }

    private mutating func allocate() -> Int32 {
        if let handle = freeHandles.popLast() { return handle }
        requests.append(SimRequest())
        return Int32(requests.count - 1)
    }

    /// Frees the handle once neither the client nor the server needs it.
    private mutating func releaseIfDone(_ handle: Int32) {
        let request = requests[Int(handle)]
        guard request.clientDone, request.server == .done else { return }
        requests[Int(handle)].generation &+= 1
        freeHandles.append(handle)
    }

    /// The client stops tracking request `handle`.
    private mutating func forget(_ handle: Int32) {
        let typist = Int(requests[Int(handle)].typist)
        let id = requests[Int(handle)].id
        if let index = slots[typist].requests.firstIndex(where: { $0.id == id }) {
            slots[typist].requests.remove(at: index)
        }
    }

    private mutating func note(_ typist: Int32, _ text: @autoclosure () -> String) {
        if let observer { observer(now, Int(typist), .backend(text())) }
    }

    private mutating func serverArrive(_ handle: Int32) {
        var request = requests[Int(handle)]
        request.arrivedAt = now
        if request.fails == .transport {
            request.server = .done
            requests[Int(handle)] = request
            backendStopped(handle, queueNs: 0, serviceNs: 0, items: 0)
            if !request.clientDone {
                queue.push(now + request.oneWay, .responseArrive, typist: request.typist, payload: payload(handle))
            }
            return
        }
        if request.serverCancel {
            request.server = .done
            requests[Int(handle)] = request
            note(request.typist, "server drops #\(request.id) (cancelled before it arrived)")
            backendStopped(handle, queueNs: 0, serviceNs: 0, items: 0)
            releaseIfDone(handle)
            return
        }
        request.server = .queued
        requests[Int(handle)] = request
        let cell = Int(request.cell)
        if request.scripted || cells[cell].busy < backend.workers {
            startService(handle)
        } else {
            cells[cell].enqueue(handle)
            scheduleTimeout(handle)
            let waiting = cells[cell].waiting.count - cells[cell].head
            note(request.typist, "server queues #\(request.id) (\(waiting) waiting)")
        }
    }

    private mutating func startService(_ handle: Int32) {
        var request = requests[Int(handle)]
        // The service time was drawn with the rest of the request's draws when it was sent.
        if !request.scripted { cells[Int(request.cell)].busy += 1 }
        request.server = .inService
        request.serviceStart = now
        requests[Int(handle)] = request
        if let timeout = backend.timeout, now + request.serviceNs + request.oneWay > request.sentAt + timeout {
            scheduleTimeout(handle)
        }
        note(request.typist, "server starts #\(request.id) (service \(Self.millis(request.serviceNs)))")
        queue.push(now + request.serviceNs, .serviceDone, typist: request.typist, payload: payload(handle))
    }

    private mutating func serviceDone(_ handle: Int32) {
        let request = requests[Int(handle)]
        guard request.server == .inService else { return }
        requests[Int(handle)].server = .done
        if !request.scripted { cells[Int(request.cell)].busy -= 1 }
        backendStopped(handle, queueNs: request.serviceStart - request.arrivedAt, serviceNs: request.serviceNs, items: request.items)
        note(request.typist, "server finishes #\(request.id)" + (request.clientDone ? " (nobody is waiting)" : ""))
        if !request.clientDone {
            queue.push(now + request.oneWay, .responseArrive, typist: request.typist, payload: payload(handle))
        }
        startQueued(cell: Int(request.cell))
        releaseIfDone(handle)
    }

    private mutating func startQueued(cell: Int) {
        while cells[cell].busy < backend.workers, let next = cells[cell].dequeue() {
            if requests[Int(next)].server == .queued { startService(next) }
        }
    }

    private mutating func cancelArrive(_ handle: Int32) {
        let request = requests[Int(handle)]
        requests[Int(handle)].serverCancel = true
        switch request.server {
        case .travelling, .done:
            return
        case .queued:
            requests[Int(handle)].server = .done
            note(request.typist, "server drops queued #\(request.id)")
            backendStopped(handle, queueNs: now - request.arrivedAt, serviceNs: 0, items: 0)
        case .inService:
            let elapsed = now - request.serviceStart
            let items = request.serviceNs > 0 ? request.items * elapsed / request.serviceNs : 0
            requests[Int(handle)].server = .done
            if !request.scripted { cells[Int(request.cell)].busy -= 1 }
            note(request.typist, "server stops #\(request.id) after \(Self.millis(elapsed))")
            backendStopped(handle, queueNs: request.serviceStart - request.arrivedAt, serviceNs: elapsed, items: items)
            startQueued(cell: Int(request.cell))
        }
        releaseIfDone(handle)
    }

    private mutating func backendStopped(_ handle: Int32, queueNs: Int64, serviceNs: Int64, items: Int64) {
        let request = requests[Int(handle)]
        recorder.record(.backendStopped(id: request.id, work: BackendWork(queueNs: queueNs, serviceNs: serviceNs, itemsScanned: items)),
                        typist: Int(request.typist), at: now)
    }

    private mutating func responseArrive(_ handle: Int32) {
        let request = requests[Int(handle)]
        guard !request.clientDone else { return }
        requests[Int(handle)].clientDone = true
        forget(handle)
        let typist = Int(request.typist)
        if let failure = request.fails {
            recorder.record(.workStopped(id: request.id, reason: failure == .transport ? .transport : .serverError), typist: typist, at: now)
            releaseIfDone(handle)
            deliver(typist, .requestFailed(request.id, failure))
        } else {
            recorder.record(.workStopped(id: request.id, reason: .completed), typist: typist, at: now)
            let count = BackendModel.resultCount(utf8Length: Int(request.utf8Length), hash: request.textHash, catalogItems: 1_000_000)
            releaseIfDone(handle)
            deliver(typist, .responseArrived(request.id, ResultSummary(count: count)))
        }
    }

    private mutating func clientCancelled(_ handle: Int32) {
        let request = requests[Int(handle)]
        forget(handle)
        recorder.record(.workStopped(id: request.id, reason: .cancelledObserved), typist: Int(request.typist), at: now)
        releaseIfDone(handle)
        deliver(Int(request.typist), .requestFailed(request.id, .cancelled))
    }

    private mutating func timeout(_ handle: Int32) {
        let request = requests[Int(handle)]
        guard !request.clientDone else { return }
        requests[Int(handle)].clientDone = true
        forget(handle)
        recorder.record(.workStopped(id: request.id, reason: .timeout), typist: Int(request.typist), at: now)
        if case let .honoured(delay) = backend.cancellation, request.server != .done {
            queue.push(now + request.oneWay + delay, .cancelArrive, typist: request.typist, payload: payload(handle))
        }
        releaseIfDone(handle)
        deliver(Int(request.typist), .requestFailed(request.id, .timeout))
    }

    private mutating func localDone(_ handle: Int32) {
        let request = requests[Int(handle)]
        requests[Int(handle)].clientDone = true
        requests[Int(handle)].server = .done
        forget(handle)
        let typist = Int(request.typist)
        backendStopped(handle, queueNs: request.serviceStart - request.arrivedAt, serviceNs: request.serviceNs, items: request.items)
        recorder.record(.workStopped(id: request.id, reason: .completed), typist: typist, at: now)
        let count = BackendModel.resultCount(utf8Length: Int(request.utf8Length), hash: request.textHash, catalogItems: backend.localCatalogItems)
        releaseIfDone(handle)
        deliver(typist, .responseArrived(request.id, ResultSummary(count: count)))
    }

    static func millis(_ ns: Int64) -> String {
        let value = Double(ns) / 1e6
        return value >= 10 ? "\(Int(value.rounded()))ms" : "\((value * 10).rounded() / 10)ms"
    }
}
