/// `submit-only` — Apple's "Performing a search operation": "you can also wait until someone
/// submits the query before performing the search":
///
/// ```swift
/// .searchable(text: $model.searchText, tokens: $model.tokens) { … }
/// .onSubmit(of: .search) { model.search() }
/// ```
///
/// One request per submit, none while typing; the results of the last submitted query stay on
/// screen (so the text and the results disagree until the next Return). A new submit cancels the
/// one in flight.
///
/// Terminal staleness is therefore high by design (about 70 % of settles, with the simple
/// typing model and with the Typists populations alike): every pause of a second or more before
/// Return is a settle whose query has no results on screen, as is a query never submitted. A
/// settle after Return is fresh.
public struct SubmitOnlyField: SearchFieldStrategy {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    private var pipeline: SwitchToLatest
    private var display = DisplayTracker()
    private var ids = IDSource()

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.submitOnly.defaultConfiguration) {
        self.configuration = configuration
        pipeline = SwitchToLatest(cacheCapacity: configuration.cacheCapacity)
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        switch event {
        case .textChanged, .fieldTextSet, .scopeChanged, .tokensChanged:
            _ = input.absorb(event)
            return
        case .timerFired:
            return
        case .submitted:
            guard let query = configuration.identity(of: input) else { return }
            pipeline.emit(query, ids: &ids, into: &effects)
        case .responseArrived, .requestFailed:
            guard pipeline.settle(event, into: &effects) else { return }
        }
        display.show(pipeline.inFlight != nil ? .loading : pipeline.shown.display, into: &effects)
    }
}
