import FieldRuntime
import TypestormMetrics
import TypestormSystem
import SearchField
import Locking

/// A live backend that follows the scenario's backend model in real time, around the real
/// engine: the live counterpart of the virtual runner's modelled backend.
///
/// Each request travels half its drawn round trip, waits in the FIFO queue of its server cell
/// (typists grouped by global index, `typistsPerServer` to a cell, `workers` each) and is
/// served for its drawn service time, during which the real engine runs the search; the service
/// ends at the later of the two, so the engine's own time is counted in it. The answer travels
/// back the other half. Failures, timeouts and cancellation (honoured after a one-way trip plus
/// the server's check delay, client-only, ignored) follow the model as the virtual runner does.
///
/// Every draw comes from `BackendModel.draw` for (seed, global typist index, request id): the
/// virtual runner makes the same call, so both see the same latencies and failures for the same
/// request; what differs is only when things really happen (timer lateness, scheduling). The
/// answer's size is the model's (`BackendModel.resultCount`), as in virtual time, so an empty
/// answer means the same in both; the engine's own count is not used.
///
/// One instance is one set of server cells: give each strategy its own to give each its own load.
public final class ModelledSearchBackend: LiveSearchBackend {
    /// True: the model reports queue and service time for every request.
    public let reportsBackendWork = true

    private struct Job {
        var request: LiveSearchRequest
        var completion: @Sendable (LiveSearchOutcome) -> Void
        var draw: RequestDraw
        var cell: Int
        var sentAt: UInt64
        var phase = ServerPhase.travelling
        var clientDone = false
        var serverCancelled = false
        var arrivedAt: UInt64 = 0
        var serviceStart: UInt64 = 0
        /// The engine is searching for this request (its ticket, once known, cancels it).
        var engineRunning = false
        var engineTicket: (any LiveSearchTicket)?
        /// The drawn service time ran out while the engine was still searching.
        var engineOverran = false
    }

    private struct State {
        var jobs: [UInt64: Job] = [:]
        var cells: [Int: ServerCell<UInt64>] = [:]
        var nextKey: UInt64 = 1
        var stopping = false
        var engineOverruns = 0
    }

    /// The network and server model requests are served through.
    public let model: BackendModel
    private let seed: UInt64
    private let globalTypists: [Int]
    private let engine: (any LiveSearchBackend)?
    private let timer = DeadlineTimer(name: "typestorm-model-timer")
    private let state = Locked(State())

    /// - Parameters:
    ///   - model: the backend model (the scenario's `backend` block).
    ///   - seed: the scenario's seed, from which every draw derives.
    ///   - globalTypists: each typist slot's index in the whole population (its draws and its
    ///     server cell derive from it, as in virtual time).
    ///   - engine: runs the real search while a request is in service (`nil`: the model alone).
    public init(model: BackendModel, seed: UInt64, globalTypists: [Int], engine: (any LiveSearchBackend)?) {
        self.model = model
        self.seed = seed
        self.globalTypists = globalTypists
        self.engine = engine
    }

    /// How late the model's timed steps ran after their deadlines: what live time adds to the
    /// model (virtual time has none).
    public var timerLateness: Histogram { timer.lateness }

    /// Requests whose engine search outlasted their drawn service time (served for the engine's
    /// time instead).
    public var engineOverruns: Int { state.withLock { $0.engineOverruns } }

    /// Serves `request` through the model: travel, queue, service (around the engine when there is
    /// one) and the draw's failure; `completion` is called exactly once.
    public func start(_ request: LiveSearchRequest, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) -> any LiveSearchTicket {
        let now = MonotonicClock.now()
        let global = request.typist < globalTypists.count ? globalTypists[request.typist] : request.typist
        let draw = model.draw(seed: seed, typist: UInt64(global), request: request.id, queryLength: request.query.text.count)
        let job = Job(request: request, completion: completion, draw: draw, cell: global / max(1, model.typistsPerServer), sentAt: now)
        let key = state.withLock { state -> UInt64? in
            guard !state.stopping else { return nil }
            let key = state.nextKey
            state.nextKey += 1
            state.jobs[key] = job
            return key
        }
        guard let key else {
            completion(LiveSearchOutcome(result: .failed(.transport), startedNanos: now))
            return CancelTicket { [self] in cancel(0) }
        }
        if request.local {
            // `local-filter`: the typist's own UI thread filters in memory; no network, no queue.
            timer.schedule(at: now &+ UInt64(max(0, model.localServiceNanos))) { [self] in localDone(key) }
        } else {
            let arrival = now &+ UInt64(max(0, draw.oneWayNanos))
            timer.schedule(at: arrival) { [self] in arrive(key, at: arrival) }
            if let timeout = model.timeoutNanos {
                timer.schedule(at: now &+ UInt64(max(0, timeout))) { [self] in timedOut(key) }
            }
        }
        return CancelTicket { [self] in cancel(key) }
    }

    /// Stops the model's timer, completes every open request as cancelled, and shuts down the engine
    /// it wraps, if any.
    public func shutdown() {
        timer.stop()
        let open = state.withLock { state -> [Job] in
            state.stopping = true
            let open = state.jobs.values.filter { !$0.clientDone }
            state.jobs.removeAll()
            return Array(open)
        }
        for job in open {
            job.engineTicket?.cancel()
            job.completion(LiveSearchOutcome(result: .failed(.cancelled), startedNanos: job.sentAt))
        }
        engine?.shutdown()
    }

    // MARK: Steps (on the timer's thread, or the caller's for a cancel)

    /// Work the server did on `job` by `now`.
    private static func work(_ job: Job, at now: UInt64) -> BackendWork {
        switch job.phase {
        case .travelling: return BackendWork(queueNanos: 0, serviceNanos: 0)
        case .queued: return BackendWork(queueNanos: Int64(now &- job.arrivedAt), serviceNanos: 0)
        case .inService, .done:
            let queue = job.serviceStart >= job.arrivedAt ? Int64(job.serviceStart - job.arrivedAt) : 0
            return BackendWork(queueNanos: queue, serviceNanos: job.serviceStart > 0 ? Int64(now &- job.serviceStart) : 0)
        }
    }

    /// The server's steps take their times from the model's timeline (`at`: the step's
    /// deadline), not from when the timer thread got to them: a step that ran late delays only
    /// its own delivery, instead of pushing every request queued behind it (with one busy
    /// worker, a fraction of a millisecond per service compounded into hundreds of milliseconds
    /// of queue that virtual time never had).
    private func arrive(_ key: UInt64, at now: UInt64) {
        var startEngine: (UInt64, LiveSearchRequest)?
        state.withLock { state in
            guard var job = state.jobs[key] else { return }
            job.arrivedAt = now
            if job.draw.failure == .transport || job.serverCancelled {
                // Lost on the way (the client hears of it after the other half of the trip), or
                // cancelled before it arrived: the server never works on it.
                job.phase = .done
                state.jobs[key] = job
                if job.draw.failure == .transport, !job.clientDone {
                    scheduleResponse(key, at: now &+ UInt64(max(0, job.draw.oneWayNanos)))
                }
                release(key, &state)
                return
            }
            job.phase = .queued
            state.jobs[key] = job
            if state.cells[job.cell, default: ServerCell()].admit(key, workers: model.workers) {
                startEngine = startService(key, at: now, &state)
            }
        }
        if let (key, request) = startEngine { runEngine(key, request) }
    }

    /// Takes a worker for `key`; returns the search to start on the engine, if any.
    private func startService(_ key: UInt64, at now: UInt64, _ state: inout State) -> (UInt64, LiveSearchRequest)? {
        guard var job = state.jobs[key] else { return nil }
        state.cells[job.cell, default: ServerCell()].startServing()
        job.phase = .inService
        job.serviceStart = max(now, job.arrivedAt)
        job.engineRunning = engine != nil && job.draw.failure == nil
        state.jobs[key] = job
        let end = job.serviceStart &+ UInt64(max(0, job.draw.serviceNanos))
        timer.schedule(at: end) { [self] in serviceTimeUp(key, at: end) }
        return job.engineRunning ? (key, job.request) : nil
    }

    private func runEngine(_ key: UInt64, _ request: LiveSearchRequest) {
        guard let engine else { return }
        let ticket = engine.start(request) { [self] _ in engineFinished(key) }
        let stale = state.withLock { state -> Bool in
            guard let job = state.jobs[key], job.phase == .inService else { return true }
            if job.engineRunning { state.jobs[key]?.engineTicket = ticket }
            return false
        }
        if stale { ticket.cancel() }
    }

    /// The drawn service time is over: the service ends, unless the engine is still searching.
    private func serviceTimeUp(_ key: UInt64, at end: UInt64) {
        let finished = state.withLock { state -> Bool in
            guard var job = state.jobs[key], job.phase == .inService else { return false }
            if job.engineRunning {
                job.engineOverran = true
                state.engineOverruns += 1
                state.jobs[key] = job
                return false
            }
            return true
        }
        if finished { serviceDone(key, at: end) }
    }

    private func engineFinished(_ key: UInt64) {
        let finishNow = state.withLock { state -> Bool in
            guard var job = state.jobs[key], job.phase == .inService else { return false }
            job.engineRunning = false
            job.engineTicket = nil
            state.jobs[key] = job
            return job.engineOverran
        }
        if finishNow {
            let now = MonotonicClock.now()
            timer.schedule(at: now) { [self] in serviceDone(key, at: now) }
        }
    }

    private func serviceDone(_ key: UInt64, at now: UInt64) {
        var starts: [(UInt64, LiveSearchRequest)] = []
        state.withLock { state in
            guard var job = state.jobs[key], job.phase == .inService else { return }
            job.phase = .done
            state.jobs[key] = job
            state.cells[job.cell, default: ServerCell()].stopServing()
            if !job.clientDone {
                scheduleResponse(key, at: now &+ UInt64(max(0, job.draw.oneWayNanos)))
            }
            starts = startQueued(cell: job.cell, at: now, &state)
            release(key, &state)
        }
        for (key, request) in starts { runEngine(key, request) }
    }

    private func startQueued(cell: Int, at now: UInt64, _ state: inout State) -> [(UInt64, LiveSearchRequest)] {
        var starts: [(UInt64, LiveSearchRequest)] = []
        while let next = state.cells[cell, default: ServerCell()].nextWaiting(workers: model.workers) {
            if state.jobs[next]?.phase == .queued, let start = startService(next, at: now, &state) {
                starts.append(start)
            }
        }
        return starts
    }

    private func scheduleResponse(_ key: UInt64, at deadline: UInt64) {
        timer.schedule(at: deadline) { [self] in respond(key, at: deadline) }
    }

    /// The answer reaches the client.
    private func respond(_ key: UInt64, at now: UInt64) {
        let delivery = state.withLock { state -> (Job, LiveSearchOutcome)? in
            guard var job = state.jobs[key], !job.clientDone else { return nil }
            job.clientDone = true
            state.jobs[key] = job
            let work = job.draw.failure == .transport ? BackendWork(queueNanos: 0, serviceNanos: 0)
                : BackendWork(queueNanos: Int64(job.serviceStart &- job.arrivedAt), serviceNanos: Int64(now &- job.serviceStart) - job.draw.oneWayNanos)
            let result: LiveSearchOutcome.Result = switch job.draw.failure {
            case .transport: .failed(.transport)
            case .serverError: .failed(.serverError)
            case nil: .results(count: BackendModel.resultCount(text: job.request.query.text, catalogItems: 1_000_000))
            }
            release(key, &state)
            return (job, LiveSearchOutcome(result: result, startedNanos: job.sentAt, backendWork: work))
        }
        if let (job, outcome) = delivery { job.completion(outcome) }
    }

    private func localDone(_ key: UInt64) {
        let now = MonotonicClock.now()
        let delivery = state.withLock { state -> Job? in
            guard var job = state.jobs[key], !job.clientDone else { return nil }
            job.clientDone = true
            job.phase = .done
            state.jobs[key] = job
            release(key, &state)
            return job
        }
        guard let job = delivery else { return }
        let count = BackendModel.resultCount(text: job.request.query.text, catalogItems: model.localCatalogItems)
        job.completion(LiveSearchOutcome(result: .results(count: count), startedNanos: job.sentAt,
                                         backendWork: BackendWork(queueNanos: 0, serviceNanos: Int64(now &- job.sentAt), itemsScanned: model.localCatalogItems)))
    }

    /// The client stops waiting for `key` (cancel or timeout); with honoured cancellation the
    /// server hears of it a one-way trip plus its check delay later.
    private func clientGivesUp(_ key: UInt64, reason: FailureReason) {
        let now = MonotonicClock.now()
        let delivery = state.withLock { state -> (Job, BackendWork)? in
            guard var job = state.jobs[key], !job.clientDone, !job.request.local else { return nil }
            if reason == .cancelled, case .ignored = model.cancellation { return nil }
            job.clientDone = true
            state.jobs[key] = job
            if case let .honoured(delay) = model.cancellation, job.phase != .done {
                let arrival = now &+ UInt64(max(0, job.draw.oneWayNanos + delay))
                timer.schedule(at: arrival) { [self] in cancelArrives(key, at: arrival) }
            }
            release(key, &state)
            return (job, Self.work(job, at: now))
        }
        if let (job, work) = delivery {
            job.completion(LiveSearchOutcome(result: .failed(reason), startedNanos: job.sentAt, backendWork: work))
        }
    }

    private func cancel(_ key: UInt64) { clientGivesUp(key, reason: .cancelled) }

    private func timedOut(_ key: UInt64) { clientGivesUp(key, reason: .timeout) }

    private func cancelArrives(_ key: UInt64, at now: UInt64) {
        var starts: [(UInt64, LiveSearchRequest)] = []
        var engineTicket: (any LiveSearchTicket)?
        state.withLock { state in
            guard var job = state.jobs[key] else { return }
            job.serverCancelled = true
            switch job.phase {
            case .travelling, .done:
                state.jobs[key] = job
                return
            case .queued:
                job.phase = .done
                state.jobs[key] = job
            case .inService:
                job.phase = .done
                engineTicket = job.engineTicket
                job.engineTicket = nil
                job.engineRunning = false
                state.jobs[key] = job
                state.cells[job.cell, default: ServerCell()].stopServing()
                starts = startQueued(cell: job.cell, at: now, &state)
            }
            release(key, &state)
        }
        engineTicket?.cancel()
        for (key, request) in starts { runEngine(key, request) }
    }

    /// Forgets `key` once neither the client nor the server needs it.
    private func release(_ key: UInt64, _ state: inout State) {
        guard let job = state.jobs[key], job.clientDone, job.phase == .done else { return }
        state.jobs[key] = nil
    }
}
