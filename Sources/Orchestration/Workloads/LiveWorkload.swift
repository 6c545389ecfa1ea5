import ProductCatalog
import FieldHarness
import Foundation
import LiveLoad
import Matching
import TypestormMetrics
import TypestormSystem
import SearchField
import Simulation
import Synchronization
import Typists

/// The live runners: every strategy in real time over the segment's typists, against the filter
/// engine in this process (`in-process`) or an HTTP server (`http-embedded`, `http-url`), through
/// LiveLoad's `LiveRunner`.
///
/// The strategies run at the same time, each with its own fields for the same typists. In
/// process, each strategy has its own backend instance by default (its own search threads, or
/// with `"backend": "model"` its own modelled server cells): in production all users have one
/// strategy, so each strategy faces only its own load. `backend.sharedAcrossStrategies` puts
/// them all on one instance (a mixed population sharing capacity). `http-embedded` with
/// `"backend": "model"` gives each strategy its own modelled cells in the client, the real
/// server taking part of each drawn service time; otherwise over HTTP the one server is shared.
/// Groups of strategies that shared because the scenario asked carry the label `load=shared`;
/// groups served through the model carry `backend=model`. Typists come from the Typists module (`ScenarioTypists`, the same keys the virtual runner types), arriving
/// on the scenario's schedule (`ArrivalSchedule`: a typist ramped down by `stages` leaves the
/// field at once); typing stops at the phase duration, then in-flight work drains for up to
/// `driver.drain`.
struct LiveWorkload: PhaseWorkload {
    enum Target: Sendable {
        case inProcess(LiveBackendKind)
        case embeddedServer(LiveBackendKind)
        case url(String, HTTPRequestSpec)
    }

    var target: Target
    /// Built before the phase by `prepared` (else at the start of `run`).
    var typists: ScenarioTypists?

    init(target: Target) {
        self.target = target
    }

    func prepared(_ resources: WorkloadResources) throws -> any PhaseWorkload {
        var workload = self
        workload.typists = try resources.typists()
        return workload
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Whether the strategies of this phase share one backend instance.
    func sharesBackend(_ scenario: Scenario) -> Bool {
        switch target {
        case .inProcess, .embeddedServer(.model): return scenario.backend.sharedAcrossStrategies
        case .embeddedServer(.engine), .url: return true
        }
    }

    /// The typists this worker runs. Served through the model, a worker takes whole server
    /// cells (as the virtual runner's segments do), so each modelled cell lives in one process
    /// with all its typists; the round-robin split would spread a cell over every worker, each
    /// with the cell's full capacity.
    func segmentTypists(_ context: PhaseContext) -> [Int] {
        switch target {
        case .inProcess(.model), .embeddedServer(.model):
            return Array(Simulation.typistRange(of: context.segment, typists: context.scenario.population.typists,
                                                typistsPerServer: context.scenario.backend.typistsPerServer))
        case .inProcess(.engine), .embeddedServer(.engine), .url:
            return context.typists
        }
    }

    /// Whether the strategies share because the scenario asked for it (HTTP to a real server is
    /// shared whatever the scenario says, and is not labelled).
    func sharesBackendByChoice(_ scenario: Scenario) -> Bool {
        switch target {
        case .inProcess, .embeddedServer(.model): return scenario.backend.sharedAcrossStrategies
        case .embeddedServer(.engine), .url: return false
        }
    }

    /// The backend for one strategy (or, when shared, for all). `globalTypists`: each typist
    /// slot's index in the whole population, for the model's draws and cells.
    func makeBackend(_ context: PhaseContext, engine: (SearchEngine, ReferenceFilter)?, globalTypists: [Int]) throws -> any LiveSearchBackend {
        let scenario = context.scenario
        switch target {
        case let .inProcess(kind):
            guard let (engine, reference) = engine else { throw Failure(description: "no catalog was loaded for the in-process runner") }
            switch kind {
            case .engine:
                return EngineSearchBackend(engine: engine, reference: reference, workers: scenario.backend.workers)
            case .model:
                // The engine's threads only compute; the model decides who is served when.
                let searcher = EngineSearchBackend(engine: engine, reference: reference, workers: min(2, scenario.backend.workers))
                return ModelledSearchBackend(model: scenario.backend.model(for: scenario.population), seed: scenario.seed, globalTypists: globalTypists, engine: searcher)
            }
        case let .embeddedServer(kind):
            guard let url = context.serverURL else {
                throw Failure(description: "no embedded server URL was given to this worker (--server-url)")
            }
            let http = try HTTPSearchBackend(target: try HTTPSearchTarget.embeddedServer(baseURL: url),
                                             timeout: .nanoseconds(scenario.backend.timeoutNanos))
            guard kind == .model else { return http }
            return ModelledSearchBackend(model: scenario.backend.model(for: scenario.population), seed: scenario.seed, globalTypists: globalTypists, engine: http)
        case let .url(template, request):
            return try Self.urlBackend(template: template, request: request, scenario: scenario, baseDirectory: context.baseDirectory)
        }
    }

    /// Connections an `http-url` runner's client may hold open: every file the process may open
    /// (its soft limit raised to the hard one) but 256 for everything else, at least 1,024. A
    /// smaller cap queues requests in the client in front of the server (libcurl's transfers
    /// waiting for a connection), a queue the modelled backend does not have (docs/crosscheck.md).
    static let connectionCap = max(1_024, (OpenFileLimit.raised() ?? 0) - 256)

    /// The HTTP backend of an `http-url` runner: its URL or body template, count path, headers
    /// (environment values read now), CA file and compression, with the scenario's timeout.
    static func urlBackend(template: String, request: HTTPRequestSpec, scenario: Scenario, baseDirectory: String) throws -> HTTPSearchBackend {
        let countPath = try request.effectiveCountPath.map { path in try JSONCountPath(path) }
        let headers: [String]
        do { headers = try request.headerLines(environment: ProcessInfo.processInfo.environment) } catch {
            throw Failure(description: error.description)
        }
        return try HTTPSearchBackend(
            target: HTTPSearchTarget(template: try URLTemplate(template, requiresQuery: request.body == nil), countPath: countPath,
                                     body: try request.body.map { text in try BodyTemplate(text) }),
            maxConnections: connectionCap,
            timeout: .nanoseconds(scenario.backend.timeoutNanos), headers: headers,
            caFile: request.caFile.map { ScenarioCatalog.path($0, baseDirectory: baseDirectory) }, compressed: request.compressed,
            client: request.client)
    }

    func run(_ context: PhaseContext) async throws -> [MetricGroup] {
        let scenario = context.scenario
        let simulation = VirtualWorkload.simulationPlan(scenario)
        let arrivals = ArrivalSchedule(population: scenario.population, seed: scenario.seed)
        // Typists who would arrive after the phase ends never come (they would only hold it open).
        let population = try typists ?? ScenarioTypists(scenario: scenario, baseDirectory: context.baseDirectory)
        let indices = segmentTypists(context).filter { arrivals.offsets[$0] < scenario.durationNanos }
        let typists = indices.map { index in
            let arrival = arrivals.offsets[index]
            return LiveTypist(arrivalNanos: arrival, session: DeadlineSession(
                base: population.typing(forTypist: index),
                limit: min(scenario.durationNanos, arrivals.departures[index]) - arrival))
        }
        let options = LiveRunOptions(drainTimeoutNanos: scenario.driver.drainNanos, settleIntervalNanos: simulation.settleIntervalNanos)
        // The presets, and fields of yours (on Swift's own executors, the main actor for theirs).
        let strategies = scenario.strategies
        let fields = try strategies.map { $0.isPreset ? nil : try $0.field() }
        let monitors = strategies.map { _ in LiveRunMonitor() }
        let finished = CancellationFlag()
        let shared = sharesBackend(scenario)
        // Labels mark what differs from the defaults (each strategy on its own backend; the
        // engine as it is), so groups of default runs keep their identity across versions.
        var labels = context.labels
        if shared, sharesBackendByChoice(scenario) { labels["load"] = "shared" }
        switch target {
        case .inProcess(.model), .embeddedServer(.model): labels["backend"] = LiveBackendKind.model.rawValue
        default: break
        }
        var engine: (SearchEngine, ReferenceFilter)?
        if case .inProcess = target {
            let catalog = try ScenarioCatalog.load(scenario.catalog, baseDirectory: context.baseDirectory)
            engine = (try SearchEngine.build(catalog: catalog), ReferenceFilter(catalog: catalog))
        }
        let backends: [any LiveSearchBackend]
        if shared {
            let one = try makeBackend(context, engine: engine, globalTypists: indices)
            backends = strategies.map { _ in one }
        } else {
            backends = try strategies.map { _ in try makeBackend(context, engine: engine, globalTypists: indices) }
        }
        defer {
            if shared { backends.first?.shutdown() } else { backends.forEach { $0.shutdown() } }
        }
        // Each strategy's failures are tallied by cause for the progress line.
        let tallies = backends.map { ErrorTallyBackend($0) }
        let labelsForGroups = labels
        let usageBefore = try? ResourceUsage.current()

        let groups = try await withThrowingTaskGroup(of: (Int, MetricGroup)?.self) { group in
            for (index, strategy) in strategies.enumerated() {
                if let field = fields[index] {
                    group.addTask {
                        let result = try await LiveFieldRun.run(
                            field, name: strategy.name, typists: typists, globalIndices: indices, backend: tallies[index],
                            parameters: strategy.fieldParameters, options: options, monitor: monitors[index])
                        return (index, MetricGroup(name: strategy.name, labels: labelsForGroups, metrics: result.metrics))
                    }
                    continue
                }
                let spec = VirtualWorkload.simulationStrategy(strategy)
                group.addTask {
                    let result = await LiveRunner.run(
                        typists: typists, strategy: spec.preset, configuration: spec.configuration,
                        backend: tallies[index], options: options, monitor: monitors[index])
                    // The recorder numbered the typists by slot; the examples name them in the population.
                    var metrics = result.metrics
                    metrics.renumberExampleTypists { indices[$0] }
                    return (index, MetricGroup(name: spec.name, labels: labelsForGroups, metrics: metrics))
                }
            }
            // Ends typing at the phase duration, forwards a stop request, and publishes the
            // monitors' counters while the recorders are still open, with the recorders' latency
            // histograms so far (refreshed at the snapshot interval: they cost a pass over the
            // recorder's totals under its lock).
            group.addTask {
                let deadline = Int64(MonotonicClock.now()) + scenario.durationNanos
                var histograms = strategies.map { _ in [String: Histogram]() }
                var refreshed: Int64?
                while !finished.isCancelled {
                    let now = Int64(MonotonicClock.now())
                    if refreshed.map({ now - $0 >= scenario.driver.snapshotIntervalNanos / 2 }) ?? true {
                        refreshed = now
                        for index in monitors.indices {
                            if let running = monitors[index].metricsSoFar() { histograms[index] = running.histograms }
                        }
                    }
                    if context.progress.isStopRequested || Int64(MonotonicClock.now()) >= deadline {
                        for monitor in monitors where !monitor.isStopRequested { monitor.requestStop() }
                    }
                    context.progress.publish(
                        groups: strategies.indices.map { index in
                            Self.progressGroup(strategies[index].name, labelsForGroups, monitors[index], tallies[index],
                                               histograms: histograms[index])
                        },
                        typistsActive: monitors.map { $0.typistsActive.load(ordering: .relaxed) }.max() ?? 0)
                    try? await Task.sleep(nanoseconds: 100_000_000)
                }
                return nil
            }
            var results: [MetricGroup?] = Array(repeating: nil, count: strategies.count)
            var remaining = strategies.count
            defer { finished.cancel() }
            while remaining > 0, let next = try await group.next() {
                guard let (index, metricGroup) = next else { continue }
                results[index] = metricGroup
                remaining -= 1
            }
            finished.cancel()
            return results.compactMap { $0 }
        }
        return Self.withProcessFigures(groups, since: usageBefore)
    }

    /// This worker process's figures for the phase, on every group (the strategies ran at once
    /// in it and shared them): CPU time since `before`, peak RSS, and the heap jemalloc holds at
    /// the end (left out on the system allocator). Left out entirely if the kernel cannot say.
    static func withProcessFigures(_ groups: [MetricGroup], since before: ResourceUsage?) -> [MetricGroup] {
        guard let before, let after = try? ResourceUsage.current() else { return groups }
        let cpuNanos = Int64(max(0, after.cpuSeconds - before.cpuSeconds) * 1e9)
        let heap = AllocatorStats.current().map { Int64(clamping: $0.allocatedBytes) }
        return groups.map { group in
            var group = group
            group.metrics.add(MetricName.cpuNs, cpuNanos)
            group.metrics.raiseMaximum(MetricName.peakRSS, to: Int64(clamping: after.peakRSSBytes))
            if let heap { group.metrics.add(MetricName.allocatedBytes, heap) }
            return group
        }
    }

    /// Running figures of one strategy: the monitor's and tally's counts, and the recorder's
    /// histograms so far (`ttfr_ns`, request latency, …; the recorder's full metrics arrive when
    /// its run ends), so `abort` thresholds on latencies judge a live phase while it runs.
    static func progressGroup(_ name: String, _ labels: [String: String], _ monitor: LiveRunMonitor, _ tally: ErrorTallyBackend,
                              histograms: [String: Histogram] = [:]) -> MetricGroup {
        var metrics = MetricSet(histograms: histograms)
        metrics.add(MetricName.keystrokes, Int64(monitor.keystrokes.load(ordering: .relaxed)))
        metrics.add(MetricName.requestsStarted, Int64(monitor.requestsStarted.load(ordering: .relaxed)))
        tally.add(to: &metrics)
        return MetricGroup(name: name, labels: labels, metrics: metrics)
    }
}
