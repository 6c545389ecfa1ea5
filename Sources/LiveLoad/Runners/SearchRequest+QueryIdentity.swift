import Matching
import SearchField

extension SearchRequest {
    /// The engine's request for the query a strategy sent: the one place a field's
    /// `QueryIdentity` becomes a `SearchRequest` (the HTTP server makes its own from the URL).
    ///
    /// The text goes as the field holds it: the engine folds and trims it itself, like a real
    /// backend that receives what the client sends.
    init(_ query: QueryIdentity, limit: Int, needsTotal: Bool) {
        self.init(text: query.text, scope: query.scope, tokens: query.tokens, limit: limit, needsTotal: needsTotal)
    }
}
