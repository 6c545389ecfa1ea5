/// `split-state-seed` — seed 000's recommended listing, exactly as written:
///
/// ```swift
/// .task(id: searchText) { await searchIfNeeded(searchText) }
///
/// private func searchIfNeeded(_ text: String) async {
///     let query = text.trimmingCharacters(in: .whitespacesAndNewlines)
///     guard query.count >= 2 else { committedQuery = ""; results = []; return }
///     try? await Task.sleep(for: .milliseconds(300))
///     guard !Task.isCancelled else { return }
///     guard query != committedQuery else { return }
///     committedQuery = query
///     isLoading = true
///     errorMessage = nil
///     do {
///         results = try await ProductAPI.search(keyword: query)
///     } catch {
///         errorMessage = "검색 결과를 불러오지 못했어요."
///         results = []
///     }
///     isLoading = false
/// }
/// ```
///
/// with the view `if isLoading { ProgressView() } else if committedQuery.isEmpty { Recent… }
/// else if results.isEmpty { ContentUnavailableView.search(text: committedQuery) } else { … }`.
///
/// Its flaws, all reproduced: a request cancelled mid-flight throws into the `catch`, so the
/// screen flashes "no results" (a false empty); the query is committed before the response, so
/// typing back to it skips the search and leaves whatever the screen showed (a wrong final
/// screen); a cancelled task still writes `isLoading = false` (and, when the backend ignored the
/// cancel, its results) under a newer loading task; keyed on the text only, so scope and token
/// changes do not restart it.
public struct SplitStateSeedField: SearchFieldStrategy, RoutedField {
    /// The knobs this field runs with, fixed at creation.
    public let configuration: SearchFieldConfiguration
    private var input = FieldInput()
    private var task: Phase?
    /// Requests of cancelled tasks still awaiting `ProductAPI.search`: their assignments land.
    private var cancelled = RequestBook()
    private var committedQuery: QueryIdentity?
    private var results = ShownContent.nothing
    private var isLoading = false
    private var display = DisplayTracker()
    private var ids = IDSource()

    /// Where the current task is.
    private enum Phase: Hashable, Sendable {
        /// In `Task.sleep`, will search for the trimmed text.
        case sleeping(TimerID, String)
        /// In `try await ProductAPI.search(keyword:)`.
        case searching(RequestID, QueryIdentity)
    }

    /// A field with `configuration`; by default its preset's (``Preset``, docs/strategies.md).
    public init(configuration: SearchFieldConfiguration = Preset.splitStateSeed.defaultConfiguration) {
        self.configuration = configuration
    }

    /// Handles one event at `time` (nanoseconds on the runner's clock), appending the effects in
    /// the order they happen (``SearchFieldStrategy/handle(_:at:into:)``).
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        route(event, into: &effects)
    }

    /// The text is the `id:` of the running `.task`: it restarts only when that changes.
    mutating func inputChanged(_ event: SearchEvent, into effects: inout [SearchEffect]) -> Bool {
        guard input.absorbText(event) else { return false }
        restart(into: &effects)
        return true
    }

    /// The sleep is over: commit the query and search, unless it is the committed one.
    mutating func timerFired(_ timer: TimerID, into effects: inout [SearchEffect]) -> Bool {
        guard case let .sleeping(current, query) = task, current == timer else { return false }
        guard query != committedQuery?.text else {
            task = nil
            return false
        }
        let identity = QueryIdentity(text: query, scope: input.scope, tokens: input.tokens)
        committedQuery = identity
        isLoading = true
        task = .searching(ids.send(identity, into: &effects), identity)
        return true
    }

    mutating func responseArrived(_ id: RequestID, _ summary: ResultSummary, into effects: inout [SearchEffect]) -> Bool {
        guard let query = finish(id) else { return false }
        results = .applied(id, query, summary, into: &effects)
        isLoading = false
        return true
    }

    /// The `catch`: the error message, and `results = []`, which the view shows as "no results".
    mutating func requestFailed(_ id: RequestID, _ reason: FailureReason, into effects: inout [SearchEffect]) -> Bool {
        guard let query = finish(id) else { return false }
        results = .results(query, request: id, count: 0)
        effects.append(.apply(id, query, .error))
        isLoading = false
        return true
    }

    /// `.task(id:)` cancels the running task and starts a new one.
    private mutating func restart(into effects: inout [SearchEffect]) {
        switch task {
        case let .sleeping(timer, _):
            effects.append(.cancelTimer(timer))
        case let .searching(request, query):
            effects.append(.cancelRequest(request))
            cancelled.insert(request, query)
        case nil:
            break
        }
        task = nil
        let query = configuration.normalizer.normalize(input.text)
        guard configuration.normalizer.isSearchable(query) else {
            committedQuery = nil
            results = .nothing
            return
        }
        let identity = QueryIdentity(text: query, scope: input.scope, tokens: input.tokens)
        task = .sleeping(ids.schedule(after: configuration.debounceNanos, for: .debounce(identity), into: &effects), query)
    }

    /// The query of `id` if some task (current or cancelled) is awaiting it.
    private mutating func finish(_ id: RequestID) -> QueryIdentity? {
        if case let .searching(current, query) = task, current == id {
            task = nil
            return query
        }
        return cancelled.remove(id)
    }

    mutating func render(into effects: inout [SearchEffect]) {
        let state: DisplayState
        if isLoading {
            state = .loading
        } else if let committedQuery {
            switch results {
            case .nothing: state = .empty(committedQuery)
            case let .results(_, _, count) where count == 0: state = .empty(committedQuery)
            default: state = results.display
            }
        } else {
            state = .idle
        }
        display.show(state, into: &effects)
    }
}
