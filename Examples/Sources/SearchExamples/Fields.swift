import Typestorm

/// The examples as Typestorm fields: each adapter builds the model from the environment, feeds it
/// the typist's text, scope and tokens, and reports what its view would show.
public enum ExampleFields {
    public static let all: [String: FieldDefinition] = [
        "naive-real": FieldDefinition(minimumLength: 0) { env in NaiveAdapter(env) },
        "seed-000": FieldDefinition(minimumLength: 2) { env in SeedAdapter(env) },
    ]

    /// The app's API backed by the run's search.
    static func api(_ env: FieldEnvironment) -> ProductAPI {
        ProductAPI { keyword, filter in
            let answer = try await env.search(QueryIdentity(text: keyword, scope: filter.scope, tokens: filter.tokens))
            return SearchPage(keyword: keyword, filter: filter, count: answer.count)
        }
    }

    static func identity(_ keyword: String, _ filter: SearchFilter) -> QueryIdentity {
        QueryIdentity(text: keyword, scope: filter.scope, tokens: filter.tokens)
    }

    /// A page as the screen shows it: its results, or "no results" for its keyword.
    static func screen(_ page: SearchPage) -> FieldScreen {
        let query = identity(page.keyword, page.filter)
        return page.isEmpty ? .empty(query) : .results(query, count: page.count)
    }
}

@MainActor
final class NaiveAdapter: MeasuredField {
    let model: NaiveSearchModel

    init(_ env: FieldEnvironment) {
        let model = NaiveSearchModel(api: ExampleFields.api(env))
        self.model = model
        // The view: a spinner while loading, else the last results written.
        env.track {
            if model.isLoading { return .loading }
            return model.results.map(ExampleFields.screen) ?? .idle
        }
    }

    func textChanged(_ text: String) { model.searchText = text }
    func scopeChanged(_ scope: String?) { model.filter.scope = scope }
    func tokensChanged(_ tokens: [String]) { model.filter.tokens = tokens }
}

@MainActor
final class SeedAdapter: MeasuredField {
    let model: SeedSearchModel

    init(_ env: FieldEnvironment) {
        let model = SeedSearchModel(api: ExampleFields.api(env), clock: env.clock,
                                    debounce: env.parameters.duration("debounce", default: .milliseconds(300)))
        self.model = model
        // The seed's view: `if isLoading { ProgressView() } else if committedQuery.isEmpty { recent }
        // else if results.isEmpty { ContentUnavailableView.search(text: committedQuery) } else { list }`.
        env.track {
            if model.isLoading { return .loading }
            if model.committedQuery.isEmpty { return .idle }
            guard let page = model.results, !page.isEmpty else {
                return .empty(ExampleFields.identity(model.committedQuery, model.committedFilter))
            }
            return ExampleFields.screen(page)
        }
    }

    func textChanged(_ text: String) { model.searchText = text }
    func scopeChanged(_ scope: String?) { model.filter.scope = scope }
    func tokensChanged(_ tokens: [String]) { model.filter.tokens = tokens }
}
