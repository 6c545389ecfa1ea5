import TypestormMetrics
import SearchField
import Typists

/// One line of a timeline: what a typist did, what the strategy was told, what it asked for, and
/// what the backend did (`replay`).
public enum TimelineEntry: Sendable {
    case typing(TypingEvent.Action)
    case event(SearchEvent)
    case effect(SearchEffect)
    case backend(String)
}

/// How a request ended, as a runner tells the host.
public enum RequestResult: Sendable, Equatable {
    /// The backend answered with `count` results (0: its own "no results"); `nil`: it answered
    /// and its count is unknown (an API answer with no count where one was looked for), so
    /// whether the screen is empty cannot be told.
    case results(count: Int?)
    /// The request failed; `.cancelled` means the client saw its cancellation take effect.
    case failed(FailureReason)
}

/// What a runner does on a field's behalf: it owns a clock and a backend, and nothing else.
///
/// The host (`FieldHost`) decides what every typing action, effect and outcome means for the
/// strategy and the metrics; the runner only arms timers, starts and cancels requests, and later
/// reports back through the host (`timerFired`, `requestFinished`).
public protocol FieldRunner {
    /// The runner's name for a request in flight (a slot in a table, a ticket).
    associatedtype Handle

    /// Arms timer `id`: unless cancelled, the runner calls `FieldHost.timerFired` at `deadline`.
    /// A runner may leave a cancelled timer armed: the host ignores timers it no longer holds.
    mutating func scheduleTimer(_ id: TimerID, at deadline: Int64, typist: Int)
    mutating func cancelTimer(_ id: TimerID, typist: Int)
    /// Starts request `id` (`local`: on the field's own UI thread, `local-filter`). The runner
    /// reports its end exactly once through `FieldHost.requestFinished`, never from inside this
    /// call.
    mutating func startRequest(_ id: RequestID, query: QueryIdentity, local: Bool, typist: Int, at time: Int64) -> Handle
    /// Asks for request `id` to stop; its end is still reported exactly once.
    mutating func cancelRequest(_ handle: Handle, id: RequestID, typist: Int, at time: Int64)
    /// Sees every step, for timelines; runners that draw none return at once.
    func observe(_ entry: TimelineEntry, typist: Int, at time: Int64)
}

extension FieldRunner {
    /// Does nothing: runners that draw no timeline need not observe.
    @inlinable @inline(__always)
    public func observe(_ entry: TimelineEntry, typist: Int, at time: Int64) {}
}

/// What every field of one strategy shares: how queries are measured, and a scratch buffer.
public struct FieldHostContext: Sendable {
    /// The normalization staleness is measured against: the strategy's minimum length, always
    /// trimmed, the full identity (`SearchFieldConfiguration.expectedQuery`).
    public let expected: QueryNormalizer
    /// The strategy's normalizer trims, so every identity in its effects is trimmed already and
    /// its recorder key is made without trimming again.
    public let identitiesTrimmed: Bool
    @usableFromInline var effects: [SearchEffect] = []

    /// The context for fields running `configuration`.
    public init(configuration: SearchFieldConfiguration) {
        expected = QueryNormalizer(trims: true, minimumLength: configuration.normalizer.minimumLength)
        identitiesTrimmed = configuration.normalizer.trims
    }
}

/// The one host between a search-field strategy and any runner (virtual time, live in-process,
/// live HTTP, a test's scripted runner): a typist's field, as an app's UI thread holds it.
///
/// It turns typing actions into the field's input and the strategy's events, carries out the
/// strategy's effects (field text, timers and requests through the runner), records every fact
/// the metrics need in the order it happened, and turns a request's outcome into `workStopped`
/// plus the strategy's event. Runners never record what an effect or outcome means, so the
/// numbers of every runner are measurements of the same logic.
///
/// Every call takes the time it happens at on the runner's clock, non-decreasing per typist.
///
/// - Complexity: O(1) per call plus the strategy's work, and O(open timers + open requests)
///   (a handful) for lookups.
public struct FieldHost<Strategy: SearchFieldStrategy, Handle> {
    @usableFromInline var _strategy: Strategy
    @usableFromInline var _input = FieldInput()
    @usableFromInline var _sessionOver = false

    /// The strategy, in the state the events so far left it.
    @inlinable public var strategy: Strategy { _strategy }
    /// The field's input as the typist left it (text, scope, tokens).
    @inlinable public var input: FieldInput { _input }
    /// The typist has left the field.
    @inlinable public var sessionOver: Bool { _sessionOver }
    /// An input-method composition is open in the field (the typist's last key left it open).
    @usableFromInline var composing = false
    /// The text the app wrote into the field since the typist's last edit; `nil`: the field shows
    /// the typist's text (`input.text`). The field's state as ``TextFieldModel`` keeps it, without
    /// a second copy of the typist's text on every keystroke.
    @usableFromInline var written: String? = nil
    /// Timers the strategy armed and has not cancelled, and whether each is a debounce wait.
    @usableFromInline var timers: [OpenTimer] = []
    @usableFromInline var requests: [OpenRequest] = []

    @usableFromInline
    struct OpenTimer {
        @usableFromInline var id: TimerID
        @usableFromInline var debounce: Bool

        @inlinable init(id: TimerID, debounce: Bool) {
            self.id = id
            self.debounce = debounce
        }
    }

    @usableFromInline
    struct OpenRequest {
        @usableFromInline var id: RequestID
        @usableFromInline var local: Bool
        @usableFromInline var handle: Handle

        @inlinable init(id: RequestID, local: Bool, handle: Handle) {
            self.id = id
            self.local = local
            self.handle = handle
        }
    }

    /// A host around `strategy`, in its initial state.
    public init(strategy: Strategy) {
        _strategy = strategy
    }

    /// No session, timer or request is open any more: the field has nothing left to do.
    @inlinable public var isQuiet: Bool { sessionOver && timers.isEmpty && requests.isEmpty }

    /// Whether anything is still open (timers or requests).
    @inlinable public var hasOpenWork: Bool { !timers.isEmpty || !requests.isEmpty }

    // MARK: Typing

    /// The typist's next action, handled at `time`; `intended` is when the typist meant it
    /// (later handling is input lag: a busy UI thread or a saturated load generator).
    @inlinable
    public mutating func type<Sink: RecordSink, Runner: FieldRunner>(
        _ action: TypingEvent.Action, intendedAt intended: Int64, typist: Int, at time: Int64,
        context: inout FieldHostContext, recorder: inout Sink, runner: inout Runner
    ) where Runner.Handle == Handle {
        runner.observe(.typing(action), typist: typist, at: time)
        recorder.record(.inputLag(max(0, time - intended)), typist: typist, at: time)
        switch action {
        case let .edit(key, fieldText):
            let text = fieldText.string
            let composing = Composition.isComposing(key: key)
            self.composing = composing
            if written != nil { written = nil }
            _input.text = text
            recordInput(typist, at: time, context: context, recorder: &recorder)
            deliver(.textChanged(text, composing: composing), typist: typist, at: time, context: &context, recorder: &recorder, runner: &runner)
        case let .scope(scope):
            _input.scope = scope
            recordInput(typist, at: time, context: context, recorder: &recorder)
            deliver(.scopeChanged(scope), typist: typist, at: time, context: &context, recorder: &recorder, runner: &runner)
        case let .tokens(tokens):
            _input.tokens = tokens
            recordInput(typist, at: time, context: context, recorder: &recorder)
            deliver(.tokensChanged(tokens), typist: typist, at: time, context: &context, recorder: &recorder, runner: &runner)
        case .submit:
            recorder.record(.submit, typist: typist, at: time)
            deliver(.submitted, typist: typist, at: time, context: &context, recorder: &recorder, runner: &runner)
        case .end:
            endSession(typist: typist, at: time, recorder: &recorder)
        }
    }

    /// The typist leaves the field (its session ended, or the run stopped typing). Idempotent.
    @inlinable
    public mutating func endSession<Sink: RecordSink>(typist: Int, at time: Int64, recorder: inout Sink) {
        guard !_sessionOver else { return }
        _sessionOver = true
        recorder.record(.sessionEnd, typist: typist, at: time)
    }

    @inlinable
    func recordInput<Sink: RecordSink>(_ typist: Int, at time: Int64, context: FieldHostContext, recorder: inout Sink) {
        // `expected` trims, so its identities are trimmed already: the recorder's key as it is.
        let query = context.expected.identity(text: input.text, scope: input.scope, tokens: input.tokens)
        assert(query.map { QueryNormalizer.trimmed($0.text) == $0.text } ?? true, "the expected query is not trimmed")
        recorder.keystroke(query, typist: typist, at: time)
    }

    // MARK: Runner reports

    /// Timer `id` fired at `time`; `deadline` is when it was due (later is timer lateness). A
    /// timer the strategy cancelled meanwhile is ignored.
    @inlinable
    public mutating func timerFired<Sink: RecordSink, Runner: FieldRunner>(
        _ id: TimerID, deadline: Int64, typist: Int, at time: Int64,
        context: inout FieldHostContext, recorder: inout Sink, runner: inout Runner
    ) where Runner.Handle == Handle {
        guard let index = timers.firstIndex(where: { $0.id == id }) else { return }
        let timer = timers.removeMostlyLast(at: index)
        let lateness = max(0, time - deadline)
        if timer.debounce {
            recorder.waitFired(id: id, lateness: lateness, typist: typist, at: time)
        } else {
            recorder.record(.timerLateness(lateness), typist: typist, at: time)
        }
        deliver(.timerFired(id), typist: typist, at: time, context: &context, recorder: &recorder, runner: &runner)
    }

    /// Request `id` ended at `time` with `result`. `scheduleLag`: how much later than the
    /// strategy asked it the request actually left (`nil` when the runner cannot tell). A request
    /// the host no longer holds (reported twice, or after `abandonOpenWork`) is ignored.
    @inlinable
    public mutating func requestFinished<Sink: RecordSink, Runner: FieldRunner>(
        _ id: RequestID, _ result: RequestResult, scheduleLag: Int64?, typist: Int, at time: Int64,
        context: inout FieldHostContext, recorder: inout Sink, runner: inout Runner
    ) where Runner.Handle == Handle {
        guard let index = requests.firstIndex(where: { $0.id == id }) else { return }
        _ = requests.removeMostlyLast(at: index)
        if let scheduleLag { recorder.record(.scheduleLag(max(0, scheduleLag)), typist: typist, at: time) }
        switch result {
        case let .results(count):
            recorder.record(.workStopped(id: id, reason: .completed), typist: typist, at: time)
            if count == nil { recorder.record(.countUnknown(id: id), typist: typist, at: time) }
            deliver(.responseArrived(id, ResultSummary(count: count)), typist: typist, at: time, context: &context, recorder: &recorder, runner: &runner)
        case let .failed(reason):
            recorder.record(.workStopped(id: id, reason: StopReason(reason)), typist: typist, at: time)
            deliver(.requestFailed(id, reason), typist: typist, at: time, context: &context, recorder: &recorder, runner: &runner)
        }
    }

    /// The backend's side of request `id` ended at `time` (it answered, dropped or stopped the
    /// request), having done `work`: recorded, so a request's work is judged once both the client
    /// and the backend are done with it. A runner whose backend reports its work
    /// (`Recorder.expectsBackend`) calls this once per request, before or after `requestFinished`.
    @inlinable
    public func backendStopped<Sink: RecordSink>(_ id: RequestID, work: BackendWork, typist: Int, at time: Int64, recorder: inout Sink) {
        recorder.record(.backendStopped(id: id, work: work), typist: typist, at: time)
    }

    /// Cancels every open timer and request through the runner and forgets them (the run ended
    /// with work still open; the recorder counts it as unfinished). Returns whether any was open.
    @inlinable
    public mutating func abandonOpenWork<Runner: FieldRunner>(typist: Int, at time: Int64, runner: inout Runner) -> Bool
    where Runner.Handle == Handle {
        let open = hasOpenWork
        for timer in timers { runner.cancelTimer(timer.id, typist: typist) }
        timers.removeAll()
        for request in requests where !request.local { runner.cancelRequest(request.handle, id: request.id, typist: typist, at: time) }
        requests.removeAll()
        return open
    }

    // MARK: Strategy

    @inlinable
    mutating func deliver<Sink: RecordSink, Runner: FieldRunner>(
        _ event: SearchEvent, typist: Int, at time: Int64,
        context: inout FieldHostContext, recorder: inout Sink, runner: inout Runner
    ) where Runner.Handle == Handle {
        // On the end of the context's one buffer, and taken off it again: an effect that delivers
        // again (a write-back) puts its own above the ones still to be performed and takes only
        // those (strategies append to the buffer and never clear it).
        let base = context.effects.count
        runner.observe(.event(event), typist: typist, at: time)
        _strategy.handle(event, at: time, into: &context.effects)
        // Reversed in place by bitwise moves, then taken from the end: each effect is moved out
        // of the buffer and destroyed once, after it was performed. Moving them out from the
        // front needed a placeholder in each emptied slot, and every placeholder cost a destroy
        // of its own through the enum's value witnesses (as `reverse()`'s swaps copy through them).
        if context.effects.count - base > 1 {
            context.effects.withUnsafeMutableBufferPointer { buffer in
                guard let start = buffer.baseAddress else { return }
                var low = start + base, high = start + (buffer.count - 1)
                while low < high {
                    let first = low.move()
                    low.moveInitialize(from: high, count: 1)
                    high.initialize(to: consume first)
                    low += 1
                    high -= 1
                }
            }
        }
        while context.effects.count > base {
            let effect = context.effects.removeLast()
            runner.observe(.effect(effect), typist: typist, at: time)
            perform(effect, typist: typist, at: time, context: &context, recorder: &recorder, runner: &runner)
        }
    }

    /// Inlined into `deliver`'s loop: a call per effect moved the host, the context, the
    /// recorder and the runner in and out of it.
    @inlinable @inline(__always)
    mutating func perform<Sink: RecordSink, Runner: FieldRunner>(
        _ effect: consuming SearchEffect, typist: Int, at time: Int64,
        context: inout FieldHostContext, recorder: inout Sink, runner: inout Runner
    ) where Runner.Handle == Handle {
        let trimmed = context.identitiesTrimmed
        // First what the recorder is told (the effect as a whole, borrowed), then the effect is
        // taken apart, each case binding its payloads. A cancel of something no longer open falls
        // through to the second switch too: returning early left the whole effect to be destroyed
        // through the enum's value witnesses, which cost more than most effects' work.
        switch effect {
        case let .cancelTimer(id):
            if let index = timers.firstIndex(where: { $0.id == id }) {
                let debounce = timers.removeMostlyLast(at: index).debounce
                recorder.record(effect, isDebounceWait: debounce, identitiesTrimmed: trimmed, typist: typist, at: time)
                runner.cancelTimer(id, typist: typist)
            }
        case let .cancelRequest(id):
            if let open = requests.first(where: { $0.id == id }) {
                recorder.record(effect, identitiesTrimmed: trimmed, typist: typist, at: time)
                // Work on the UI thread cannot be interrupted: it runs to its end.
                if !open.local { runner.cancelRequest(open.handle, id: id, typist: typist, at: time) }
            }
        case .setFieldText:
            break
        case .scheduleTimer, .sendRequest, .runLocally, .display, .commit, .apply, .discard, .writeBack:
            recorder.record(effect, identitiesTrimmed: trimmed, typist: typist, at: time)
        }
        switch consume effect {
        case let .scheduleTimer(id, delay, purpose):
            var debounce = false
            if case .debounce = purpose { debounce = true }
            timers.append(OpenTimer(id: id, debounce: debounce))
            runner.scheduleTimer(id, at: time + delay, typist: typist)
        case let .sendRequest(id, query):
            let handle = runner.startRequest(id, query: query, local: false, typist: typist, at: time)
            requests.append(OpenRequest(id: id, local: false, handle: handle))
        case let .runLocally(id, query):
            let handle = runner.startRequest(id, query: query, local: true, typist: typist, at: time)
            requests.append(OpenRequest(id: id, local: true, handle: handle))
        case let .setFieldText(text):
            // `TextFieldModel.programmaticSet`: an open composition puts its text straight back.
            let reported: String
            if composing {
                reported = written ?? _input.text
            } else {
                written = text
                reported = text
            }
            deliver(.fieldTextSet(reported), typist: typist, at: time, context: &context, recorder: &recorder, runner: &runner)
        case .display, .commit, .apply, .cancelTimer, .cancelRequest, .discard, .writeBack:
            break
        }
    }
}

extension StopReason {
    /// How a request that failed with `reason` stopped, as the recorder counts it.
    @inlinable
    public init(_ reason: FailureReason) {
        self = switch reason {
        case .cancelled: .cancelledObserved
        case .serverError: .serverError
        case .timeout: .timeout
        case .transport: .transport
        }
    }
}
