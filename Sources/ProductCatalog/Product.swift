/// One product of a catalog: what a search field searches and what a result row shows.
///
/// The catalog stores products column by column (see `Catalog`); a `Product` is the value a
/// caller reads or appends one at a time.
public struct Product: Sendable, Hashable, Codable {
    /// Unique within a catalog; an opaque string (files may hold numbers or words).
    public var id: String
    /// What the query is matched against.
    public var name: String
    /// The department; a search may be narrowed to one scope. Empty means none.
    public var scope: String
    /// Tags; an active search token matches a product that carries it.
    public var tokens: [String]
    /// A non-negative weight (views, sales); higher ranks first.
    public var popularity: Int

    /// A product; scope, tokens and popularity are optional (none, none, 0).
    public init(id: String, name: String, scope: String = "", tokens: [String] = [], popularity: Int = 0) {
        self.id = id
        self.name = name
        self.scope = scope
        self.tokens = tokens
        self.popularity = popularity
    }
}
