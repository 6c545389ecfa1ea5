import TypestormMetrics
import Locking
import TypestormSystem
import Synchronization

/// What a worker runs in one phase: its share of the typists under one runner.
///
/// The seam between the driver and the runners. Each runner (virtual, in-process, HTTP) is
/// wrapped in one conforming type, registered in `WorkloadRegistry`; the worker process knows
/// nothing else about it.
package protocol PhaseWorkload: Sendable {
    /// Runs the typists of `context.typists` and returns what they measured: one group per
    /// strategy. Publishes cumulative progress through `context.progress` as it goes, and
    /// returns early (with what it has) once `context.progress.isStopRequested`.
    func run(_ context: PhaseContext) async throws -> [MetricGroup]

    /// This workload with what does not depend on the phase's start built ahead (the typist
    /// population), called once per worker before it reports `ready`: that work then happens
    /// while the worker waits at the barrier instead of inside the phase that every worker
    /// starts at the same instant. The default has nothing to build.
    func prepared(_ resources: WorkloadResources) throws -> any PhaseWorkload
}

extension PhaseWorkload {
    package func prepared(_ resources: WorkloadResources) throws -> any PhaseWorkload { self }
}

/// What the workloads of one worker build ahead and share (`PhaseWorkload.prepared`): built on
/// first use, so a scenario whose runners need none of it never builds it.
package final class WorkloadResources: Sendable {
    package let scenario: Scenario
    package let baseDirectory: String
    private let cachedTypists = Locked<ScenarioTypists?>(nil)

    package init(scenario: Scenario, baseDirectory: String) {
        self.scenario = scenario
        self.baseDirectory = baseDirectory
    }

    /// The scenario's typists (`ScenarioTypists`), built once.
    package func typists() throws -> ScenarioTypists {
        try cachedTypists.withLock { cached in
            if let cached { return cached }
            let typists = try ScenarioTypists(scenario: scenario, baseDirectory: baseDirectory)
            cached = typists
            return typists
        }
    }
}

/// Everything a workload needs for one phase.
package struct PhaseContext: Sendable {
    package var scenario: Scenario
    /// Directory that relative paths in the scenario (the catalog file) are resolved against.
    package var baseDirectory: String
    package var segment: Segment
    /// Indices of the typists this worker runs (see `Population.typistIndices`).
    package var typists: [Int]
    package var runner: RunnerSpec
    package var phase: Int
    /// When the phase started, on the wall clock (for live runners' pacing).
    package var startWallClockNanos: Int64
    package var progress: ProgressSink
    /// The embedded server's base URL, for `http-embedded` (set by the driver).
    package var serverURL: String?

    package init(scenario: Scenario, baseDirectory: String, segment: Segment, typists: [Int], runner: RunnerSpec,
                phase: Int, startWallClockNanos: Int64, progress: ProgressSink, serverURL: String? = nil) {
        self.scenario = scenario
        self.baseDirectory = baseDirectory
        self.segment = segment
        self.typists = typists
        self.runner = runner
        self.phase = phase
        self.startWallClockNanos = startWallClockNanos
        self.progress = progress
        self.serverURL = serverURL
    }

    /// The labels every group of this phase carries.
    package var labels: [String: String] { ["runner": runner.kind] }
}

/// Where a running workload leaves its latest cumulative measurements for the worker's
/// snapshot thread, and where the worker tells it to stop.
package final class ProgressSink: Sendable {
    private struct State {
        var groups: [MetricGroup] = []
        var typistsActive = 0
    }
    private let state = Locked(State())
    private let stop = CancellationFlag()

    package init() {}

    /// Replaces the published measurements of the running phase.
    package func publish(groups: [MetricGroup], typistsActive: Int) {
        state.withLock { state in
            state.groups = groups
            state.typistsActive = typistsActive
        }
    }

    package var latest: (groups: [MetricGroup], typistsActive: Int) {
        state.withLock { ($0.groups, $0.typistsActive) }
    }

    package func requestStop() { stop.cancel() }
    package var isStopRequested: Bool { stop.isCancelled }
}

/// The workload that runs each scenario runner kind.
package enum WorkloadRegistry {
    /// The workload for `runner`.
    package static func workload(for runner: RunnerSpec) -> any PhaseWorkload {
        switch runner {
        case let .probe(realTime):
            return ProbeWorkload(realTime: realTime)
        case .virtual:
            return VirtualWorkload()
        case let .inProcess(kind):
            return LiveWorkload(target: .inProcess(kind))
        case let .httpEmbedded(_, kind):
            return LiveWorkload(target: .embeddedServer(kind))
        case let .httpURL(template, request):
            return LiveWorkload(target: .url(template, request))
        }
    }
}
