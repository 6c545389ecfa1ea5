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
    private var pipeline: SwitchToLatest
    private var display = DisplayTracker()
    private var ids = IDSource()

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.throttle.defaultConfiguration) {
        self.configuration = configuration
        pipeline = SwitchToLatest(cacheCapacity: configuration.cacheCapacity)
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
                pipeline.emit(query, ids: &ids, into: &effects)
                openWindow(into: &effects)
            }
        case .responseArrived, .requestFailed:
            guard pipeline.settle(event, into: &effects) else { return }
        }
        display.show(pipeline.shown.display, into: &effects)
    }

    private mutating func inputChanged(into effects: inout [SearchEffect]) {
        guard let query = configuration.identity(of: input) else { return }
        if window == nil {
            pipeline.emit(query, ids: &ids, into: &effects)
            openWindow(into: &effects)
        } else {
            trailing = query
        }
    }

    private mutating func openWindow(into effects: inout [SearchEffect]) {
        window = ids.schedule(after: configuration.debounce, for: .throttle, into: &effects)
    }
}
