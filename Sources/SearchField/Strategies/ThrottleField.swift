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
public struct ThrottleField: SearchFieldStrategy, SwitchToLatestField {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    /// The open throttle window, if any.
    private var window: TimerID?
    /// The latest value seen during the window, emitted when it closes.
    private var trailing: QueryIdentity?
    var pipeline: SwitchToLatest
    var display = DisplayTracker()
    private var ids = IDSource()

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.throttle.defaultConfiguration) {
        self.configuration = configuration
        pipeline = SwitchToLatest(cacheCapacity: configuration.cacheCapacity)
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        route(event, into: &effects)
    }

    /// Leading: a change outside a window emits at once and opens one; inside, it waits as the
    /// trailing value.
    mutating func inputChanged(_ event: SearchEvent, into effects: inout [SearchEffect]) -> Bool {
        guard input.absorb(event) == true, let query = configuration.identity(of: input) else { return true }
        if window == nil {
            pipeline.emit(query, ids: &ids, into: &effects)
            openWindow(into: &effects)
        } else {
            trailing = query
        }
        return true
    }

    /// Trailing: the window closes and emits the latest value seen during it, opening the next.
    mutating func timerFired(_ timer: TimerID, into effects: inout [SearchEffect]) -> Bool {
        guard timer == window else { return false }
        window = nil
        if let query = trailing {
            trailing = nil
            pipeline.emit(query, ids: &ids, into: &effects)
            openWindow(into: &effects)
        }
        return true
    }

    private mutating func openWindow(into effects: inout [SearchEffect]) {
        window = ids.schedule(after: configuration.debounceNanos, for: .throttle, into: &effects)
    }
}
