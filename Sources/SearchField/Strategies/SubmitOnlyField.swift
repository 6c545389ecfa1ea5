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
    private var inFlight: (id: RequestID, query: QueryIdentity)?
    private var shown = ShownContent.nothing
    private var cache: ClientCache
    private var display = DisplayTracker()
    private var ids = IDSource()

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.submitOnly.defaultConfiguration) {
        self.configuration = configuration
        cache = ClientCache(capacity: configuration.cacheCapacity)
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        switch event {
        case let .textChanged(text, _), let .fieldTextSet(text):
            input.text = text
            return
        case let .scopeChanged(scope):
            input.scope = scope
            return
        case let .tokensChanged(tokens):
            input.tokens = tokens
            return
        case .timerFired:
            return
        case .submitted:
            guard let query = configuration.normalizer.identity(text: input.text, scope: input.scope, tokens: input.tokens) else { return }
            if let inFlight { effects.append(.cancelRequest(inFlight.id)) }
            inFlight = nil
            if let hit = cache.lookup(query) {
                effects.append(.commit(query, cached: true))
                shown = .answer(query, hit.request, hit.summary)
            } else {
                let id = ids.request()
                effects.append(.commit(query, cached: false))
                effects.append(.sendRequest(id, query))
                inFlight = (id, query)
            }
        case .responseArrived, .requestFailed:
            guard SwitchToLatest.settle(event, inFlight: &inFlight, shown: &shown, cache: &cache, into: &effects) else { return }
        }
        display.show(inFlight != nil ? .loading : shown.display, into: &effects)
    }
}
