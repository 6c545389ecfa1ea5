import FieldHarness
import LiveLoad
import Matching
import ProductCatalog
import Testing
import TypestormMetrics
import Typists
@testable import Orchestration

/// Searches on every change and shows the answer, except for typist `silent`, whose field
/// never reports what it shows.
@MainActor
private final class ShowingField: MeasuredField {
    let env: FieldEnvironment
    let silent: Int?
    var task: Task<Void, Never>?

    init(_ env: FieldEnvironment, silent: Int?) {
        self.env = env
        self.silent = silent
        if env.typist != silent { env.show(.idle) }
    }

    func textChanged(_ text: String) {
        task?.cancel()
        task = Task {
            let count = (try? await env.search(text))?.count
            guard env.typist != silent, !Task.isCancelled, let count else { return }
            env.show(count > 0 ? .results(for: text, count: count) : .empty(for: text))
        }
    }
}

@Suite("Own field under the live runner", .timeLimit(.minutes(2)), .serialized)
struct LiveFieldRunTests {
    static let catalog: Catalog = {
        let names = ["red sweater", "blue sweater", "sweatpants", "swiss knife", "swimsuit"]
        return try! Catalog(names.enumerated().map { Product(id: "p\($0.offset)", name: $0.element, popularity: 10 - $0.offset) })
    }()

    /// 40 typists over 16 shards of books: every key and search of every typist is counted once.
    func run(typists: Int, silent: Int? = nil) async throws -> LiveRunResult {
        let backend = EngineSearchBackend(engine: SearchEngine(catalog: Self.catalog), reference: ReferenceFilter(catalog: Self.catalog),
                                          workers: 2)
        defer { backend.shutdown() }
        let sessions = (0..<typists).map { LiveTypist(arrivalNanos: Int64($0) * 1_000_000, session: typedSession("sw", start: 0)) }
        let definition = FieldDefinition(minimumLength: 1) { env in ShowingField(env, silent: silent) }
        return try await LiveFieldRun.run(definition, name: "showing", typists: sessions, globalIndices: Array(100..<(100 + typists)),
                                          backend: backend, parameters: FieldParameters(),
                                          options: LiveRunOptions(drainTimeoutNanos: 5_000_000_000), monitor: LiveRunMonitor())
    }

    @Test func everyTypistsKeysAndSearchesAreCountedOnce() async throws {
        let result = try await run(typists: 40)
        #expect(result.metrics.counter(MetricName.keystrokes) == 80)
        #expect(result.metrics.counter(MetricName.requestsStarted) == 80)
        #expect(result.undrainedTypists == 0)
    }

    /// The ledgers come back by slot from their shards: the one typist whose field never shows
    /// anything is named by its own number.
    @Test func aSilentTypistIsNamedByItsNumber() async throws {
        do {
            _ = try await run(typists: 40, silent: 117)
            Issue.record("the run did not report the silent field")
        } catch let error as FieldRunError {
            #expect(error.description.contains("1 of 40 typists (typist 117)"), "\(error.description)")
        }
    }
}
