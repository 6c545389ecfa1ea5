/// `split-state` — seed 000's rules done right, with seeds 001 and 002 applied:
///
/// ```swift
/// @State private var searchText = ""          // raw input, never written back (seed 001)
/// @State private var committedQuery: Query?    // what the results on screen answer
/// .task(id: Query(searchText, scope, tokens)) { // the full identity restarts it (seed 002)
///     guard let query = normalize(searchText) /* trim, count >= 2 */ else { showIdle(); return }
///     guard query != committedQuery else { return }
///     do { try await Task.sleep(for: .milliseconds(300)) } catch { return }
///     let response = try? await search(query) // stalled indicator after 200 ms
///     guard !Task.isCancelled else { return }  // cancellation is never an error
///     committedQuery = query; results = response // commit on success
/// }
/// ```
///
/// Previous results stay visible while the next ones load; idle, loading, stalled, results,
/// empty and error are distinct; a response is applied only if it answers the request the field
/// is waiting for. Submitting skips the rest of the wait. With `restartKey: .text` it becomes
/// seed 002's identity-blind variant; with a cache, a committed identity seen before is shown
/// at once.
public struct SplitStateField: SearchFieldStrategy, RoutedField {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    private var phase = Phase.idle
    /// The identity whose answer is on screen (committed on success).
    private var shown = ShownContent.nothing {
        didSet { shownVersion &+= 1 }
    }
    /// Bumped whenever `shown` is assigned; with the loading mode, all `render` depends on.
    private var shownVersion: UInt32 = 0
    /// What `render` last rendered from: most events (a keystroke during the wait) change
    /// neither, and then the display state need not be built and compared.
    private var rendered: (mode: UInt8, version: UInt32) = (.max, 0)
    private var stalled = false
    private var cache: ClientCache
    private var display = DisplayTracker()
    private var ids = IDSource()

    /// What the field is doing about its current identity.
    private enum Phase: Hashable, Sendable {
        /// Nothing to do: the screen answers the current identity, or the text is too short.
        case idle
        /// The restartable debounce wait before searching for the query.
        case waiting(TimerID, QueryIdentity)
        /// The request is in flight; the stalled timer shows the indicator if it is slow.
        case loading(RequestID, QueryIdentity, stalledTimer: TimerID?)
    }

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.splitState.defaultConfiguration) {
        self.configuration = configuration
        cache = ClientCache(capacity: configuration.cacheCapacity)
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        route(event, into: &effects)
    }

    /// The restart key (the identity, or the text alone) changed: the `.task` restarts.
    @inline(__always)
    mutating func inputChanged(_ event: SearchEvent, into effects: inout [SearchEffect]) -> Bool {
        let restarts = configuration.restartKey == .identity ? input.absorb(event) == true : input.absorbText(event)
        guard restarts else { return false }
        restart(into: &effects)
        return true
    }

    /// Submitting skips the rest of the wait.
    mutating func submitted(into effects: inout [SearchEffect]) -> Bool {
        guard case let .waiting(timer, query) = phase else { return false }
        effects.append(.cancelTimer(timer))
        search(query, into: &effects)
        return true
    }

    /// The wait is over (search), or the request is slow (the stalled indicator).
    @inline(__always)
    mutating func timerFired(_ timer: TimerID, into effects: inout [SearchEffect]) -> Bool {
        switch phase {
        case let .waiting(current, query) where current == timer:
            search(query, into: &effects)
        case let .loading(_, _, stalledTimer) where stalledTimer == timer:
            stalled = true
        default:
            return false
        }
        return true
    }

    /// Committed only when it answers the request the field is waiting for.
    @inline(__always)
    mutating func responseArrived(_ id: RequestID, _ summary: ResultSummary, into effects: inout [SearchEffect]) -> Bool {
        guard case let .loading(current, query, stalledTimer) = phase, current == id else {
            effects.append(.discard(id))
            return false
        }
        if let stalledTimer { effects.append(.cancelTimer(stalledTimer)) }
        shown = cache.applied(id, query, summary, into: &effects)
        phase = .idle
        return true
    }

    /// An error on screen, except for a cancellation, which is never an error.
    mutating func requestFailed(_ id: RequestID, _ reason: FailureReason, into effects: inout [SearchEffect]) -> Bool {
        guard case let .loading(current, query, stalledTimer) = phase, current == id else { return false }
        if let stalledTimer { effects.append(.cancelTimer(stalledTimer)) }
        if reason != .cancelled { shown = .failed(id, query, into: &effects) }
        phase = .idle
        return true
    }

    /// The identity of the wait or request in progress, else of what the screen answers.
    private var target: QueryIdentity? {
        switch phase {
        case let .waiting(_, query), let .loading(_, query, _): query
        case .idle: shown.answeredQuery
        }
    }

    /// Whether `query` is ``target``, compared where the phase and the screen hold it: reading
    /// `target` copies an identity (a reference count per string in it) on every keystroke, and so
    /// does a `switch` over a stored property in a method, which these static functions' borrowed
    /// parameters avoid.
    @inline(__always)
    private static func isTarget(_ query: QueryIdentity?, phase: borrowing Phase, shown: borrowing ShownContent) -> Bool {
        switch phase {
        case let .waiting(_, current), let .loading(_, current, _):
            guard let query else { return false }
            return query == current
        case .idle:
            return screenAnswers(query, shown: shown)
        }
    }

    /// Whether `query` is `shown.answeredQuery`, compared in place.
    private static func screenAnswers(_ query: QueryIdentity?, shown: borrowing ShownContent) -> Bool {
        switch shown {
        case let .results(answered, _, _):
            guard let query else { return false }
            return query == answered
        case .nothing, .error:
            return query == nil
        }
    }

    /// Inlined, as are the other steps an event takes here (the event's own method, `isTarget`,
    /// `cancelPhase`, `search`, `render`): each was a call that moved the field's state in and
    /// out of registers.
    @inline(__always)
    private mutating func restart(into effects: inout [SearchEffect]) {
        var query = configuration.identity(of: input)
        if configuration.restartKey == .text, let target, let text = query?.text, text == target.text {
            query = target
        }
        var showsNothing = false
        if case .nothing = shown { showsNothing = true }
        guard !Self.isTarget(query, phase: phase, shown: shown) || (query == nil && !showsNothing) else { return }
        cancelPhase(into: &effects)
        guard let query else {
            shown = .nothing
            return
        }
        if Self.screenAnswers(query, shown: shown) { return }
        if let hit = cache.hit(query, into: &effects) {
            shown = hit
            return
        }
        phase = .waiting(ids.schedule(after: configuration.debounceNanos, for: .debounce(query), into: &effects), query)
    }

    @inline(__always)
    private mutating func cancelPhase(into effects: inout [SearchEffect]) {
        switch phase {
        case let .waiting(timer, _):
            effects.append(.cancelTimer(timer))
        case let .loading(request, _, stalledTimer):
            effects.append(.cancelRequest(request))
            if let stalledTimer { effects.append(.cancelTimer(stalledTimer)) }
        case .idle:
            break
        }
        phase = .idle
        stalled = false
    }

    @inline(__always)
    private mutating func search(_ query: QueryIdentity, into effects: inout [SearchEffect]) {
        if let hit = cache.hit(query, into: &effects) {
            shown = hit
            phase = .idle
            return
        }
        let id = ids.send(query, into: &effects)
        var stalledTimer: TimerID?
        if let delay = configuration.stalledDelayNanos {
            stalledTimer = ids.schedule(after: delay, for: .stalled, into: &effects)
        }
        phase = .loading(id, query, stalledTimer: stalledTimer)
    }

    @inline(__always)
    mutating func render(into effects: inout [SearchEffect]) {
        // 0: what `shown` holds; 1: loading; 2: stalled.
        var mode: UInt8 = 0
        if case .loading = phase {
            if stalled {
                mode = 2
            } else if case .nothing = shown {
                mode = 1
            }
        }
        guard mode != rendered.mode || shownVersion != rendered.version else { return }
        rendered = (mode, shownVersion)
        let state: DisplayState = switch mode {
        case 2: .stalled
        case 1: .loading
        default: shown.display
        }
        display.show(state, into: &effects)
    }
}

extension ShownContent {
    var query: QueryIdentity? {
        switch self {
        case .nothing: nil
        case let .results(query, _, _), let .error(query): query
        }
    }

    /// The identity whose results (or backend-confirmed emptiness) are on screen; an error does
    /// not answer a query, so typing it again retries.
    var answeredQuery: QueryIdentity? {
        if case let .results(query, _, _) = self { return query }
        return nil
    }
}
