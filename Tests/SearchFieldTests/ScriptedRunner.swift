import FieldRuntime
import SearchField
import TypestormMetrics
import Typists

/// A tiny runner for timelines, driving the strategy through `FieldHost` as every runner does:
/// a scripted backend answers each request after a latency chosen per query text, timers fire
/// exactly on time, and every effect is logged with its time.
///
/// Cancellation: `.honoured` — the runner reports `cancelled` at once and the response never
/// arrives; `.ignored` — nothing notices, the response arrives as if not cancelled.
struct ScriptedRunner<S: SearchFieldStrategy> {
    enum CancelMode { case honoured, ignored }

    var latency: (QueryIdentity) -> Int64
    var resultCount: (QueryIdentity) -> Int = { $0.text.count }
    var failure: (QueryIdentity) -> FailureReason? = { _ in nil }
    var cancelMode = CancelMode.honoured
    private var host: FieldHost<S, RequestID>
    private var context: FieldHostContext
    private var world = World()
    private var recorder = Recorder(typists: 1, expectsBackend: false, settleIntervalNanos: 1_000_000_000)

    /// The strategy, in the state the run left it.
    var strategy: S { host.strategy }
    /// The field's input as the typist left it.
    var field: FieldInput { host.input }
    /// Every effect the strategy returned, with its time.
    var log: [(time: Int64, effect: SearchEffect)] { world.log.entries }

    init(_ strategy: S, latency: @escaping (QueryIdentity) -> Int64) {
        host = FieldHost(strategy: strategy)
        context = FieldHostContext(configuration: strategy.configuration)
        self.latency = latency
    }

    /// Types `text` at `ms` milliseconds.
    static func type(_ ms: Int64, _ text: String, composing: Bool = false) -> (Int64, SearchEvent) {
        (ms * 1_000_000, .textChanged(text, composing: composing))
    }

    /// Plays `inputs` (the typist's events: text, scope, token changes, submit) and everything
    /// they cause, up to `end`.
    mutating func run(_ inputs: [(Int64, SearchEvent)], until end: Int64 = 60_000_000_000) {
        for (time, event) in inputs { world.push(time, .typing(Self.action(event))) }
        world.answer = { [latency, resultCount, failure] query in
            (latency(query), failure(query).map(RequestResult.failed) ?? .results(count: resultCount(query)))
        }
        world.honoursCancels = cancelMode == .honoured
        while let next = world.pop(), next.time <= end {
            switch next.report {
            case let .typing(action):
                host.type(action, intendedAt: next.time, typist: 0, at: next.time, context: &context, recorder: &recorder, runner: &world)
            case let .timer(id):
                host.timerFired(id, deadline: next.time, typist: 0, at: next.time, context: &context, recorder: &recorder, runner: &world)
            case let .finished(id, result):
                host.requestFinished(id, result, scheduleLag: 0, typist: 0, at: next.time, context: &context, recorder: &recorder, runner: &world)
            }
        }
    }

    /// The typing action a test's event stands for (a composing edit is a Hangul jamo key).
    static func action(_ event: SearchEvent) -> TypingEvent.Action {
        switch event {
        case let .textChanged(text, composing): .edit(key: composing ? "ㅎ" : "a", text: text)
        case let .scopeChanged(scope): .scope(scope)
        case let .tokensChanged(tokens): .tokens(tokens)
        case .submitted: .submit
        default: preconditionFailure("\(event) is not something a typist does")
        }
    }

    /// The runner's side: its agenda, the scripted backend and the log.
    struct World: FieldRunner {
        enum Report {
            case typing(TypingEvent.Action)
            case timer(TimerID)
            case finished(RequestID, RequestResult)
        }

        var answer: (QueryIdentity) -> (latency: Int64, result: RequestResult) = { _ in (0, .results(count: 0)) }
        var honoursCancels = true
        /// Every effect, as the host shows it to the runner (`observe`).
        final class Log {
            var entries: [(time: Int64, effect: SearchEffect)] = []
        }

        let log = Log()
        private var queue: [(time: Int64, seq: Int, report: Report)] = []
        private var seq = 0
        private var cancelled: Set<RequestID> = []

        mutating func push(_ time: Int64, _ report: Report) {
            seq += 1
            queue.append((time, seq, report))
        }

        /// The earliest report (first pushed among equal times); a cancelled request's answer
        /// never arrives.
        mutating func pop() -> (time: Int64, report: Report)? {
            while let index = queue.indices.min(by: { (queue[$0].time, queue[$0].seq) < (queue[$1].time, queue[$1].seq) }) {
                let next = queue.remove(at: index)
                if case let .finished(id, result) = next.report, result != .failed(.cancelled), cancelled.contains(id) { continue }
                return (next.time, next.report)
            }
            return nil
        }

        mutating func scheduleTimer(_ id: TimerID, at deadline: Int64, typist: Int) { push(deadline, .timer(id)) }

        mutating func cancelTimer(_ id: TimerID, typist: Int) {}

        mutating func startRequest(_ id: RequestID, query: QueryIdentity, local: Bool, typist: Int, at time: Int64) -> RequestID {
            let (latency, result) = answer(query)
            push(time + latency, .finished(id, result))
            return id
        }

        mutating func cancelRequest(_ handle: RequestID, id: RequestID, typist: Int, at time: Int64) {
            guard honoursCancels else { return }
            cancelled.insert(id)
            push(time, .finished(id, .failed(.cancelled)))
        }

        func observe(_ entry: TimelineEntry, typist: Int, at time: Int64) {
            if case let .effect(effect) = entry { log.entries.append((time, effect)) }
        }
    }

    /// Display states in order, with their times in milliseconds.
    var displays: [String] {
        log.compactMap { entry in
            guard case let .display(state) = entry.effect else { return nil }
            return "\(entry.time / 1_000_000) \(Self.short(state))"
        }
    }

    /// Requests sent, as "ms #id text".
    var requests: [String] {
        log.compactMap { entry in
            guard case let .sendRequest(id, query) = entry.effect else { return nil }
            return "\(entry.time / 1_000_000) #\(id) \(query.text)"
        }
    }

    var cancels: [String] {
        log.compactMap { entry in
            switch entry.effect {
            case let .cancelRequest(id): "\(entry.time / 1_000_000) request #\(id)"
            case let .cancelTimer(id): "\(entry.time / 1_000_000) timer #\(id)"
            default: nil
            }
        }
    }

    var applies: [String] {
        log.compactMap { entry in
            switch entry.effect {
            case let .apply(id, query, kind): "\(entry.time / 1_000_000) #\(id) \(query.text) \(kind.rawValue)"
            case let .discard(id): "\(entry.time / 1_000_000) #\(id) discarded"
            default: nil
            }
        }
    }

    static func short(_ state: DisplayState) -> String {
        switch state {
        case .idle: "idle"
        case .loading: "loading"
        case .stalled: "stalled"
        case let .results(query, request): "results(\(query.text) #\(request))"
        case let .empty(query): "empty(\(query.text))"
        case let .error(query): "error(\(query.text))"
        }
    }
}

/// Milliseconds to nanoseconds.
func ms(_ value: Int64) -> Int64 { value * 1_000_000 }

/// Keystrokes typing `word` one letter every `every` ms from `start` ms.
func typing(_ word: String, from start: Int64 = 0, every: Int64 = 100, prefix: String = "") -> [(Int64, SearchEvent)] {
    var text = prefix
    var events: [(Int64, SearchEvent)] = []
    for (index, character) in word.enumerated() {
        text.append(character)
        events.append((ms(start + Int64(index) * every), .textChanged(text)))
    }
    return events
}
