import ProductCatalog

/// The matching rule, implemented as plainly as possible: the test oracle and the
/// `local-filter` baseline.
///
/// The rule (docs/engine.md, "Matching rule and order"): a product matches when it is in the request's scope (if one is
/// given) and either its folded name contains the folded, trimmed query, or it carries one of the
/// active tokens (compared folded). An empty query matches every name when no tokens are active,
/// and no name when tokens are active (then only the tokens select).
/// "Contains" is on Unicode scalars of the folded texts (see `TextFolding`), so a query matches
/// inside a longer character (`e` in `e` + U+0301 that has no precomposed form); the fast engine
/// compares UTF-8 bytes, which is the same thing.
///
/// Order: popularity descending, then position in the catalog ascending.
///
/// Each search folds every name again, as a naive `filter { $0.name … contains(query) }` would.
public struct ReferenceFilter: Sendable {
    /// The catalog searched; result items are indices into it.
    public let catalog: Catalog

    /// A reference filter over `catalog` (no index is built).
    public init(catalog: Catalog) {
        self.catalog = catalog
    }

    /// Answers `request` by folding and matching every name, as the engine should (the oracle the
    /// engine is tested against); cancellation empties the response and sets `wasCancelled`.
    public func search(_ request: SearchRequest, cancellation: SearchCancellation = .none) -> SearchResponse {
        let started = ContinuousClock.now
        guard let all = matches(request, cancellation: cancellation) else {
            return SearchResponse(items: [], total: nil, path: .reference, itemsScanned: 0, bytesScanned: 0, wasCancelled: true, elapsedNanoseconds: Self.nanos(since: started))
        }
        let from = min(max(0, request.offset), all.count)
        let to = min(all.count, from + max(0, request.limit))
        return SearchResponse(
            items: Array(all[from..<to]), total: all.count, path: .reference,
            itemsScanned: catalog.count, bytesScanned: catalog.nameByteCount,
            wasCancelled: false, elapsedNanoseconds: Self.nanos(since: started)
        )
    }

    /// Every match, in result order; `nil` if cancelled.
    public func matches(_ request: SearchRequest, cancellation: SearchCancellation = .none) -> [Int]? {
        let query = Array(String(decoding: TextFolding.foldQuery(request.text), as: UTF8.self).unicodeScalars)
        let activeTokens = Set(request.tokens.map { TextFolding.fold($0) })
        let scope = request.scope.flatMap { $0.isEmpty ? nil : $0 }
        var found: [Int] = []
        for index in catalog.indices {
            if index % 1024 == 0, cancellation.isCancelled { return nil }
            if let scope, catalog.scope(at: index) != scope { continue }
            let byName: Bool
            if query.isEmpty {
                byName = activeTokens.isEmpty
            } else {
                let name = Array(TextFolding.foldedString(catalog.name(at: index)).unicodeScalars)
                byName = Self.contains(name, query)
            }
            let byToken = !activeTokens.isEmpty && catalog.tokens(at: index).contains { activeTokens.contains(TextFolding.fold($0)) }
            if byName || byToken { found.append(index) }
        }
        found.sort { a, b in
            let pa = catalog.popularity(at: a), pb = catalog.popularity(at: b)
            return pa != pb ? pa > pb : a < b
        }
        return found
    }

    static func contains(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        guard pattern.count <= text.count else { return false }
        for start in 0...(text.count - pattern.count) {
            var k = 0
            while k < pattern.count && text[start + k] == pattern[k] { k += 1 }
            if k == pattern.count { return true }
        }
        return false
    }

    static func nanos(since start: ContinuousClock.Instant) -> UInt64 {
        let d = ContinuousClock.now - start
        return UInt64(max(0, d.components.seconds)) * 1_000_000_000 + UInt64(max(0, d.components.attoseconds / 1_000_000_000))
    }
}
