import FieldRuntime
import ProductCatalog
import Matching
import TypestormMetrics
import SearchField
import SearchServer
import Testing
import Typists
import TypestormSystem
@testable import LiveLoad

/// A typist that types `text` one key every `interval`, starting at `start`, then leaves.
struct ScriptedSession: TypistSession, Sendable {
    var events: [TypingEvent]
    var index = 0

    init(typing text: String, interval: Int64, start: Int64 = 0, endAfter: Int64 = 0) {
        var events: [TypingEvent] = []
        var typed = ""
        var time = start
        for character in text {
            typed.append(character)
            events.append(TypingEvent(at: time, action: .edit(key: String(character), text: typed)))
            time += interval
        }
        events.append(TypingEvent(at: time - interval + endAfter, action: .end))
        self.events = events
    }

    mutating func next() -> TypingEvent? {
        guard index < events.count else { return nil }
        defer { index += 1 }
        return events[index]
    }
}

@Suite("Live in-process runner", .timeLimit(.minutes(5)), .serialized)
struct LiveRunnerTests {
    static let catalog: Catalog = {
        let names = ["red sweater", "blue sweater", "sweatpants", "swiss knife", "swimsuit", "wool scarf", "rain jacket"]
        let products = names.enumerated().map { Product(id: "p\($0.offset)", name: $0.element, popularity: 100 - $0.offset) }
        return try! Catalog(products)
    }()

    func run(_ preset: Preset, configuration: SearchFieldConfiguration? = nil, typists: Int = 3, workers: Int = 2,
             endAfter: Int64 = 400_000_000) async -> LiveRunResult {
        let engine = SearchEngine(catalog: Self.catalog)
        let backend = EngineSearchBackend(engine: engine, reference: ReferenceFilter(catalog: Self.catalog), workers: workers)
        defer { backend.shutdown() }
        let sessions = (0..<typists).map { index in
            LiveTypist(arrivalNanos: Int64(index) * 5_000_000,
                       session: ScriptedSession(typing: "sweater", interval: 30_000_000, endAfter: endAfter))
        }
        return await LiveRunner.run(typists: sessions, strategy: preset, configuration: configuration, backend: backend)
    }

    @Test func naiveSendsARequestPerKeystroke() async {
        let result = await run(.naive)
        #expect(result.undrainedTypists == 0)
        #expect(result.metrics.counter(MetricName.keystrokes) == 21)
        #expect(result.metrics.counter(MetricName.requestsStarted) == 21)
        #expect(result.metrics.counter(MetricName.requestsCompleted) == 21)
        #expect(result.metrics.histograms[MetricName.requestLatency]?.totalCount == 21)
        // Every request's real start is compared with the instant the strategy asked for it.
        #expect(result.metrics.histograms[MetricName.scheduleLag]?.totalCount == 21)
        // The field threads' CPU is measured, not left out.
        #expect((result.fieldThreadCPUNanos ?? 0) > 0)
    }

    @Test func splitStateWaitsForThePause() async {
        // A 1 s wait against keys 30 ms apart: only a stall of most of a second on a busy
        // machine could split the burst.
        var configuration = Preset.splitState.defaultConfiguration
        configuration.debounceNanos = 1_000_000_000
        let result = await run(.splitState, configuration: configuration, endAfter: 1_400_000_000)
        #expect(result.undrainedTypists == 0)
        #expect(result.metrics.counter(MetricName.keystrokes) == 21)
        // One search per typist, for "sweater", after the wait; the waits that typing
        // restarted never reached the backend.
        #expect(result.metrics.counter(MetricName.requestsStarted) == 3)
        #expect(result.metrics.counter(MetricName.taskChurn) > 0)
        #expect(result.metrics.counter(MetricName.outOfOrderApplies) == 0)
        #expect(result.metrics.counter(MetricName.staleSettles) == 0)
        #expect(result.metrics.histograms[MetricName.timeToFresh]?.totalCount == 3)
        #expect(result.metrics.histograms[MetricName.timerLateness]?.isEmpty == false)
        #expect(result.metrics.histograms[MetricName.inputLag]?.totalCount == 21)
    }

    @Test func typistsSpreadOverSeveralFieldThreadsAreAllTyped() async throws {
        // Seven typists on three field threads (slots 0, 3, 6 on the first): every key of every
        // typist is typed once, and naive sends one request per key.
        let engine = SearchEngine(catalog: Self.catalog)
        let backend = EngineSearchBackend(engine: engine, reference: ReferenceFilter(catalog: Self.catalog), workers: 2)
        defer { backend.shutdown() }
        let sessions = (0..<7).map { index in
            LiveTypist(arrival: .milliseconds(3 * index),
                       session: ScriptedSession(typing: "sweater", interval: 20_000_000, endAfter: 300_000_000))
        }
        let result = await LiveRunner.run(typists: sessions, strategy: .naive, backend: backend,
                                          options: try LiveRunOptions(fieldThreads: 3))
        #expect(result.undrainedTypists == 0)
        #expect(result.metrics.counter(MetricName.keystrokes) == 49)
        #expect(result.metrics.counter(MetricName.requestsStarted) == 49)
        #expect(result.metrics.counter(MetricName.requestsCompleted) == 49)
        #expect(result.metrics.histograms[MetricName.inputLag]?.totalCount == 49)
    }

    @Test func stopRequestEndsTypingEarlyAndStillReports() async {
        let engine = SearchEngine(catalog: Self.catalog)
        let backend = EngineSearchBackend(engine: engine, reference: ReferenceFilter(catalog: Self.catalog), workers: 1)
        defer { backend.shutdown() }
        let monitor = LiveRunMonitor()
        monitor.requestStop()
        let sessions = [LiveTypist(arrivalNanos: 0, session: ScriptedSession(typing: "sweater", interval: 30_000_000))]
        let result = await LiveRunner.run(typists: sessions, strategy: .naive, backend: backend, monitor: monitor)
        #expect(result.stoppedEarly)
        #expect(result.metrics.counter(MetricName.keystrokes) == 0)
    }
}

@Suite("Engine backend", .timeLimit(.minutes(5)))
struct EngineSearchBackendTests {
    @Test func cancellingAQueuedRequestCompletesItAsCancelled() async throws {
        let catalog = LiveRunnerTests.catalog
        let backend = EngineSearchBackend(engine: SearchEngine(catalog: catalog), reference: ReferenceFilter(catalog: catalog),
                                          workers: 1, limit: 50, startSuspended: true)
        defer { backend.shutdown() }
        let query = QueryIdentity(text: "zzz-no-match", scope: nil, tokens: [])
        let outcomes = AsyncStream<(RequestID, LiveSearchOutcome)>.makeStream()
        for id: RequestID in 1...2 {
            let ticket = backend.start(LiveSearchRequest(typist: 0, id: id, query: query, local: false, intendedNanos: 0)) {
                outcomes.continuation.yield((id, $0))
            }
            if id == 2 { ticket.cancel() }
        }
        backend.resume()
        var results: [RequestID: LiveSearchOutcome.Result] = [:]
        for await (id, outcome) in outcomes.stream {
            results[id] = outcome.result
            if id == 2 { #expect(outcome.backendWork?.serviceNanos == 0) }
            if results.count == 2 { break }
        }
        #expect(results[2] == .failed(.cancelled))
        #expect(results[1] == .results(count: 0))
    }

    /// Jobs made with `prepare` leave together at `submit`; one cancelled before it never left
    /// (no start time) and is answered at once, the others are searched and answered.
    @Test func preparedJobsLeaveAtSubmitAndACancelledOneNeverLeaves() async throws {
        let catalog = LiveRunnerTests.catalog
        let backend = EngineSearchBackend(engine: SearchEngine(catalog: catalog), reference: ReferenceFilter(catalog: catalog),
                                          workers: 1, limit: 50, startSuspended: true)
        defer { backend.shutdown() }
        let query = QueryIdentity(text: "zzz-no-match", scope: nil, tokens: [])
        let outcomes = AsyncStream<(RequestID, LiveSearchOutcome)>.makeStream()
        var jobs: [EngineSearchBackend.Job] = []
        for id: RequestID in 1...3 {
            jobs.append(backend.prepare(LiveSearchRequest(typist: 0, id: id, query: query, local: false, intendedNanos: 0)) {
                outcomes.continuation.yield((id, $0))
            })
        }
        jobs[1].cancel()
        let submitted = MonotonicClock.now()
        backend.submit(&jobs)
        #expect(jobs.isEmpty)
        backend.resume()
        var results: [RequestID: LiveSearchOutcome] = [:]
        for await (id, outcome) in outcomes.stream {
            results[id] = outcome
            if results.count == 3 { break }
        }
        #expect(results[2]?.result == .failed(.cancelled))
        #expect(results[2]?.startedNanos == 0)
        #expect(results[2]?.backendWork?.queueNanos == 0)
        for id: RequestID in [1, 3] {
            #expect(results[id]?.result == .results(count: 0))
            #expect((results[id]?.startedNanos ?? 0) >= submitted)
        }
    }
}

@Suite("Live HTTP runner", .timeLimit(.minutes(5)))
struct LiveHTTPRunnerTests {
    @Test func typistsSearchTheEmbeddedServerOverHTTP() async throws {
        let backend = EngineBackend(catalog: LiveRunnerTests.catalog, engine: SearchEngine(catalog: LiveRunnerTests.catalog))
        let metrics = try await SearchServer.withServer(configuration: SearchServerConfiguration(), backend: backend) { server in
            let http = try HTTPSearchBackend(target: try HTTPSearchTarget.embeddedServer(baseURL: server.baseURL), maxConnections: 16)
            defer { http.shutdown() }
            let sessions = (0..<2).map { index in
                LiveTypist(arrivalNanos: Int64(index) * 3_000_000,
                           session: ScriptedSession(typing: "sweat", interval: 25_000_000, endAfter: 300_000_000))
            }
            let result = await LiveRunner.run(typists: sessions, strategy: .sequenceGuard, backend: http)
            #expect(result.undrainedTypists == 0)
            return result.metrics
        }
        #expect(metrics.counter(MetricName.keystrokes) == 10)
        #expect(metrics.counter(MetricName.requestsStarted) == 10)
        #expect(metrics.counter(MetricName.requestsCompleted) == 10)
        #expect(metrics.histograms[MetricName.scheduleLag]?.totalCount == 10)
        #expect(metrics.counter(MetricName.outOfOrderApplies) == 0)
        // "sweat" matches three names; every settle ends on its results.
        #expect(metrics.counter(MetricName.staleSettles) == 0)
        #expect(metrics.counter(MetricName.neverFresh) == 0)
    }
}

@Suite("HTTP backend shared by several runs", .timeLimit(.minutes(5)))
struct SharedHTTPBackendTests {
    /// Two strategies' runs share one client, as the driver's live phases do; their request
    /// numbers repeat (typist 0, request 1, ...), and cancellations must still reach their own
    /// transfers: no transport errors, every cancel observed as a cancellation.
    @Test func concurrentRunsKeepTheirTransfersApart() async throws {
        let backend = EngineBackend(catalog: LiveRunnerTests.catalog, engine: SearchEngine(catalog: LiveRunnerTests.catalog))
        var configuration = SearchServerConfiguration()
        // Every answer takes 400 ms and keys come every 100 ms, so each new query's request
        // finds the previous one in flight and cancels it, even if the machine is busy.
        configuration.faults.latency = try LatencyDistribution(parsing: "fixed:400ms")
        let results = try await SearchServer.withServer(configuration: configuration, backend: backend) { server in
            let http = try HTTPSearchBackend(target: try HTTPSearchTarget.embeddedServer(baseURL: server.baseURL), maxConnections: 32)
            defer { http.shutdown() }
            let sessions = (0..<3).map { _ in
                LiveTypist(arrivalNanos: 0, session: ScriptedSession(typing: "sweat", interval: 100_000_000, endAfter: 600_000_000))
            }
            let quick = try SearchFieldConfiguration(debounce: .milliseconds(10))
            async let first = LiveRunner.run(typists: sessions, strategy: .debounceSwitch, configuration: quick, backend: http)
            async let second = LiveRunner.run(typists: sessions, strategy: .debounceSwitch, configuration: quick, backend: http)
            return await [first, second]
        }
        for result in results {
            #expect(result.undrainedTypists == 0)
            #expect(result.metrics.counter(MetricName.transportErrors) == 0)
            #expect(result.metrics.counter(MetricName.requestsCancelled) > 0)
            #expect(result.metrics.counter(MetricName.cancelsObserved) + result.metrics.counter(MetricName.requestsCompleted)
                    == result.metrics.counter(MetricName.requestsStarted))
        }
    }
}
