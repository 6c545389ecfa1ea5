/// `manual-cancel` — seed 000's stored-task alternative:
///
/// ```swift
/// @State private var searchTask: Task<Void, Never>?
///
/// .onChange(of: searchText) { _, newValue in
///     searchTask?.cancel()
///     searchTask = Task {
///         try? await Task.sleep(for: .milliseconds(300))
///         await search(newValue)
///     }
/// }
/// ```
///
/// `search(_:)` is not shown in the seed; it is modelled as the first listing's body with the
/// error swallowed: `isLoading = true; do { results = try await api(q) } catch {}; isLoading =
/// false`. Two flaws follow from the code as written. The `try?` swallows the `CancellationError`
/// of the sleep, so a cancelled wait still runs `search` at once — inside a cancelled task, so
/// the request is sent and immediately cancelled. And nothing checks cancellation after the
/// await, so a request that completes although cancelled (the backend ignored it) is still
/// written. Keyed on the text only, no trimming, no minimum length.
public struct ManualCancelField: SearchFieldStrategy, RoutedField {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    private var task: Phase?
    /// Every `search` call still awaiting its request; all of them will write their results.
    private var searching = RequestBook()
    private var isLoading = false
    private var results = ShownContent.nothing
    private var display = DisplayTracker()
    private var ids = IDSource()

    /// Where `searchTask` is.
    private enum Phase: Hashable, Sendable {
        /// In `Task.sleep`; will search for the query when the timer fires.
        case sleeping(TimerID, QueryIdentity)
        /// In `await search(newValue)`.
        case searching(RequestID)
    }

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.manualCancel.defaultConfiguration) {
        self.configuration = configuration
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        route(event, into: &effects)
    }

    /// `onChange(of: searchText)`: cancel the stored task, store a new one that sleeps first.
    mutating func inputChanged(_ event: SearchEvent, into effects: inout [SearchEffect]) -> Bool {
        guard input.absorbText(event) else { return false }
        switch task {
        case let .sleeping(timer, query):
            effects.append(.cancelTimer(timer))
            let orphan = search(query, into: &effects)
            effects.append(.cancelRequest(orphan))
        case let .searching(request):
            effects.append(.cancelRequest(request))
        case nil:
            break
        }
        task = nil
        guard let query = configuration.identity(of: input) else { return true }
        task = .sleeping(ids.schedule(after: configuration.debounceNanos, for: .debounce(query), into: &effects), query)
        return true
    }

    /// The sleep is over: `search(newValue)`.
    mutating func timerFired(_ timer: TimerID, into effects: inout [SearchEffect]) -> Bool {
        guard case let .sleeping(current, query) = task, current == timer else { return false }
        task = .searching(search(query, into: &effects))
        return true
    }

    /// Every `search` call writes its results, cancelled or not.
    mutating func responseArrived(_ id: RequestID, _ summary: ResultSummary, into effects: inout [SearchEffect]) -> Bool {
        guard let query = searching.remove(id) else { return false }
        results = .applied(id, query, summary, into: &effects)
        finishSearch(id)
        return true
    }

    /// The error is swallowed; `isLoading = false` still runs.
    mutating func requestFailed(_ id: RequestID, _ reason: FailureReason, into effects: inout [SearchEffect]) -> Bool {
        guard searching.remove(id) != nil else { return false }
        finishSearch(id)
        return true
    }

    mutating func render(into effects: inout [SearchEffect]) {
        display.show(isLoading ? .loading : results.display, into: &effects)
    }

    /// The end of `search(_:)` for request `id`.
    private mutating func finishSearch(_ id: RequestID) {
        isLoading = false
        if task == .searching(id) { task = nil }
    }

    private mutating func search(_ query: QueryIdentity, into effects: inout [SearchEffect]) -> RequestID {
        let id = ids.send(query, into: &effects)
        searching.insert(id, query)
        isLoading = true
        return id
    }
}
