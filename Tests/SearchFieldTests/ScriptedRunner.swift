import SearchField

/// A tiny runner for timelines: a scripted backend answers each request after a latency chosen
/// per query text, timers fire exactly on time, and every effect is logged with its time.
///
/// Cancellation: `.honoured` — the awaited call throws `cancelled` at once and the response
/// never arrives; `.ignored` — nothing notices, the response arrives as if not cancelled.
struct ScriptedRunner<S: SearchFieldStrategy> {
    enum CancelMode { case honoured, ignored }

    var strategy: S
    var latency: (QueryIdentity) -> Int64
    var resultCount: (QueryIdentity) -> Int = { $0.text.count }
    var failure: (QueryIdentity) -> FailureReason? = { _ in nil }
    var cancelMode = CancelMode.honoured
    var field = TextFieldModel()
    private(set) var log: [(time: Int64, effect: SearchEffect)] = []
    private var queue: [(time: Int64, seq: Int, event: SearchEvent)] = []
    private var seq = 0
    private var cancelledTimers: Set<TimerID> = []
    private var cancelledRequests: Set<RequestID> = []
    private var requestQueries: [RequestID: QueryIdentity] = [:]

    init(_ strategy: S, latency: @escaping (QueryIdentity) -> Int64) {
        self.strategy = strategy
        self.latency = latency
    }

    /// Types `text` at `ms` milliseconds.
    static func type(_ ms: Int64, _ text: String, composing: Bool = false) -> (Int64, SearchEvent) {
        (ms * 1_000_000, .textChanged(text, composing: composing))
    }

    mutating func run(_ inputs: [(Int64, SearchEvent)], until end: Int64 = 60_000_000_000) {
        for (time, event) in inputs { push(time, event) }
        while let next = pop(), next.time <= end {
            if case let .textChanged(text, composing) = next.event { field.userEdit(text, composing: composing) }
            deliver(next.event, at: next.time)
        }
    }

    private mutating func deliver(_ event: SearchEvent, at time: Int64) {
        var effects: [SearchEffect] = []
        strategy.handle(event, at: time, into: &effects)
        for effect in effects {
            log.append((time, effect))
            switch effect {
            case let .scheduleTimer(id, delay, _):
                push(time + delay, .timerFired(id))
            case let .cancelTimer(id):
                cancelledTimers.insert(id)
            case let .sendRequest(id, query), let .runLocally(id, query):
                requestQueries[id] = query
                if let reason = failure(query) {
                    push(time + latency(query), .requestFailed(id, reason))
                } else {
                    push(time + latency(query), .responseArrived(id, ResultSummary(count: resultCount(query))))
                }
            case let .cancelRequest(id):
                if cancelMode == .honoured {
                    cancelledRequests.insert(id)
                    push(time, .requestFailed(id, .cancelled))
                }
            case let .setFieldText(text):
                deliver(.fieldTextSet(field.programmaticSet(text)), at: time)
            default:
                break
            }
        }
    }

    private mutating func push(_ time: Int64, _ event: SearchEvent) {
        seq += 1
        queue.append((time, seq, event))
    }

    private mutating func pop() -> (time: Int64, event: SearchEvent)? {
        while let index = queue.indices.min(by: { (queue[$0].time, queue[$0].seq) < (queue[$1].time, queue[$1].seq) }) {
            let next = queue.remove(at: index)
            switch next.event {
            case let .timerFired(id) where cancelledTimers.contains(id):
                continue
            case let .responseArrived(id, _) where cancelledRequests.contains(id):
                continue
            case let .requestFailed(id, reason) where reason != .cancelled && cancelledRequests.contains(id):
                continue
            default:
                return (next.time, next.event)
            }
        }
        return nil
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
