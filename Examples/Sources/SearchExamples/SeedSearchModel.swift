import Observation

/// Seed 000's recommended version: raw `searchText` and the `committedQuery` the results answer,
/// trimmed, at least 2 characters, a 300 ms debounce restarted on every change, the
/// `isCancelled` guard after the sleep.
///
/// ```swift
/// .task(id: searchText) { await searchIfNeeded(searchText) }
/// ```
@Observable @MainActor
public final class SeedSearchModel {
    public var searchText = "" {
        didSet { if searchText != oldValue { restart() } }
    }
    /// The searchable's scope and tokens (read when searching; changing them restarts nothing).
    @ObservationIgnored public var filter = SearchFilter()
    public private(set) var committedQuery = ""
    public private(set) var committedFilter = SearchFilter()
    public private(set) var results: SearchPage?
    public private(set) var isLoading = false
    public private(set) var errorMessage: String?
    @ObservationIgnored private var task: Task<Void, Never>?
    @ObservationIgnored let api: ProductAPI
    @ObservationIgnored let clock: any Clock<Duration>
    @ObservationIgnored let debounce: Duration

    public init(api: ProductAPI, clock: any Clock<Duration> = ContinuousClock(), debounce: Duration = .milliseconds(300)) {
        self.api = api
        self.clock = clock
        self.debounce = debounce
    }

    /// What `.task(id: searchText)` does when the text changes: cancel, start again.
    func restart() {
        task?.cancel()
        let text = searchText
        task = Task { await searchIfNeeded(text) }
    }

    func searchIfNeeded(_ text: String) async {
        let query = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard query.count >= 2 else {
            committedQuery = ""
            results = nil
            return
        }
        try? await clock.sleep(for: debounce)
        guard !Task.isCancelled else { return }
        guard query != committedQuery else { return }
        let filter = filter
        committedQuery = query
        committedFilter = filter
        isLoading = true
        errorMessage = nil
        do {
            results = try await api.search(query, filter)
        } catch {
            errorMessage = "검색 결과를 불러오지 못했어요."
            results = SearchPage(keyword: query, filter: filter, count: 0)
        }
        isLoading = false
    }
}
