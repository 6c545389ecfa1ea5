extension SearchEngine {
    /// A catalog too large for the engine: one of its structures would pass the bytes its 32-bit
    /// offsets address.
    public struct CapacityError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Which structure overflowed: "folded names", "trigram index" or "bigram index".
        public let part: String
        /// The bytes it would take.
        public let bytes: Int
        /// The most it can hold.
        public let limit: Int
        /// Products in the catalog.
        public let items: Int

        /// The error in words: what overflowed, by how much, and what to do.
        public var description: String {
            "catalog too large for the search engine: its \(items) products' \(part) take \(bytes) bytes, more than the \(limit) that its 32-bit offsets address; split the catalog into smaller ones"
        }
    }
}
