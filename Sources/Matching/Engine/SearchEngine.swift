import TypestormSystem
import ProductCatalog
import Dispatch
import Locking

/// The fast filter engine: exactly the answers of `ReferenceFilter`, in the same order, from a
/// folded store, a packed-pair scan, a trigram index, cached result sets and bitsets, with a
/// planner choosing per query.
///
/// Built once per catalog and shared: `search` may be called from any number of threads at
/// once. The only mutable state is the cache of recent result sets (behind a `Locked`), which
/// changes how an answer is found, never the answer.
///
/// Result order: popularity descending, then position in the catalog ascending. The store is
/// laid out in that order, so every path produces hits already sorted and the first page can be
/// returned as soon as `offset + limit` hits are found.
public final class SearchEngine: Sendable {
    /// The catalog the engine searches; result items are indices into it.
    public let catalog: Catalog
    let store: FoldedStore
    let trigrams: GramIndex
    let bigrams: GramIndex
    /// Per catalog scope id: the ranks in that scope.
    let scopeSets: [RankSet]
    let scopeIDs: [String: Int]
    /// Per folded token: the ranks carrying it.
    let tokenSets: [[UInt8]: RankSet]
    let cache = Locked(ResultCache())
    let tuning: Tuning

    /// Thresholds of the scan paths; the defaults suit real catalogs, tests shrink them to
    /// exercise the parallel split on small ones.
    public struct Tuning: Sendable {
        /// The first-page scan reads this many bytes on one core before going parallel.
        public var firstPageBytes: Int
        /// Below this many bytes a scan stays on one core.
        public var parallelMinimumBytes: Int
        /// How many parts a parallel scan is split into (default: one per core).
        public var parts: Int
        /// From this many candidates on, an all-hits index or refine verifies on all cores.
        public var parallelVerifyMinimum: Int

        /// The defaults; `parts` nil is one part per active core.
        public init(firstPageBytes: Int = 256 * 1024, parallelMinimumBytes: Int = 512 * 1024, parts: Int? = nil, parallelVerifyMinimum: Int = 2048) {
            self.firstPageBytes = firstPageBytes
            self.parallelMinimumBytes = parallelMinimumBytes
            self.parts = max(1, parts ?? Processors.active)
            self.parallelVerifyMinimum = max(1, parallelVerifyMinimum)
        }
    }

    /// Result sets larger than this share of the catalog are not cached (refining them would
    /// not beat the index or the scan).
    static let refineShare = 16

    /// Builds the engine's structures (folded names, gram indices) over `catalog`; `tuning` sets the scan
    /// paths' thresholds and parallel split (``Tuning``).
    ///
    /// A catalog whose folded names or indexes pass what the engine's 32-bit offsets address
    /// (4 GiB each) stops the process with ``CapacityError``'s message; the library's callers use
    /// ``build(catalog:tuning:)``, which returns that error instead. Tests and benchmarks, whose
    /// catalogs are known to fit, use this one.
    package convenience init(catalog: Catalog, tuning: Tuning = Tuning()) {
        let parts: Parts
        do {
            parts = try Self.parts(of: catalog, byteLimit: FoldedStore.byteLimit)
        } catch {
            fatalError(error.description)
        }
        self.init(catalog: catalog, tuning: tuning, parts: parts)
    }

    /// Builds the engine over `catalog`, or says why the catalog is too large for it.
    ///
    /// - Throws: ``CapacityError`` when the folded names or an index would pass the 4 GiB that
    ///   the engine's 32-bit offsets address.
    public static func build(catalog: Catalog, tuning: Tuning = Tuning()) throws(CapacityError) -> SearchEngine {
        try build(catalog: catalog, tuning: tuning, byteLimit: FoldedStore.byteLimit)
    }

    /// ``build(catalog:tuning:)`` with a lower limit on each structure's bytes (tests reach the
    /// limit without allocating 4 GiB).
    package static func build(catalog: Catalog, tuning: Tuning = Tuning(), byteLimit: Int) throws(CapacityError) -> SearchEngine {
        SearchEngine(catalog: catalog, tuning: tuning, parts: try parts(of: catalog, byteLimit: byteLimit))
    }

    /// The folded store and the two gram indexes, each built on all cores.
    struct Parts {
        var store: FoldedStore
        var trigrams: GramIndex
        var bigrams: GramIndex
    }

    static func parts(of catalog: Catalog, byteLimit: Int) throws(CapacityError) -> Parts {
        let store = try FoldedStore(catalog: catalog, byteLimit: byteLimit)
        let trigrams = try GramIndex(store: store, kind: .trigrams, byteLimit: min(byteLimit, GramIndex.byteLimit))
        let bigrams = try GramIndex(store: store, kind: .bigrams, byteLimit: min(byteLimit, GramIndex.byteLimit))
        return Parts(store: store, trigrams: trigrams, bigrams: bigrams)
    }

    private init(catalog: Catalog, tuning: Tuning, parts: Parts) {
        self.catalog = catalog
        self.tuning = tuning
        let store = parts.store
        self.store = store
        trigrams = parts.trigrams
        bigrams = parts.bigrams
        let n = store.count
        var scopeRanks = [[UInt32]](repeating: [], count: catalog.scopes.count)
        var tokenRanks = [[UInt32]](repeating: [], count: catalog.tokens.count)
        for rank in 0..<n {
            let index = store.catalogIndex(rank: rank)
            scopeRanks[catalog.scopeID(at: index)].append(UInt32(rank))
            for token in catalog.tokenIDs(at: index) { tokenRanks[Int(token)].append(UInt32(rank)) }
        }
        scopeSets = scopeRanks.map { RankSet($0, count: n) }
        scopeRanks = []
        var byFoldedToken: [[UInt8]: [UInt32]] = [:]
        for (id, ranks) in tokenRanks.enumerated() where !ranks.isEmpty {
            byFoldedToken[TextFolding.fold(catalog.tokens[id]), default: []].append(contentsOf: ranks)
        }
        tokenRanks = []
        tokenSets = byFoldedToken.mapValues { ranks in
            // Tokens that fold alike are merged; their lists must be sorted again.
            RankSet(ranks.sorted(), count: n)
        }
        var ids: [String: Int] = [:]
        for (id, scope) in catalog.scopes.enumerated() { ids[scope] = id }
        scopeIDs = ids
    }

    /// Products the engine searches (the catalog's count).
    public var count: Int { store.count }

    /// Bytes held by the engine's own structures, by part (the catalog is not counted).
    public var memoryBreakdown: [String: Int] {
        [
            "folded-store": store.byteCount,
            "trigram-index": trigrams.byteCount,
            "bigram-index": bigrams.byteCount,
            "scope-sets": scopeSets.reduce(0) { $0 + $1.byteCount },
            "token-sets": tokenSets.values.reduce(0) { $0 + $1.byteCount },
        ]
    }

    /// Of the bytes in ``memoryBreakdown``, those of the large tables mapped from the kernel
    /// in whole pages rather than taken from the allocator (an allocator's statistics do not
    /// see them).
    package var mappedByteCount: Int { store.mappedByteCount + trigrams.mappedByteCount + bigrams.mappedByteCount }

    /// Bytes of folded names and separators: what a full scan reads.
    public var foldedByteCount: Int { store.scannedByteCount }

    /// The catalog ids of a response's items.
    public func ids(of response: SearchResponse) -> [String] {
        response.items.map { catalog.id(at: $0) }
    }

    /// Forgets cached result sets (benchmarks call it between timed runs).
    public func clearCache() {
        cache.withLock { $0 = ResultCache() }
    }

    /// Answers `request`; see the type's documentation for order and paths.
    ///
    /// - Parameter forcing: a path to take instead of the planner's choice (benchmarks, tests);
    ///   if it cannot answer this request (an index for a query under three bytes, a refine with
    ///   nothing cached) the planner decides.
    public func search(_ request: SearchRequest, cancellation: SearchCancellation = .none, forcing: ForcedPath? = nil) -> SearchResponse {
        let started = ContinuousClock.now
        var response = run(request, cancellation: cancellation, forcing: forcing)
        response.elapsedNanoseconds = ReferenceFilter.nanos(since: started)
        if response.wasCancelled {
            response.items = []
            response.total = nil
        }
        return response
    }

    /// What one request asks, resolved against the engine's tables.
    struct Plan {
        var pattern: [UInt8]
        /// `nil`: every scope.
        var scope: Bitset?
        var scopeKey: Int
        /// `nil`: no active tokens; otherwise the ranks carrying one (already narrowed by scope).
        var tokens: Bitset?
        var tokenKey: [[UInt8]]
        var need: Int?
        var unknownScope: Bool
    }

    private func resolve(_ request: SearchRequest) -> Plan {
        let pattern = TextFolding.foldQuery(request.text)
        var scope: Bitset? = nil
        var scopeKey = -1
        var unknownScope = false
        if let name = request.scope, !name.isEmpty {
            if let id = scopeIDs[name] {
                scope = scopeSets[id].bitset(count: count)
                scopeKey = id
            } else {
                unknownScope = true
            }
        }
        var tokens: Bitset? = nil
        var tokenKey: [[UInt8]] = []
        if !request.tokens.isEmpty {
            var union = Bitset(count: count)
            tokenKey = Array(Set(request.tokens.map { TextFolding.fold($0) })).sorted { $0.lexicographicallyPrecedes($1) }
            for token in tokenKey {
                tokenSets[token]?.add(to: &union)
            }
            if let scope { union.formIntersection(scope) }
            tokens = union
        }
        let need = request.needsTotal ? nil : max(0, request.offset) + max(0, request.limit)
        return Plan(pattern: pattern, scope: scope, scopeKey: scopeKey, tokens: tokens, tokenKey: tokenKey, need: need, unknownScope: unknownScope)
    }

    private func run(_ request: SearchRequest, cancellation: SearchCancellation, forcing: ForcedPath?) -> SearchResponse {
        let plan = resolve(request)
        if plan.unknownScope || count == 0 {
            return page([], complete: true, request, path: plan.pattern.isEmpty ? .browse : .scan, scanned: 0, bytes: 0)
        }
        if plan.pattern.isEmpty {
            return browse(plan, request)
        }
        let choice = choosePath(plan, forcing: forcing)
        var collector = MatchCollector(scope: plan.scope, tokens: plan.tokens, need: plan.need, count: count)
        var scanned = 0, bytes = 0, cancelled = false
        let path: MatchPath
        switch choice {
        case let .refine(entry):
            path = .refine
            (scanned, bytes, cancelled) = refine(entry, plan, &collector, cancellation)
        case let .index(lists):
            path = .index
            (scanned, bytes, cancelled) = indexSearch(lists, plan, &collector, cancellation)
        case let .exactBigram(list):
            path = .index
            (scanned, cancelled) = exactSearch(list, &collector, cancellation)
        case .absent:
            path = .index
            collector.finish()
        case .scan:
            if plan.need != nil {
                path = .scanFirstPage
                (scanned, bytes, cancelled) = scanFirstPage(plan, &collector, cancellation)
            } else {
                path = .scan
                (scanned, bytes, cancelled) = scanAll(plan, &collector, cancellation)
            }
        }
        if cancelled {
            return SearchResponse(items: [], total: nil, path: path, itemsScanned: scanned, bytesScanned: bytes, wasCancelled: true, elapsedNanoseconds: 0)
        }
        if collector.complete { remember(plan, collector.ranks) }
        return page(collector.ranks, complete: collector.complete, request, path: path, scanned: scanned, bytes: bytes)
    }

    /// The requested page of `ranks` (a prefix of the results, or all of them if `complete`).
    private func page(_ ranks: [UInt32], complete: Bool, _ request: SearchRequest, path: MatchPath, scanned: Int, bytes: Int) -> SearchResponse {
        let from = min(max(0, request.offset), ranks.count)
        let to = min(ranks.count, from + max(0, request.limit))
        let items = ranks[from..<to].map { store.catalogIndex(rank: Int($0)) }
        return SearchResponse(items: items, total: complete ? ranks.count : nil, path: path, itemsScanned: scanned, bytesScanned: bytes, wasCancelled: false, elapsedNanoseconds: 0)
    }

    /// Empty query: the scope (or everything), or the tokens.
    private func browse(_ plan: Plan, _ request: SearchRequest) -> SearchResponse {
        let from = max(0, request.offset), limit = max(0, request.limit)
        var items: [Int] = []
        let total: Int
        let path: MatchPath
        /// The page of `set`'s members from `from`, in rank order.
        func page(of set: Bitset) {
            var position = set.next(from: 0)
            var k = 0
            while let rank = position, items.count < limit {
                if k >= from { items.append(store.catalogIndex(rank: rank)) }
                k += 1
                position = set.next(from: rank + 1)
            }
        }
        if let tokens = plan.tokens {
            path = .tokens
            total = tokens.population
            page(of: tokens)
        } else if let scope = plan.scope {
            path = .browse
            total = scope.population
            page(of: scope)
        } else {
            path = .browse
            total = count
            if from < count {
                for rank in from..<min(count, from + limit) { items.append(store.catalogIndex(rank: rank)) }
            }
        }
        return SearchResponse(items: items, total: total, path: path, itemsScanned: 0, bytesScanned: 0, wasCancelled: false, elapsedNanoseconds: 0)
    }
}
