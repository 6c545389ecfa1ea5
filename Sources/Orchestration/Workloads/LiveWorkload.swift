import Catalog
import Foundation
import LiveLoad
import Matching
import Measurement
import Platform
import SearchField
import Simulation
import Synchronization
import Typists

/// The live runners: every strategy in real time over the segment's typists, against the filter
/// engine in this process (`in-process`) or an HTTP server (`http-embedded`, `http-url`), through
/// LiveLoad's `LiveRunner`.
///
/// The strategies run at the same time, each with its own fields for the same typists and all
/// sharing one backend: the comparison is under one load, as on a shared server. Typists come
/// from the Typists module (`ScenarioTypists`, the same keys the virtual runner types), arriving
/// on the scenario's schedule; typing stops at the phase duration, then in-flight work drains for up to
/// `driver.drain`.
struct LiveWorkload: PhaseWorkload {
    enum Target: Sendable {
        case inProcess
        case embeddedServer
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

    func makeBackend(_ context: PhaseContext) throws -> any LiveSearchBackend {
        let scenario = context.scenario
        switch target {
        case .inProcess:
            let catalog = try ScenarioCatalog.load(scenario.catalog, baseDirectory: context.baseDirectory)
            return EngineSearchBackend(engine: SearchEngine(catalog: catalog), reference: ReferenceFilter(catalog: catalog),
                                       workers: scenario.backend.workers)
        case .embeddedServer:
            guard let url = context.serverURL else {
                throw Failure(description: "no embedded server URL was given to this worker (--server-url)")
            }
            return try HTTPSearchBackend(target: try HTTPSearchTarget.embeddedServer(baseURL: url),
                                         timeoutNanos: UInt64(scenario.backend.timeoutNanos))
        case let .url(template, request):
            let countPath = try request.effectiveCountPath.map { path in try JSONCountPath(path) }
            let headers: [String]
            do { headers = try request.headerLines(environment: ProcessInfo.processInfo.environment) } catch {
                throw Failure(description: error.description)
            }
            return try HTTPSearchBackend(
                target: HTTPSearchTarget(template: try URLTemplate(template, requiresQuery: request.body == nil), countPath: countPath,
                                         body: try request.body.map { text in try BodyTemplate(text) }),
                timeoutNanos: UInt64(scenario.backend.timeoutNanos), headers: headers,
                caFile: request.caFile.map { ScenarioCatalog.path($0, baseDirectory: context.baseDirectory) }, compressed: request.compressed)
        }
    }

    func run(_ context: PhaseContext) async throws -> [MetricGroup] {
        let scenario = context.scenario
        let backend = try makeBackend(context)
        defer { backend.shutdown() }
        let simulation = VirtualWorkload.simulationScenario(scenario)
        let arrivals = ArrivalSchedule(population: scenario.population, seed: scenario.seed)
        // Typists who would arrive after the phase ends never come (they would only hold it open).
        let population = try typists ?? ScenarioTypists(scenario: scenario, baseDirectory: context.baseDirectory)
        let typists = context.typists.filter { arrivals.offsets[$0] < scenario.durationNanos }.map { index in
            let arrival = arrivals.offsets[index]
            return LiveTypist(arrivalNanos: arrival, session: DeadlineSession(
                base: population.session(forTypist: index),
                limit: scenario.durationNanos - arrival))
        }
        let options = LiveRunOptions(drainTimeoutNanos: scenario.driver.drainNanos, settleIntervalNanos: simulation.settleInterval)
        let monitors = simulation.strategies.map { _ in LiveRunMonitor() }
        let tallies = simulation.strategies.map { _ in ErrorTallyBackend(backend) }
        let finished = Flag()
        let labels = context.labels

        return await withTaskGroup(of: (Int, MetricGroup)?.self) { group in
            for (index, spec) in simulation.strategies.enumerated() {
                group.addTask {
                    let result = await LiveRunner.run(
                        typists: typists, strategy: spec.preset, configuration: spec.configuration,
                        backend: tallies[index], options: options, monitor: monitors[index])
                    return (index, MetricGroup(name: spec.name, labels: labels, metrics: result.metrics))
                }
            }
            // Ends typing at the phase duration, forwards a stop request, and publishes the
            // monitors' counters while the recorders are still open.
            group.addTask {
                let deadline = MonotonicNanos.now() + scenario.durationNanos
                while !finished.isSet {
                    if context.progress.isStopRequested || MonotonicNanos.now() >= deadline {
                        for monitor in monitors where !monitor.isStopRequested { monitor.requestStop() }
                    }
                    context.progress.publish(
                        groups: simulation.strategies.indices.map { index in
                            Self.progressGroup(simulation.strategies[index].name, labels, monitors[index], tallies[index])
                        },
                        typistsActive: monitors.map { $0.typistsActive.load(ordering: .relaxed) }.max() ?? 0)
                    try? await Task.sleep(nanoseconds: 100_000_000)
                }
                return nil
            }
            var results: [MetricGroup?] = Array(repeating: nil, count: simulation.strategies.count)
            var remaining = simulation.strategies.count
            while remaining > 0, let next = await group.next() {
                guard let (index, metricGroup) = next else { continue }
                results[index] = metricGroup
                remaining -= 1
            }
            finished.set()
            return results.compactMap { $0 }
        }
    }

    /// Running counts of one strategy (the recorder's metrics arrive when its run ends).
    static func progressGroup(_ name: String, _ labels: [String: String], _ monitor: LiveRunMonitor, _ tally: ErrorTallyBackend) -> MetricGroup {
        var metrics = MetricSet()
        metrics.add(ProgressMetrics.keystrokes, Int64(monitor.keystrokes.load(ordering: .relaxed)))
        metrics.add(ProgressMetrics.requests, Int64(monitor.requestsStarted.load(ordering: .relaxed)))
        tally.add(to: &metrics)
        return MetricGroup(name: name, labels: labels, metrics: metrics)
    }
}

/// A flag set once, shared between tasks.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}

/// A session cut at the phase's end: the typist leaves the field at `limit` (its own time), so a
/// typist asleep until a key after the deadline does not hold the phase open.
public struct DeadlineSession<Base: TypistSession & Sendable>: TypistSession, Sendable {
    var base: Base
    let limit: Int64
    private var ended = false

    public init(base: Base, limit: Int64) {
        self.base = base
        self.limit = limit
    }

    public mutating func next() -> TypingEvent? {
        guard !ended else { return nil }
        guard let event = base.next() else {
            ended = true
            return nil
        }
        if event.at >= limit {
            ended = true
            return TypingEvent(at: max(0, limit), action: .end)
        }
        return event
    }
}
