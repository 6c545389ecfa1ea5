import Matching
import SearchServer

/// A test double for the filter engine: a plain case-insensitive substring scan over a list of
/// names, with cooperative cancellation, for tests and benchmarks of the HTTP layer that need a
/// backend whose answers are obvious from its input.
///
/// It does no Unicode folding beyond `lowercased()` and has no index. Correct for what it does:
/// an item matches when its lowercased name contains the lowercased query and every token, and
/// its scope equals the requested one. The product serves `EngineBackend`.
///
/// - Complexity: O(n · m) per search over n items, always a full scan (`total` is exact).
package struct SubstringBackend: SearchBackend {
    /// One catalog entry of the double.
    package struct Item: Sendable, Hashable {
        package var name: String
        package var scope: String?

        package init(name: String, scope: String? = nil) {
            self.name = name
            self.scope = scope
        }
    }

    private let names: [String]
    private let folded: [[UInt8]]
    private let scopes: [String?]
    /// Items between two cancellation checks: about 20–50 µs of scanning.
    package var cancellationStride = 1024

    package init(items: [Item]) {
        names = items.map(\.name)
        folded = items.map { Array($0.name.lowercased().utf8) }
        scopes = items.map(\.scope)
    }

    package init(names: [String]) {
        self.init(items: names.map { Item(name: $0) })
    }

    package var count: Int { names.count }

    package func search(_ request: SearchRequest, isCancelled: () -> Bool) throws -> BackendResult {
        let needles = ([request.text] + request.tokens).map { Array($0.lowercased().utf8) }.filter { !$0.isEmpty }
        var page: [SearchHit] = []
        var total = 0
        var index = 0
        while index < folded.count {
            if index % cancellationStride == 0, isCancelled() {
                throw SearchCancelled(itemsScanned: index)
            }
            let haystack = folded[index]
            let scopeMatches = request.scope == nil || scopes[index] == request.scope
            if scopeMatches, needles.allSatisfy({ Self.contains(haystack, $0) }) {
                if total >= request.offset, page.count < request.limit {
                    page.append(SearchHit(id: String(index), name: names[index]))
                }
                total += 1
            }
            index += 1
        }
        return BackendResult(items: page, total: total, path: "scan", itemsScanned: folded.count)
    }

    @inline(__always)
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        let n = needle.count, h = haystack.count
        if n > h { return false }
        let first = needle[0]
        var i = 0
        while i <= h - n {
            if haystack[i] == first {
                var j = 1
                while j < n, haystack[i + j] == needle[j] { j += 1 }
                if j == n { return true }
            }
            i += 1
        }
        return false
    }
}
