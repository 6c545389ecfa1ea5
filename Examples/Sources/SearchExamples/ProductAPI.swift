/// The app's search client, as the view models below use it: injected, so Typestorm can back it
/// with its backend (and a preview with canned data).
public struct ProductAPI: Sendable {
    public var search: @Sendable (_ keyword: String, _ filter: SearchFilter) async throws -> SearchPage

    public init(search: @escaping @Sendable (_ keyword: String, _ filter: SearchFilter) async throws -> SearchPage) {
        self.search = search
    }
}

/// The searchable's scope and tokens.
public struct SearchFilter: Sendable, Hashable {
    public var scope: String?
    public var tokens: [String]

    public init(scope: String? = nil, tokens: [String] = []) {
        self.scope = scope
        self.tokens = tokens
    }
}

/// One page of results for a keyword.
public struct SearchPage: Sendable, Hashable {
    public var keyword: String
    public var filter: SearchFilter
    public var count: Int

    public init(keyword: String, filter: SearchFilter, count: Int) {
        self.keyword = keyword
        self.filter = filter
        self.count = count
    }

    public var isEmpty: Bool { count == 0 }
}
