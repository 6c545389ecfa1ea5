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
public struct ManualCancelField: SearchFieldStrategy {
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
        switch event {
        case .textChanged, .fieldTextSet, .scopeChanged, .tokensChanged:
            guard input.absorbText(event) else { return }
            textChanged(into: &effects)
        case .submitted:
            return
        case let .timerFired(timer):
            guard case let .sleeping(current, query) = task, current == timer else { return }
            task = .searching(search(query, into: &effects))
        case let .responseArrived(id, summary):
            guard let query = searching.remove(id) else { return }
            results = .applied(id, query, summary, into: &effects)
            isLoading = false
            if task == .searching(id) { task = nil }
        case let .requestFailed(id, _):
            guard searching.remove(id) != nil else { return }
            isLoading = false
            if task == .searching(id) { task = nil }
        }
        display.show(isLoading ? .loading : results.display, into: &effects)
    }

    private mutating func textChanged(into effects: inout [SearchEffect]) {
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
        guard let query = configuration.identity(of: input) else { return }
        task = .sleeping(ids.schedule(after: configuration.debounce, for: .debounce(query), into: &effects), query)
    }

    private mutating func search(_ query: QueryIdentity, into effects: inout [SearchEffect]) -> RequestID {
        let id = ids.send(query, into: &effects)
        searching.insert(id, query)
        isLoading = true
        return id
    }
}
