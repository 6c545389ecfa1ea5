import TypestormSystem

/// One search: the text typed, the scope and tokens that narrow it, and which page is wanted.
public struct SearchRequest: Sendable, Hashable, Codable {
    /// What was typed, as the field sends it (the engine folds and trims it).
    public var text: String
    /// Only products in this scope; `nil` or `""`: every scope.
    public var scope: String?
    /// Active tokens: a product carrying any of them matches whatever its name.
    public var tokens: [String]
    /// Page size.
    public var limit: Int
    /// Results to skip before the page.
    public var offset: Int
    /// Whether `SearchResponse.total` must be computed even when the page is found early.
    public var needsTotal: Bool

    /// A request for `text` within `scope` (`nil`: every scope) and `tokens`; by default the first 50
    /// results, without the total.
    public init(text: String, scope: String? = nil, tokens: [String] = [], limit: Int = 50, offset: Int = 0, needsTotal: Bool = false) {
        self.text = text
        self.scope = scope
        self.tokens = tokens
        self.limit = limit
        self.offset = offset
        self.needsTotal = needsTotal
    }
}

/// How a search was answered. `name` is stable (metrics, JSON, benchmark tables).
public enum MatchPath: String, Sendable, Hashable, Codable, CaseIterable {
    /// Empty query, no tokens: every product in the scope.
    case browse
    /// Empty query with tokens: the token bitsets alone.
    case tokens
    /// The packed-pair scan over the folded store, stopped at the first page.
    case scanFirstPage = "scan-first-page"
    /// The packed-pair scan over all of the folded store, split across cores.
    case scan
    /// Trigram posting lists intersected, candidates verified.
    case index
    /// The cached result set of a query contained in this one, filtered.
    case refine
    /// The reference filter (the oracle, and the `local-filter` baseline).
    case reference

    /// The path's name as responses and benchmarks print it (`scan-first-page`, `index`, ...).
    public var name: String { rawValue }
}

/// A forced choice of path, for benchmarks and tests; `nil` lets the planner choose.
public enum ForcedPath: String, Sendable, Hashable, CaseIterable {
    case scan, index, refine
}

/// The answer to a `SearchRequest`.
public struct SearchResponse: Sendable, Hashable {
    /// The page: catalog indices (positions in the `Catalog`), best first.
    public var items: [Int]
    /// All matches, when computed (always when `needsTotal`; otherwise when it came for free).
    public var total: Int?
    /// The match path the planner took (or was forced to take).
    public var path: MatchPath
    /// Names whose bytes were examined (scan) or candidates verified (index, refine).
    public var itemsScanned: Int
    /// Folded-name bytes read.
    public var bytesScanned: Int
    /// The search stopped because it was cancelled; `items` and `total` are then empty/nil.
    public var wasCancelled: Bool
    /// Wall time the search took, in nanoseconds.
    public var elapsedNanoseconds: UInt64

    /// A response from its parts (engines and the reference filter build these).
    public init(items: [Int], total: Int?, path: MatchPath, itemsScanned: Int, bytesScanned: Int, wasCancelled: Bool, elapsedNanoseconds: UInt64) {
        self.items = items
        self.total = total
        self.path = path
        self.itemsScanned = itemsScanned
        self.bytesScanned = bytesScanned
        self.wasCancelled = wasCancelled
        self.elapsedNanoseconds = elapsedNanoseconds
    }
}

/// How a search learns that nobody wants its answer any more; checked about every 64 KiB.
///
/// `.task` reads `Task.isCancelled`, which only the calling thread can see; the engine copies
/// what the caller sees into a flag its worker threads read, so a parallel scan stops on all
/// cores.
public struct SearchCancellation: Sendable {
    enum Kind: Sendable {
        case none
        case flag(CancellationFlag)
        case task
        case custom(@Sendable () -> Bool)
    }

    let kind: Kind

    /// Never cancelled: the search runs to the end.
    public static let none = SearchCancellation(kind: .none)
    /// Cancelled when the current Swift task is.
    public static let task = SearchCancellation(kind: .task)
    package static func flag(_ flag: CancellationFlag) -> SearchCancellation { SearchCancellation(kind: .flag(flag)) }
    /// Cancelled when `isCancelled` returns true; it is polled from the searching thread, so it must be
    /// cheap and thread-safe.
    public static func custom(_ isCancelled: @escaping @Sendable () -> Bool) -> SearchCancellation { SearchCancellation(kind: .custom(isCancelled)) }

    /// Whether the search should stop now (on the calling thread).
    public var isCancelled: Bool {
        switch kind {
        case .none: false
        case let .flag(flag): flag.isCancelled
        case .task: Task.isCancelled
        case let .custom(check): check()
        }
    }

    var canBeCancelled: Bool {
        if case .none = kind { return false }
        return true
    }
}
