/// `naive` — seed 000's first listing, one value for everything:
///
/// ```swift
/// .onChange(of: searchText) { _, newValue in
///     Task {
///         isLoading = true
///         results = try await ProductAPI.search(keyword: newValue)
///         isLoading = false
///     }
/// }
/// ```
///
/// Every text change, the empty text included, starts an unstructured task; nothing is cancelled;
/// every response is written when it arrives, so a slow old response overwrites newer results,
/// and a finishing old task turns the spinner off while a newer one still runs. A failure throws
/// out of the task past `isLoading = false`, so the spinner stays on. Keyed on the text only:
/// scope and token changes start nothing.
public struct NaiveField: SearchFieldStrategy, RoutedField {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    /// Tasks still awaiting `ProductAPI.search`.
    private var running = RequestBook()
    private var isLoading = false
    /// The last assigned `results`.
    private var results = ShownContent.nothing
    private var display = DisplayTracker()
    private var ids = IDSource()

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.naive.defaultConfiguration) {
        self.configuration = configuration
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        route(event, into: &effects)
    }

    /// `onChange(of: searchText)`: a new task for the new text.
    mutating func inputChanged(_ event: SearchEvent, into effects: inout [SearchEffect]) -> Bool {
        guard input.absorbText(event), let query = configuration.identity(of: input) else { return false }
        running.insert(ids.send(query, into: &effects), query)
        isLoading = true
        return true
    }

    /// Whichever task finishes writes its results and turns the spinner off.
    mutating func responseArrived(_ id: RequestID, _ summary: ResultSummary, into effects: inout [SearchEffect]) -> Bool {
        guard let query = running.remove(id) else { return false }
        results = .applied(id, query, summary, into: &effects)
        isLoading = false
        return true
    }

    /// The error is thrown past `isLoading = false`: the spinner stays.
    mutating func requestFailed(_ id: RequestID, _ reason: FailureReason, into effects: inout [SearchEffect]) -> Bool {
        _ = running.remove(id)
        return true
    }

    mutating func render(into effects: inout [SearchEffect]) {
        display.show(isLoading ? .loading : results.display, into: &effects)
    }
}
