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
public struct SubmitOnlyField: SearchFieldStrategy, SwitchToLatestField {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    var pipeline: SwitchToLatest
    var display = DisplayTracker()
    private var ids = IDSource()

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.submitOnly.defaultConfiguration) {
        self.configuration = configuration
        pipeline = SwitchToLatest(cacheCapacity: configuration.cacheCapacity)
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        route(event, into: &effects)
    }

    /// Typing only changes the input the next submit searches for.
    mutating func inputChanged(_ event: SearchEvent, into effects: inout [SearchEffect]) -> Bool {
        _ = input.absorb(event)
        return false
    }

    mutating func submitted(into effects: inout [SearchEffect]) -> Bool {
        guard let query = configuration.identity(of: input) else { return false }
        pipeline.emit(query, ids: &ids, into: &effects)
        return true
    }

    /// Loading while the submitted search is in flight, else what its answer put on screen.
    mutating func render(into effects: inout [SearchEffect]) {
        display.show(pipeline.inFlight != nil ? .loading : pipeline.shown.display, into: &effects)
    }
}
