import Foundation
import Observation
import Typestorm

/// Seed 003's search (Apple's "Performing a search operation"): text, a scope and tokens in the
/// model, "prefetching and caching data" because each search goes over the network, and seed
/// 000's rules done right: trimmed, at least 2 characters, a 300 ms wait restarted by every
/// change of the query, cancellation never an error, previous results kept on screen while the
/// next load, a stalled indicator after 200 ms, and results committed only on success.
///
/// ```swift
/// .searchable(text: $model.searchText, tokens: $model.tokens) { token in Text(token) }
/// .searchScopes($model.scope) { … }
/// .task(id: model.query) { await model.search() }   // the whole query restarts it
/// ```
///
/// With `restartKey: .text` it is seed 002's draft instead (``DraftSearchAdapter``).
@Observable @MainActor
public final class CatalogSearchModel {
    /// A search: the trimmed keyword, the scope and the tokens.
    public struct Query: Hashable, Sendable {
        /// The trimmed text.
        public var keyword: String
        /// The scope and tokens.
        public var filter: SearchFilter
    }

    /// What restarts the search: what the view passes to `.task(id:)`.
    public enum RestartKey: Sendable {
        /// `.task(id: model.query)`: text, scope and tokens.
        case query
        /// `.task(id: model.searchText)`: the text alone; the scope and tokens are read when the
        /// text changes and kept while it stays the same (seed 002's draft).
        case text
    }

    /// What the result area holds.
    public enum Content: Equatable, Sendable {
        /// The answer of the query searched last (no results: an empty page).
        case results(SearchPage)
        /// Searching for the query failed.
        case failed(Query)
    }

    /// The search box's text, as typed.
    public var searchText = "" {
        didSet { if searchText != oldValue { queryChanged() } }
    }
    /// The search scope (nil: all).
    public var scope: String? {
        didSet { if scope != oldValue, restartKey == .query { queryChanged() } }
    }
    /// The search tokens.
    public var tokens: [String] = [] {
        didSet { if tokens != oldValue, restartKey == .query { queryChanged() } }
    }
    /// What the result area holds (nil: nothing searched, the suggestions).
    public private(set) var content: Content?
    /// A request is out for the query being searched.
    public private(set) var isSearching = false
    /// That request has taken longer than the stalled delay.
    public private(set) var isSearchStalled = false
    /// Called when a query is answered from the cache (analytics, and Typestorm's adapter).
    @ObservationIgnored public var onCacheHit: ((Query) -> Void)?
    /// The query being waited for or searched, and its task.
    @ObservationIgnored private var pending: (query: Query, task: Task<Void, Never>)?
    @ObservationIgnored private var stalledTimer: Task<Void, Never>?
    @ObservationIgnored private var cache: ResultCache
    @ObservationIgnored let restartKey: RestartKey
    @ObservationIgnored let api: ProductAPI
    @ObservationIgnored let clock: any Clock<Duration>
    @ObservationIgnored let timerClock: any Clock<Duration>
    @ObservationIgnored let debounce: Duration
    @ObservationIgnored let stalledDelay: Duration

    /// A model searching `api`: waits `debounce` on `clock`, shows the stalled indicator after
    /// `stalledDelay` on `timerClock` (`clock` unless given), caches `cacheCapacity` pages.
    public init(
        api: ProductAPI, restartKey: RestartKey = .query, cacheCapacity: Int = 32, clock: any Clock<Duration> = ContinuousClock(),
        timerClock: (any Clock<Duration>)? = nil, debounce: Duration = .milliseconds(300), stalledDelay: Duration = .milliseconds(200)
    ) {
        self.api = api
        self.restartKey = restartKey
        cache = ResultCache(capacity: cacheCapacity)
        self.clock = clock
        self.timerClock = timerClock ?? clock
        self.debounce = debounce
        self.stalledDelay = stalledDelay
    }

    /// The query the field asks for: nil below 2 characters.
    public var query: Query? {
        let keyword = searchText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard keyword.count >= 2 else { return nil }
        return Query(keyword: keyword, filter: SearchFilter(scope: scope, tokens: tokens))
    }

    /// The query whose results are on screen (a failure answers nothing: typing it again retries).
    var answeredQuery: Query? {
        guard case let .results(page) = content else { return nil }
        return Query(keyword: page.keyword, filter: page.filter)
    }

    /// Starts over for the new query, unless it is the one being searched or already shown.
    func queryChanged() {
        let query = self.query
        let current = pending?.query ?? answeredQuery
        if let current, let query {
            let same = restartKey == .text ? query.keyword == current.keyword : query == current
            if same { return }
        } else if current == nil, query == nil, content == nil {
            return
        }
        stopSearching()
        guard let query else {
            content = nil
            return
        }
        if query == answeredQuery { return }
        if let page = cache[query] {
            onCacheHit?(query)
            content = .results(page)
            return
        }
        pending = (query, Task { await search(query, waiting: true) })
    }

    /// Return skips the rest of the wait.
    public func submit() {
        guard let pending, !isSearching else { return }
        pending.task.cancel()
        self.pending = (pending.query, Task { await search(pending.query, waiting: false) })
    }

    func search(_ query: Query, waiting: Bool) async {
        if waiting {
            do { try await clock.sleep(for: debounce) } catch { return }
        }
        isSearching = true
        stalledTimer = Task { [timerClock, stalledDelay] in
            do { try await timerClock.sleep(for: stalledDelay) } catch { return }
            isSearchStalled = true
        }
        do {
            let page = try await api.search(query.keyword, query.filter)
            guard !Task.isCancelled else { return }
            searchEnded()
            content = .results(page)
            cache[query] = page
        } catch is CancellationError {
            return
        } catch {
            guard !Task.isCancelled else { return }
            searchEnded()
            content = .failed(query)
        }
    }

    /// Cancels the wait or search under way.
    private func stopSearching() {
        pending?.task.cancel()
        searchEnded()
    }

    /// Nothing is under way any more: no spinner, no stalled indicator.
    private func searchEnded() {
        pending = nil
        stalledTimer?.cancel()
        stalledTimer = nil
        isSearching = false
        isSearchStalled = false
    }
}

/// The client cache: the last `capacity` pages by query, least recently used first out.
struct ResultCache {
    let capacity: Int
    private var entries: [(query: CatalogSearchModel.Query, page: SearchPage)] = []

    init(capacity: Int) { self.capacity = capacity }

    subscript(query: CatalogSearchModel.Query) -> SearchPage? {
        mutating get {
            guard let index = entries.lastIndex(where: { $0.query == query }) else { return nil }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry.page
        }
        set {
            guard capacity > 0, let newValue else { return }
            entries.removeAll { $0.query == query }
            if entries.count >= capacity { entries.removeFirst() }
            entries.append((query, newValue))
        }
    }
}

@MainActor
final class CatalogSearchAdapter: MeasuredField {
    let model: CatalogSearchModel

    init(_ env: FieldEnvironment, restartKey: CatalogSearchModel.RestartKey = .query, cacheCapacity: Int = 32) {
        let model = CatalogSearchModel(
            api: ExampleFields.api(env), restartKey: restartKey, cacheCapacity: env.parameters.int("cache", default: cacheCapacity),
            clock: env.clock, timerClock: env.timerClock, debounce: env.parameters.duration("debounce", default: .milliseconds(300)),
            stalledDelay: env.parameters.duration("stalled", default: .milliseconds(200)))
        self.model = model
        model.onCacheHit = { query in env.answeredFromCache(ExampleFields.identity(query.keyword, query.filter)) }
        // The view: earlier results stay while the next load, with the stalled indicator when
        // slow; a spinner only when there is nothing to keep showing.
        env.track {
            if model.isSearching && model.isSearchStalled { return .stalled }
            switch model.content {
            case nil: return model.isSearching ? .loading : .idle
            case let .results(page): return ExampleFields.screen(page)
            case let .failed(query): return .error(ExampleFields.identity(query.keyword, query.filter))
            }
        }
    }

    func textChanged(_ text: String) { model.searchText = text }
    func scopeChanged(_ scope: String?) { model.scope = scope }
    func tokensChanged(_ tokens: [String]) { model.tokens = tokens }
    func submitted() { model.submit() }
}
