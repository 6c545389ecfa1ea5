import FieldRuntime
import TypestormMetrics
import SearchField
import Typists

/// One typist's search field in a live run: the app's UI thread.
///
/// The actor serializes the field's events as a main thread would: keystrokes, fired timers and
/// answers are handled one at a time by the field's `FieldHost` (the same host the virtual
/// runner uses), and what it records is handed to the run's recorder in order after each step.
/// The actor itself only owns the real clock's timers, the backend's tickets and the UI thread's
/// busy state.
actor LiveField<Strategy: SearchFieldStrategy> {
    let slot: Int
    private let shared: LiveRunShared
    private var host: FieldHost<Strategy, any LiveSearchTicket>
    private var context: FieldHostContext
    private var actions: LiveFieldActions<Strategy>
    private var records = RecordBuffer()
    /// `local-filter` runs on the UI thread: while it runs, keystrokes wait.
    private var heldKeystrokes: [CheckedContinuation<Void, Never>] = []
    private var reportedQuiet = false

    init(slot: Int, strategy: Strategy, shared: LiveRunShared) {
        self.slot = slot
        self.shared = shared
        host = FieldHost(strategy: strategy)
        context = FieldHostContext(configuration: strategy.configuration)
        actions = LiveFieldActions(slot: slot, shared: shared)
    }

    // MARK: Input

    func type(_ action: TypingEvent.Action, intendedAt intended: Int64) async {
        if actions.field == nil { actions.field = self }
        while actions.uiBusy {
            await withCheckedContinuation { heldKeystrokes.append($0) }
        }
        if case .edit = action { shared.monitor.keystrokes.add(1, ordering: .relaxed) }
        host.type(action, intendedAt: intended, typist: slot, at: shared.now(), context: &context, recorder: &records, runner: &actions)
        flush()
        checkQuiet()
    }

    func endSession() {
        host.endSession(typist: slot, at: shared.now(), recorder: &records)
        flush()
        checkQuiet()
    }

    // MARK: Runner reports

    fileprivate func timerFired(_ id: TimerID, deadline: Int64) {
        guard actions.timers.removeValue(forKey: id) != nil else { return }
        host.timerFired(id, deadline: deadline, typist: slot, at: shared.now(), context: &context, recorder: &records, runner: &actions)
        flush()
        checkQuiet()
    }

    fileprivate func completed(_ id: RequestID, local: Bool, _ outcome: LiveSearchOutcome) {
        let now = shared.now()
        shared.monitor.requestsFinished.add(1, ordering: .relaxed)
        if case let .failed(reason) = outcome.result, reason != .cancelled { shared.monitor.errors.add(1, ordering: .relaxed) }
        if shared.backend.reportsBackendWork {
            let work = outcome.backendWork ?? BackendWork(queueNs: 0, serviceNs: 0)
            host.backendStopped(id, work: work, typist: slot, at: now, recorder: &records)
        }
        // The request left when the client library got round to it: the lag after the instant
        // the strategy asked, which latency counts from (no coordinated omission).
        let lag = outcome.startedNanos == 0 ? nil : shared.runTime(ofNanos: outcome.startedNanos) - actions.intended(id)
        actions.forget(id)
        host.requestFinished(id, outcome.result, scheduleLag: lag, typist: slot, at: now, context: &context, recorder: &records, runner: &actions)
        flush()
        if case .failed = outcome.result, let cause = outcome.errorCause {
            // The failure's cause refines the class `workStopped` recorded.
            shared.record { $0.recordError(cause, typist: slot, at: now) }
        }
        if local {
            actions.uiBusy = false
            let held = heldKeystrokes
            heldKeystrokes.removeAll()
            held.forEach { $0.resume() }
        }
        checkQuiet()
    }

    /// Hands this step's records to the run's recorder (dropped once the run is closed: the
    /// recorder already counted that work as unfinished).
    private func flush() {
        guard !records.isEmpty else { return }
        shared.record { records.flush(into: &$0) }
        if !records.isEmpty { records = RecordBuffer() }
    }

    private func checkQuiet() {
        guard host.isQuiet, !reportedQuiet else { return }
        reportedQuiet = true
        shared.quiet.arrive()
    }

    /// After a drain timeout: cancels what is still open. Returns whether anything was.
    func abandonOutstandingWork() -> Bool {
        host.abandonOpenWork(typist: slot, at: shared.now(), runner: &actions)
    }
}

/// What a live field's host asks of the real world: timers on the real clock, requests to the
/// run's backend.
struct LiveFieldActions<Strategy: SearchFieldStrategy>: FieldRunner {
    typealias Handle = any LiveSearchTicket

    let slot: Int
    let shared: LiveRunShared
    /// Set by the field before its first step; the field owns these actions, so the reference
    /// is weak to avoid a cycle.
    weak var field: LiveField<Strategy>?
    var timers: [TimerID: Task<Void, Never>] = [:]
    /// When the strategy asked for each open request (run time), for schedule lag.
    private var intendedTimes: [RequestID: Int64] = [:]
    var uiBusy = false

    init(slot: Int, shared: LiveRunShared) {
        self.slot = slot
        self.shared = shared
    }

    mutating func scheduleTimer(_ id: TimerID, at deadline: Int64, typist: Int) {
        let field = field
        timers[id] = Task { [shared] in
            let wait = deadline - shared.now()
            if wait > 0 {
                do { try await Task.sleep(for: .nanoseconds(wait)) } catch { return }
            }
            await field?.timerFired(id, deadline: deadline)
        }
    }

    mutating func cancelTimer(_ id: TimerID, typist: Int) {
        timers.removeValue(forKey: id)?.cancel()
    }

    mutating func startRequest(_ id: RequestID, query: QueryIdentity, local: Bool, typist: Int, at time: Int64) -> any LiveSearchTicket {
        if local { uiBusy = true }
        shared.monitor.requestsStarted.add(1, ordering: .relaxed)
        intendedTimes[id] = time
        let field = field
        let request = LiveSearchRequest(typist: slot, id: id, query: query, local: local, intendedNanos: shared.nanos(atRunTime: time))
        return shared.backend.start(request) { outcome in
            Task { await field?.completed(id, local: local, outcome) }
        }
    }

    func cancelRequest(_ handle: any LiveSearchTicket, id: RequestID, typist: Int, at time: Int64) {
        handle.cancel()
    }

    func intended(_ id: RequestID) -> Int64 {
        intendedTimes[id] ?? 0
    }

    mutating func forget(_ id: RequestID) {
        intendedTimes.removeValue(forKey: id)
    }
}
