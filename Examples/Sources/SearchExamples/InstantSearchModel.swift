import Observation
import Typestorm

/// Algolia InstantSearch's pattern in Swift: every change of the query, scope or tokens sends a
/// search at once, tagged with an increasing number; nothing is ever cancelled; an answer older
/// than the one on screen is dropped; after 200 ms without the newest answer the search is
/// "stalled" (the helper's `stalledSearchDelay`).
///
/// ```js
/// helper.on('change', () => helper.search());            // every state change searches
/// if (queryId < lastResponseQueryId) return;              // in the helper: stale, drop it
/// setTimeout(() => status = 'stalled', stalledSearchDelay);
/// ```
@Observable @MainActor
public final class InstantSearchModel {
    /// The search box's text: every change searches.
    public var query = "" {
        didSet { if query != oldValue { search() } }
    }
    /// The searchable's scope and tokens: changing them searches too.
    public var filter = SearchFilter() {
        didSet { if filter != oldValue { search() } }
    }
    /// The newest answer applied so far.
    public private(set) var outcome: Outcome?
    /// The newest search has taken longer than the stalled delay.
    public private(set) var isSearchStalled = false
    private var lastSentQueryID = 0
    private var lastAppliedQueryID = 0
    @ObservationIgnored private var stalledTimer: Task<Void, Never>?
    @ObservationIgnored let api: ProductAPI
    @ObservationIgnored let stalledClock: any Clock<Duration>
    @ObservationIgnored let stalledSearchDelay: Duration

    /// What a search ended with, as the screen shows it.
    public enum Outcome: Equatable, Sendable {
        /// The answer's page (no results: an empty page).
        case page(SearchPage)
        /// The newest search failed.
        case failed(keyword: String, filter: SearchFilter)
    }

    /// A model searching `api`, stalled after `stalledSearchDelay` on `stalledClock`.
    public init(api: ProductAPI, stalledClock: any Clock<Duration> = ContinuousClock(), stalledSearchDelay: Duration = .milliseconds(200)) {
        self.api = api
        self.stalledClock = stalledClock
        self.stalledSearchDelay = stalledSearchDelay
    }

    /// A search is out whose answer has not come back yet.
    public var isSearching: Bool { lastSentQueryID > lastAppliedQueryID }

    func search() {
        lastSentQueryID += 1
        let queryID = lastSentQueryID
        let query = query
        let filter = filter
        Task {
            do {
                let page = try await api.search(query, filter)
                guard queryID > lastAppliedQueryID else { return }  // older than what is shown: drop it
                lastAppliedQueryID = queryID
                outcome = .page(page)
            } catch is CancellationError {
                return
            } catch {
                // Only the newest search's failure is shown; an older one is forgotten.
                guard queryID > lastAppliedQueryID, queryID == lastSentQueryID else { return }
                lastAppliedQueryID = queryID
                outcome = .failed(keyword: query, filter: filter)
            }
            if queryID == lastSentQueryID { searchSettled() }
        }
        stalledTimer?.cancel()
        stalledTimer = Task {
            try? await stalledClock.sleep(for: stalledSearchDelay)
            guard !Task.isCancelled else { return }
            isSearchStalled = true
        }
    }

    /// The newest search answered: no more stalled indicator.
    private func searchSettled() {
        stalledTimer?.cancel()
        stalledTimer = nil
        isSearchStalled = false
    }
}

@MainActor
final class InstantSearchAdapter: MeasuredField {
    let model: InstantSearchModel

    init(_ env: FieldEnvironment) {
        let model = InstantSearchModel(api: ExampleFields.api(env), stalledClock: env.timerClock,
                                       stalledSearchDelay: env.parameters.duration("stalled", default: .milliseconds(200)))
        self.model = model
        // The view: the stalled indicator over a slow search, a spinner before the first
        // answer, else the newest answer applied.
        env.track {
            if model.isSearchStalled && model.isSearching { return .stalled }
            switch model.outcome {
            case nil: return model.isSearching ? .loading : .idle
            case let .page(page): return ExampleFields.screen(page)
            case let .failed(keyword, filter): return .error(ExampleFields.identity(keyword, filter))
            }
        }
    }

    func textChanged(_ text: String) { model.query = text }
    func scopeChanged(_ scope: String?) { model.filter.scope = scope }
    func tokensChanged(_ tokens: [String]) { model.filter.tokens = tokens }
}
