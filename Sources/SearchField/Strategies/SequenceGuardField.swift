/// `sequence-guard` — Algolia InstantSearch's model: a request per keystroke, none cancelled, and
/// a response older than the last one applied is dropped:
///
/// ```js
/// helper.on('change', () => helper.search());   // every state change searches
/// // in the helper: if (queryId < lastResponseQueryId) return; // stale, drop it
/// // status becomes 'stalled' after stalledSearchDelay (200 ms) without an answer
/// ```
///
/// No stale overwrite ever, but every keystroke costs a request and the intermediate results
/// flash by as they come in. Previous results stay on screen, with the stalled indicator when
/// the newest request is slow.
public struct SequenceGuardField: SearchFieldStrategy, RoutedField {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    /// Queries of the requests that may still be applied.
    private var inFlight = RequestBook()
    private var latestSent: RequestID = 0
    private var lastApplied: RequestID = 0
    private var stalledTimer: TimerID?
    private var stalled = false
    private var shown = ShownContent.nothing
    private var lastQuery: QueryIdentity?
    private var cache: ClientCache
    private var display = DisplayTracker()
    private var ids = IDSource()

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.sequenceGuard.defaultConfiguration) {
        self.configuration = configuration
        cache = ClientCache(capacity: configuration.cacheCapacity)
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        route(event, into: &effects)
    }

    mutating func inputChanged(_ event: SearchEvent, into effects: inout [SearchEffect]) -> Bool {
        if input.absorb(event) == true { search(into: &effects) }
        return true
    }

    /// The stalled indicator's delay is over.
    mutating func timerFired(_ timer: TimerID, into effects: inout [SearchEffect]) -> Bool {
        guard timer == stalledTimer else { return false }
        stalledTimer = nil
        stalled = true
        return true
    }

    /// Applied unless an answer to a newer request already was.
    mutating func responseArrived(_ id: RequestID, _ summary: ResultSummary, into effects: inout [SearchEffect]) -> Bool {
        guard let query = inFlight.remove(id), id > lastApplied else {
            effects.append(.discard(id))
            return false
        }
        lastApplied = id
        shown = cache.applied(id, query, summary, into: &effects)
        if id == latestSent { settle(into: &effects) }
        return true
    }

    /// Shown as an error only when it is the newest request's, and not a cancellation.
    mutating func requestFailed(_ id: RequestID, _ reason: FailureReason, into effects: inout [SearchEffect]) -> Bool {
        guard let query = inFlight.remove(id), id > lastApplied else { return false }
        if reason != .cancelled, id == latestSent {
            lastApplied = id
            shown = .failed(id, query, into: &effects)
            settle(into: &effects)
        }
        return true
    }

    /// Every state change searches (from the cache when it holds the query).
    private mutating func search(into effects: inout [SearchEffect]) {
        let query = configuration.identity(of: input)
        guard query != lastQuery else { return }
        lastQuery = query
        guard let query else {
            lastApplied = latestSent
            shown = .nothing
            settle(into: &effects)
            return
        }
        if let hit = cache.hit(query, into: &effects) {
            let id = ids.request()
            latestSent = id
            lastApplied = id
            shown = hit
            settle(into: &effects)
            return
        }
        let id = ids.send(query, into: &effects)
        latestSent = id
        inFlight.insert(id, query)
        if let timer = stalledTimer { effects.append(.cancelTimer(timer)) }
        stalledTimer = nil
        if let delay = configuration.stalledDelayNanos {
            stalledTimer = ids.schedule(after: delay, for: .stalled, into: &effects)
        }
    }

    /// The newest request is answered: no more stalled indicator.
    private mutating func settle(into effects: inout [SearchEffect]) {
        if let timer = stalledTimer { effects.append(.cancelTimer(timer)) }
        stalledTimer = nil
        stalled = false
    }

    mutating func render(into effects: inout [SearchEffect]) {
        let waiting = latestSent > lastApplied
        let state: DisplayState = if stalled && waiting {
            .stalled
        } else if shown == .nothing && waiting {
            .loading
        } else {
            shown.display
        }
        display.show(state, into: &effects)
    }
}
