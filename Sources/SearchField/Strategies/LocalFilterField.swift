/// `local-filter` — Apple's "Performing a search operation", filtering in memory on every change:
///
/// ```swift
/// func filteredProducts(products: [Product], searchText: String, tokens: [FruitToken]) -> [Product] {
///     guard !searchText.isEmpty || !tokens.isEmpty else { return products }
///     return products.filter { product in
///         product.name.lowercased().contains(searchText.lowercased()) ||
///         tokens.map({ $0.rawValue }).contains(product.name.lowercased())
///     }
/// }
/// ```
///
/// No network: each change runs the filter synchronously on the UI thread (`runLocally`), so the
/// cost is UI-thread time per keystroke, which grows with the catalog and delays the next
/// keystroke. Empty text shows every product.
public struct LocalFilterField: SearchFieldStrategy, RoutedField {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    private var running = RequestBook()
    private var lastQuery: QueryIdentity?
    private var shown = ShownContent.nothing
    private var display = DisplayTracker()
    private var ids = IDSource()

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.localFilter.defaultConfiguration) {
        self.configuration = configuration
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        route(event, into: &effects)
    }

    mutating func inputChanged(_ event: SearchEvent, into effects: inout [SearchEffect]) -> Bool {
        if input.absorb(event) == true { filter(into: &effects) }
        return true
    }

    /// The filter's result, applied when the runner has run it.
    mutating func responseArrived(_ id: RequestID, _ summary: ResultSummary, into effects: inout [SearchEffect]) -> Bool {
        guard let query = running.remove(id) else { return false }
        shown = .applied(id, query, summary, into: &effects)
        return true
    }

    mutating func requestFailed(_ id: RequestID, _ reason: FailureReason, into effects: inout [SearchEffect]) -> Bool {
        _ = running.remove(id)
        return true
    }

    mutating func render(into effects: inout [SearchEffect]) {
        display.show(shown.display, into: &effects)
    }

    private mutating func filter(into effects: inout [SearchEffect]) {
        guard let query = configuration.identity(of: input),
              query != lastQuery else { return }
        lastQuery = query
        let id = ids.request()
        running.insert(id, query)
        effects.append(.commit(query, cached: false))
        effects.append(.runLocally(id, query))
    }
}
