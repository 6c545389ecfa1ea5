/// `debounce-switch` — the reactive pipeline:
///
/// ```js
/// input$.pipe(debounceTime(300), distinctUntilChanged(), switchMap(q => search(q)))
/// ```
/// ```swift
/// $query.debounce(for: .milliseconds(300), scheduler: RunLoop.main)
///     .removeDuplicates().map(search).switchToLatest()
/// ```
///
/// The in-flight request is cancelled only when the debounce emits the next query, so an
/// obsolete but in-order result can still arrive and show during the next wait. No loading
/// state: results are replaced when new ones arrive; an error is caught and shown.
///
/// Two more faithful flaws that human typists (the Typists module) bring out:
/// - `distinctUntilChanged` compares raw strings and the pipeline does not trim, so "shoe" and
///   "shoe " (a pause after a space) are both searched: extra fan-out, not a wrong screen (the
///   engine trims, and so does the recorder's view of a query).
/// - With a minimum length (`filter(q => q.length >= n)`), a value below it emits nothing, so a
///   field below the minimum (cleared, backspaced, or the first keys of a new query) keeps the
///   previous query's results on screen where it should be idle: terminal staleness rises with
///   the minimum length (under 1 % at the preset's own 0, 2–5 % at 1, 5–18 % at 4 in the default
///   scenario's populations; docs/benchmarks.md).
public struct DebounceSwitchField: SearchFieldStrategy, SwitchToLatestField {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    private var wait: (timer: TimerID, query: QueryIdentity)?
    private var lastEmitted: QueryIdentity?
    var pipeline: SwitchToLatest
    var display = DisplayTracker()
    private var ids = IDSource()

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.debounceSwitch.defaultConfiguration) {
        self.configuration = configuration
        pipeline = SwitchToLatest(cacheCapacity: configuration.cacheCapacity)
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        route(event, into: &effects)
    }

    /// `debounceTime` then `filter`: every value restarts the wait; a value below the minimum is
    /// then dropped, so nothing replaces what the screen shows.
    mutating func inputChanged(_ event: SearchEvent, into effects: inout [SearchEffect]) -> Bool {
        guard input.absorb(event) == true else { return true }
        if let wait { effects.append(.cancelTimer(wait.timer)) }
        wait = nil
        guard let query = configuration.identity(of: input) else { return true }
        wait = (ids.schedule(after: configuration.debounceNanos, for: .debounce(query), into: &effects), query)
        return true
    }

    /// The wait is over: `distinctUntilChanged`, then the pipeline.
    mutating func timerFired(_ timer: TimerID, into effects: inout [SearchEffect]) -> Bool {
        guard let wait, wait.timer == timer else { return false }
        self.wait = nil
        guard wait.query != lastEmitted else { return false }
        lastEmitted = wait.query
        pipeline.emit(wait.query, ids: &ids, into: &effects)
        return true
    }
}
