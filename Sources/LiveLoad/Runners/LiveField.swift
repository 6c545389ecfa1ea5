import Measurement
import SearchField
import Simulation
import Typists

/// One typist's search field in a live run: the app's UI thread.
///
/// The actor serializes the field's events as a main thread would: keystrokes, fired timers and
/// answers are handled one at a time, the strategy's effects are carried out in order, and every
/// event and effect is recorded at the time it was handled (non-decreasing per typist).
actor LiveField {
    private struct TimerEntry {
        var task: Task<Void, Never>
        var debounce: Bool
    }

    private struct OpenRequest {
        var ticket: any LiveSearchTicket
        var local: Bool
    }

    let slot: Int
    private let shared: LiveRunShared
    private var strategy: any SearchFieldStrategy
    private var input = FieldInput()
    private var field = TextFieldModel()
    private var effects: [SearchEffect] = []
    private var timers: [TimerID: TimerEntry] = [:]
    private var requests: [RequestID: OpenRequest] = [:]
    /// `local-filter` runs on the UI thread: while it runs, keystrokes wait.
    private var uiBusy = false
    private var heldKeystrokes: [CheckedContinuation<Void, Never>] = []
    private var sessionOver = false
    private var reportedQuiet = false

    init(slot: Int, strategy: any SearchFieldStrategy, shared: LiveRunShared) {
        self.slot = slot
        self.strategy = strategy
        self.shared = shared
    }

    // MARK: Input

    func type(_ action: TypingEvent.Action, intendedAt intended: Int64) async {
        while uiBusy {
            await withCheckedContinuation { heldKeystrokes.append($0) }
        }
        let now = shared.now()
        let slot = slot
        shared.record { $0.record(.inputLag(max(0, now - intended)), typist: slot, at: now) }
        switch action {
        case let .edit(key, text):
            let composing = Composition.isComposing(key: key)
            field.userEdit(text, composing: composing)
            input.text = text
            recordInput(at: now)
            shared.monitor.keystrokes.add(1, ordering: .relaxed)
            deliver(.textChanged(text, composing: composing), at: now)
        case let .scope(scope):
            input.scope = scope
            recordInput(at: now)
            deliver(.scopeChanged(scope), at: now)
        case let .tokens(tokens):
            input.tokens = tokens
            recordInput(at: now)
            deliver(.tokensChanged(tokens), at: now)
        case .submit:
            shared.record { $0.record(.submit, typist: slot, at: now) }
            deliver(.submitted, at: now)
        case .end:
            endSession()
        }
    }

    func endSession() {
        guard !sessionOver else { return }
        sessionOver = true
        let now = shared.now()
        let slot = slot
        shared.record { $0.record(.sessionEnd, typist: slot, at: now) }
        checkQuiet()
    }

    private func recordInput(at now: Int64) {
        let input = input, configuration = shared.configuration, slot = slot
        shared.record { $0.recordInput(input, configuration: configuration, typist: slot, at: now) }
    }

    // MARK: Strategy

    private func deliver(_ event: SearchEvent, at now: Int64) {
        var batch = effects
        effects = []
        strategy.handle(event, at: now, into: &batch)
        for effect in batch {
            perform(effect, at: now)
        }
        batch.removeAll(keepingCapacity: true)
        effects = batch
    }

    private func perform(_ effect: SearchEffect, at now: Int64) {
        let slot = slot
        switch effect {
        case let .scheduleTimer(id, delay, purpose):
            shared.record { $0.record(effect, typist: slot, at: now) }
            var debounce = false
            if case .debounce = purpose { debounce = true }
            let deadline = now + delay
            let task = Task { [shared] in
                let wait = deadline - shared.now()
                if wait > 0 {
                    do { try await Task.sleep(for: .nanoseconds(wait)) } catch { return }
                }
                self.timerFired(id, deadline: deadline)
            }
            timers[id] = TimerEntry(task: task, debounce: debounce)
        case let .cancelTimer(id):
            guard let entry = timers.removeValue(forKey: id) else { return }
            entry.task.cancel()
            shared.record { $0.record(effect, isDebounceWait: entry.debounce, typist: slot, at: now) }
        case let .sendRequest(id, query):
            shared.record { $0.record(effect, typist: slot, at: now) }
            send(id, query, local: false, at: now)
        case let .runLocally(id, query):
            shared.record { $0.record(effect, typist: slot, at: now) }
            send(id, query, local: true, at: now)
        case let .cancelRequest(id):
            guard let open = requests[id] else { return }
            shared.record { $0.record(effect, typist: slot, at: now) }
            if !open.local { open.ticket.cancel() }
        case let .setFieldText(text):
            let reported = field.programmaticSet(text)
            deliver(.fieldTextSet(reported), at: now)
        case .display, .commit, .apply, .discard, .writeBack:
            shared.record { $0.record(effect, typist: slot, at: now) }
        }
    }

    private func send(_ id: RequestID, _ query: QueryIdentity, local: Bool, at now: Int64) {
        if local { uiBusy = true }
        shared.monitor.requestsStarted.add(1, ordering: .relaxed)
        let request = LiveSearchRequest(typist: slot, id: id, query: query, local: local, intendedNanos: shared.nanos(atRunTime: now))
        let ticket = shared.backend.start(request) { outcome in
            Task { await self.completed(id, outcome) }
        }
        requests[id] = OpenRequest(ticket: ticket, local: local)
    }

    private func timerFired(_ id: TimerID, deadline: Int64) {
        guard let entry = timers.removeValue(forKey: id) else { return }
        let now = shared.now()
        let slot = slot
        let lateness = max(0, now - deadline)
        if entry.debounce {
            shared.record { $0.record(.waitFired(id: id, lateness: lateness), typist: slot, at: now) }
        } else {
            shared.record { $0.record(.timerLateness(lateness), typist: slot, at: now) }
        }
        deliver(.timerFired(id), at: now)
        checkQuiet()
    }

    private func completed(_ id: RequestID, _ outcome: LiveSearchOutcome) {
        guard let open = requests.removeValue(forKey: id) else { return }
        let now = shared.now()
        let slot = slot
        shared.monitor.requestsFinished.add(1, ordering: .relaxed)
        if shared.backend.reportsBackendWork {
            let work = outcome.backendWork ?? BackendWork(queueNs: 0, serviceNs: 0)
            shared.record { $0.record(.backendStopped(id: id, work: work), typist: slot, at: now) }
        }
        switch outcome.result {
        case let .results(count):
            shared.record { $0.record(.workStopped(id: id, reason: .completed), typist: slot, at: now) }
            deliver(.responseArrived(id, ResultSummary(count: count)), at: now)
        case let .failed(reason):
            if reason != .cancelled { shared.monitor.errors.add(1, ordering: .relaxed) }
            if let cause = outcome.errorCause { shared.record { $0.recordError(cause, typist: slot, at: now) } }
            let stop: StopReason = switch reason {
            case .cancelled: .cancelledObserved
            case .serverError: .serverError
            case .timeout: .timeout
            case .transport: .transport
            }
            shared.record { $0.record(.workStopped(id: id, reason: stop), typist: slot, at: now) }
            deliver(.requestFailed(id, reason), at: now)
        }
        if open.local {
            uiBusy = false
            let held = heldKeystrokes
            heldKeystrokes.removeAll()
            held.forEach { $0.resume() }
        }
        checkQuiet()
    }

    private func checkQuiet() {
        guard sessionOver, !reportedQuiet, timers.isEmpty, requests.isEmpty else { return }
        reportedQuiet = true
        shared.quiet.arrive()
    }

    /// After a drain timeout: cancels what is still open. Returns whether anything was.
    func abandonOutstandingWork() -> Bool {
        let open = !timers.isEmpty || !requests.isEmpty
        for entry in timers.values { entry.task.cancel() }
        timers.removeAll()
        for open in requests.values { open.ticket.cancel() }
        return open
    }
}
