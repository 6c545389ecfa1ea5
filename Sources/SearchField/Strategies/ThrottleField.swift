/// `throttle` — leading and trailing throttle at the interval, then switch to the latest:
///
/// ```js
/// input$.pipe(throttleTime(300, asyncScheduler, { leading: true, trailing: true }),
///             switchMap(q => search(q)))
/// ```
///
/// The first change of a burst searches at once, then at most one search per interval (the
/// latest value at the end of each window). The request rate is bounded; in a fast burst the
/// results lag behind the text. Each new search cancels the one in flight.
public struct ThrottleField: SearchFieldStrategy {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    /// The open throttle window, if any.
    private var window: TimerID?
    /// The latest value seen during the window, emitted when it closes.
    private var trailing: QueryIdentity?
    private var inFlight: (id: RequestID, query: QueryIdentity)?
    private var shown = ShownContent.nothing
    private var cache: ClientCache
    private var display = DisplayTracker()
    private var ids = IDSource()

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.throttle.defaultConfiguration) {
        self.configuration = configuration
        cache = ClientCache(capacity: configuration.cacheCapacity)
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        switch event {
        case .textChanged, .fieldTextSet, .scopeChanged, .tokensChanged:
            if input.absorb(event) == true { inputChanged(into: &effects) }
        case .submitted:
            return
        case let .timerFired(timer):
            guard timer == window else { return }
            window = nil
            if let query = trailing {
                trailing = nil
                emit(query, into: &effects)
                openWindow(into: &effects)
            }
        case .responseArrived, .requestFailed:
            guard SwitchToLatest.settle(event, inFlight: &inFlight, shown: &shown, cache: &cache, into: &effects) else { return }
        }
        display.show(shown.display, into: &effects)
    }

    private mutating func inputChanged(into effects: inout [SearchEffect]) {
        guard let query = configuration.normalizer.identity(text: input.text, scope: input.scope, tokens: input.tokens) else { return }
        if window == nil {
            emit(query, into: &effects)
            openWindow(into: &effects)
        } else {
            trailing = query
        }
    }

    private mutating func openWindow(into effects: inout [SearchEffect]) {
        let timer = ids.timer()
        effects.append(.scheduleTimer(timer, delay: configuration.debounce, purpose: .throttle))
        window = timer
    }

    /// `switchMap`: the new search replaces the one in flight.
    private mutating func emit(_ query: QueryIdentity, into effects: inout [SearchEffect]) {
        if let inFlight { effects.append(.cancelRequest(inFlight.id)) }
        inFlight = nil
        if let hit = cache.lookup(query) {
            effects.append(.commit(query, cached: true))
            shown = .answer(query, hit.request, hit.summary)
            return
        }
        let id = ids.request()
        effects.append(.commit(query, cached: false))
        effects.append(.sendRequest(id, query))
        inFlight = (id, query)
    }
}
