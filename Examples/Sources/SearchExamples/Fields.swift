import Dispatch
import Foundation
import Typestorm

/// The examples as Typestorm fields: each adapter builds the model from the environment, feeds it
/// the typist's text, scope and tokens, and reports what its view would show.
public enum ExampleFields {
    public static let all: [String: FieldDefinition] = [
        "naive-real": FieldDefinition(minimumLength: 0) { env in NaiveAdapter(env) },
        "seed-000": FieldDefinition(minimumLength: 2) { env in SeedAdapter(env) },
        "instant-search": FieldDefinition(minimumLength: 0) { env in InstantSearchAdapter(env) },
        "seed-003": FieldDefinition(minimumLength: 2) { env in CatalogSearchAdapter(env) },
        "seed-002": FieldDefinition(minimumLength: 2) { env in DraftSearchAdapter(env) },
        "seed-001": FieldDefinition(minimumLength: 2) { env in WriteBackAdapter(env) },
    ]

    /// The app's API backed by the run's search.
    static func api(_ env: FieldEnvironment) -> ProductAPI {
        ProductAPI { keyword, filter in
            let answer = try await env.search(QueryIdentity(text: keyword, scope: filter.scope, tokens: filter.tokens))
            return SearchPage(keyword: keyword, filter: filter, count: answer.count ?? 0)
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

    /// `clock`: what the model sleeps on (the environment's clock unless given).
    init(_ env: FieldEnvironment, clock: (any Clock<Duration>)? = nil) {
        let model = SeedSearchModel(api: ExampleFields.api(env), clock: clock ?? env.clock,
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

/// Fields that misuse the harness on purpose, for the tests of its error messages.
public enum MisusedFields {
    public static let all: [String: FieldDefinition] = [
        "never-shows": FieldDefinition(minimumLength: 2) { env in SilentAdapter(env) },
        "throws": FieldDefinition(minimumLength: 2) { _ in throw AdapterFailure() },
        "foreign-thread": FieldDefinition(minimumLength: 2) { env in ForeignThreadAdapter(env) },
        "blocks": FieldDefinition(minimumLength: 2) { env in BlockingAdapter(env) },
        "never-resumes": FieldDefinition(minimumLength: 2) { env in LostContinuationAdapter(env) },
        // Seed 000's model as the article writes it: `Task.sleep`, not the injected clock.
        "real-sleep": FieldDefinition(minimumLength: 2) { env in SeedAdapter(env, clock: ContinuousClock()) },
    ]

    struct AdapterFailure: Error, CustomStringConvertible {
        var description: String { "the adapter could not be built" }
    }
}

/// Searches but never calls env.show.
@MainActor
final class SilentAdapter: MeasuredField {
    let env: FieldEnvironment
    init(_ env: FieldEnvironment) { self.env = env }
    func textChanged(_ text: String) {
        let env = env
        Task { _ = try? await env.search(text) }
    }
}

/// Starts work from a thread of its own: a job enqueued behind the harness's back.
@MainActor
final class ForeignThreadAdapter: MeasuredField {
    init(_ env: FieldEnvironment) { env.show(.idle) }
    func textChanged(_ text: String) {
        let enqueued = DispatchSemaphore(value: 0)
        Thread {
            Task { _ = text.count }
            enqueued.signal()
        }.start()
        enqueued.wait()  // a moment: the thread only enqueues
    }
}

/// Wraps the search in a callback API of its own whose continuation is kept but never resumed
/// once the answer has come: the spinner stays on for good.
@MainActor
final class LostContinuationAdapter: MeasuredField {
    let env: FieldEnvironment
    var pending: [CheckedContinuation<SearchAnswer, Never>] = []
    var task: Task<Void, Never>?

    init(_ env: FieldEnvironment) {
        self.env = env
        env.show(.idle)
    }

    func textChanged(_ text: String) {
        task?.cancel()
        guard text.count >= 2 else { return env.show(.idle) }
        task = Task {
            env.show(.loading)
            let answer = await withCheckedContinuation { continuation in
                pending.append(continuation)  // the callback below forgets to resume it
                let env = env
                Task { _ = try? await env.search(text) }
            }
            env.show(.results(for: text, count: answer.count ?? 0))
        }
    }
}

/// Waits on a semaphore inside a job: nothing else can run on the only thread.
@MainActor
final class BlockingAdapter: MeasuredField {
    init(_ env: FieldEnvironment) { env.show(.idle) }
    func textChanged(_ text: String) {
        guard text.count == 3 else { return }
        let semaphore = DispatchSemaphore(value: 0)
        Task { semaphore.signal() }
        semaphore.wait()
    }
}
