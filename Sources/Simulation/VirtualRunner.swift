import FieldRuntime
import Measurement
import SearchField
import Typists

/// One line of a replay timeline: what a typist did, what the strategy was told, what it asked
/// for, and what the modelled backend did.
public enum TimelineEntry: Sendable {
    case typing(TypingEvent.Action)
    case event(SearchEvent)
    case effect(SearchEffect)
    case backend(String)
}

/// The deterministic discrete-event runner: typists, strategies and a modelled backend in
/// virtual time.
///
/// Events wait in a priority queue ordered by (time, insertion sequence), so the same inputs and
/// seed always replay the same way. Every random draw comes from a generator derived from
/// (seed, global typist index, request id), never from the order in which typists happen to
/// run, and server cells never share state: a run split on cell boundaries and merged equals
/// the whole run.
///
/// Generic over the strategy and session types so that the hot loop is specialized: no
/// existential dispatch per event.
public struct VirtualRunner<Strategy: SearchFieldStrategy, Session: TypistSession> {
    public let backend: BackendModel
    public let seed: UInt64
    public internal(set) var recorder: Recorder
    /// Per typist, in parallel arrays so that the hot path mutates each in place and never
    /// copies a typist's whole state.
    var strategies: [Strategy]
    var sessions: [Session]
    var slots: [Slot]
    /// The normalization the recorder measures staleness against (the strategy's minimum length,
    /// always trimmed, full identity).
    let expected: QueryNormalizer
    /// The strategy's normalizer trims: every identity in its effects is trimmed already.
    let identitiesTrimmed: Bool
    var requests: [SimRequest] = []
    var freeHandles: [Int32] = []
    var cells: [ServerCell]
    var queue: EventQueue
    var effectBuffer: [SearchEffect] = []
    var now: Int64 = 0
    /// Events taken off the queue so far (typing, timers, network and server steps).
    public internal(set) var eventsProcessed = 0
    var observer: ((Int64, Int, TimelineEntry) -> Void)?

    /// What the runner tracks for one typist.
    struct Slot {
        var pending: TypingEvent?
        var input = FieldInput()
        var field = TextFieldModel()
        var timers: [LiveTimer] = []
        var requests: [LiveRequest] = []
        var uiBusyUntil: Int64 = 0
        let cell: Int32
        let globalIndex: UInt64
        var ended = false
    }

    /// - Parameters:
    ///   - sessions: the typists, in order of `globalIndices`.
    ///   - globalIndices: each typist's index in the whole population (its random streams and
    ///     server cell derive from it); defaults to `0..<sessions.count`.
    public init(
        strategy prototype: Strategy, sessions: [Session], globalIndices: [Int]? = nil, backend: BackendModel,
        seed: UInt64, settleInterval: Int64 = 1_000_000_000
    ) {
        let indices = globalIndices ?? Array(sessions.indices)
        precondition(indices.count == sessions.count, "one global index per session")
        self.backend = backend
        self.seed = seed
        recorder = Recorder(typists: sessions.count, expectsBackend: true, settleInterval: settleInterval)
        let perCell = max(1, backend.typistsPerServer)
        let firstCell = (indices.min() ?? 0) / perCell
        let lastCell = (indices.max() ?? 0) / perCell
        cells = Array(repeating: ServerCell(), count: lastCell - firstCell + 1)
        self.sessions = sessions
        strategies = Array(repeating: prototype, count: sessions.count)
        slots = indices.map { index in
            Slot(cell: Int32(index / perCell - firstCell), globalIndex: UInt64(index))
        }
        expected = QueryNormalizer(trims: true, minimumLength: prototype.configuration.normalizer.minimumLength)
        identitiesTrimmed = prototype.configuration.normalizer.trims
        queue = EventQueue(capacity: min(sessions.count, perCell) * 8)
    }

    /// Runs every typist to the end and all outstanding work to completion; returns the recorder
    /// (finished).
    ///
    /// `observer` sees every typing action, event, effect and backend step, for `replay`.
    public mutating func run(observer: ((Int64, Int, TimelineEntry) -> Void)? = nil) -> Recorder {
        self.observer = observer
        var end: Int64 = 0
        var first = 0
        while first < slots.count {
            var last = first + 1
            while last < slots.count, slots[last].cell == slots[first].cell { last += 1 }
            end = max(end, runCell(first..<last))
            first = last
        }
        now = end
        recorder.finish(at: end)
        self.observer = nil
        return recorder
    }

    /// Runs the typists of one server cell to completion and returns the time of its last event.
    ///
    /// Cells share nothing, so running them one after another gives exactly what running them
    /// interleaved would; it keeps the working set (a hundred typists, a small heap) in cache.
    private mutating func runCell(_ typists: Range<Int>) -> Int64 {
        now = 0
        for typist in typists { scheduleNextTyping(typist) }
        while let event = queue.pop() {
            now = event.time
            eventsProcessed += 1
            let typist = Int(event.typist)
            switch event.kind {
            case .typing: typing(typist)
            case .timer: timerFired(typist, TimerID(event.payload))
            default: requestEvent(event)
            }
        }
        return now
    }

    /// Keystrokes processed so far (for throughput figures).
    public var lastEventTime: Int64 { now }

    // MARK: Typing

    private mutating func scheduleNextTyping(_ typist: Int) {
        let next = sessions[typist].next()
        if let at = next?.at {
            queue.push(max(at, now), .typing, typist: Int32(typist))
            // `typing` took the slot's event, so the slot is empty: initialize it in place with
            // the new one (moved, not copied), without running the outlined destroy of the
            // multi-payload `TypingEvent?` on it, which cost more than the rest of this function.
            withUnsafeMutablePointer(to: &slots[typist].pending) { slot in
                assert(slot.pointee == nil, "the pending keystroke was not taken")
                slot.initialize(to: consume next)
            }
        } else if !slots[typist].ended {
            slots[typist].ended = true
            recorder.record(.sessionEnd, typist: typist, at: now)
        }
    }

    private mutating func typing(_ typist: Int) {
        if slots[typist].uiBusyUntil > now {
            if slots[typist].pending != nil { queue.push(slots[typist].uiBusyUntil, .typing, typist: Int32(typist)) }
            return
        }
        // Moved out, not copied: the event's strings are neither retained nor released here.
        guard let typed = slots[typist].pending.take() else { return }
        if now > typed.at { recorder.record(.inputLag(now - typed.at), typist: typist, at: now) }
        observer?(now, typist, .typing(typed.action))
        switch typed.action {
        case let .edit(key, text):
            let composing = Composition.isComposing(key: key)
            slots[typist].field.userEdit(text, composing: composing)
            slots[typist].input.text = text
            recordInput(typist, text: text)
            deliver(typist, .textChanged(text, composing: composing))
        case let .scope(scope):
            slots[typist].input.scope = scope
            recordInput(typist, text: slots[typist].input.text)
            deliver(typist, .scopeChanged(scope))
        case let .tokens(tokens):
            slots[typist].input.tokens = tokens
            recordInput(typist, text: slots[typist].input.text)
            deliver(typist, .tokensChanged(tokens))
        case .submit:
            recorder.record(.submit, typist: typist, at: now)
            deliver(typist, .submitted)
        case .end:
            slots[typist].ended = true
            recorder.record(.sessionEnd, typist: typist, at: now)
            return
        }
        scheduleNextTyping(typist)
    }

    private mutating func recordInput(_ typist: Int, text: String) {
        let input = slots[typist].input
        // `expected` trims, so its identities are trimmed already.
        let query = expected.identity(text: input.text, scope: input.scope, tokens: input.tokens).map { QueryKey.trimmed($0) }
        recorder.keystroke(query, typist: typist, at: now)
    }

    private mutating func timerFired(_ typist: Int, _ id: TimerID) {
        guard let index = slots[typist].timers.firstIndex(where: { $0.id == id }) else { return }
        let timer = slots[typist].timers.remove(at: index)
        if timer.debounce { recorder.waitFired(id: id, lateness: 0, typist: typist, at: now) }
        deliver(typist, .timerFired(id))
    }

    // MARK: Strategy

    mutating func deliver(_ typist: Int, _ event: SearchEvent) {
        var effects = effectBuffer
        effectBuffer = []
        observer?(now, typist, .event(event))
        strategies[typist].handle(event, at: now, into: &effects)
        // Each effect is moved out of the buffer (no copy, one destroy) and its slot refilled
        // with a payload-free effect, which the final `removeAll` drops without touching any
        // reference count. Copying every effect and destroying it twice cost ~8% of a run.
        effects.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for index in 0..<buffer.count {
                let effect = (base + index).move()
                (base + index).initialize(to: .cancelTimer(0))
                observer?(now, typist, .effect(effect))
                perform(effect, typist: typist)
            }
        }
        // Popping payload-free effects is a switch each; `removeAll` would go through the
        // runtime's generic array destroy.
        while !effects.isEmpty { effects.removeLast() }
        effectBuffer = effects
    }

    private mutating func perform(_ effect: SearchEffect, typist: Int) {
        switch effect {
        case let .scheduleTimer(id, delay, purpose):
            recorder.record(effect, identitiesTrimmed: identitiesTrimmed, typist: typist, at: now)
            var debounce = false
            if case .debounce = purpose { debounce = true }
            slots[typist].timers.append(LiveTimer(id: id, debounce: debounce))
            queue.push(now + delay, .timer, typist: Int32(typist), payload: id)
        case let .cancelTimer(id):
            guard let index = slots[typist].timers.firstIndex(where: { $0.id == id }) else { return }
            let debounce = slots[typist].timers.remove(at: index).debounce
            recorder.record(effect, isDebounceWait: debounce, identitiesTrimmed: identitiesTrimmed, typist: typist, at: now)
        case let .sendRequest(id, query):
            recorder.record(effect, identitiesTrimmed: identitiesTrimmed, typist: typist, at: now)
            send(id, query, typist: typist, local: false)
        case let .runLocally(id, query):
            recorder.record(effect, identitiesTrimmed: identitiesTrimmed, typist: typist, at: now)
            send(id, query, typist: typist, local: true)
        case let .cancelRequest(id):
            cancel(id, typist: typist)
        case let .setFieldText(text):
            let reported = slots[typist].field.programmaticSet(text)
            deliver(typist, .fieldTextSet(reported))
        case .display, .commit, .apply, .discard, .writeBack:
            recorder.record(effect, identitiesTrimmed: identitiesTrimmed, typist: typist, at: now)
        }
    }
}

/// A timer the runner will deliver unless cancelled.
struct LiveTimer {
    var id: TimerID
    var debounce: Bool
}

/// A request the client still waits for, and its handle in the request table.
struct LiveRequest {
    var id: RequestID
    var handle: Int32
}
