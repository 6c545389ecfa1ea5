import TypestormMetrics
import TypestormSystem

/// Everything `Driver` needs to run a scenario over worker processes.
package struct DriverConfiguration: Sendable {
    package var scenario: Scenario
    /// The canonical scenario file the workers read (the driver checks their hash against it).
    package var scenarioFile: String
    /// Where relative scenario paths resolve.
    package var baseDirectory: String
    package var workers: Int
    /// The `typestorm` executable that runs `worker` (normally this process's own executable).
    package var executable: String
    /// Replaces the worker command line for worker `index` (tests use it to inject faults);
    /// `nil` runs `executable worker --driver …`.
    package var workerCommand: (@Sendable (_ index: Int, _ standard: [String]) -> (executable: String, arguments: [String]))?
    /// Each worker's standard error goes to `worker-<i>.log` here (inherited when `nil`).
    package var logDirectory: String?
    package var toolVersion: String
    package var gitCommit: String?
    /// The embedded server's base URL, passed to workers for `http-embedded` phases.
    package var serverURL: String?
    /// Trap SIGINT/SIGTERM and drain (off for drivers embedded in tests).
    package var handleSignals: Bool
    /// How often `DriverEvent.progress` is emitted.
    package var progressIntervalNanos: Int64
    /// Called on the driver's thread for everything that happens; keep it short.
    package var onEvent: (@Sendable (DriverEvent) -> Void)?

    package init(
        scenario: Scenario, scenarioFile: String, baseDirectory: String, workers: Int, executable: String,
        workerCommand: (@Sendable (Int, [String]) -> (executable: String, arguments: [String]))? = nil,
        logDirectory: String? = nil, toolVersion: String, gitCommit: String? = nil, serverURL: String? = nil,
        handleSignals: Bool = true, progressIntervalNanos: Int64 = 1_000_000_000,
        onEvent: (@Sendable (DriverEvent) -> Void)? = nil
    ) {
        self.scenario = scenario
        self.scenarioFile = scenarioFile
        self.baseDirectory = baseDirectory
        self.workers = workers
        self.executable = executable
        self.workerCommand = workerCommand
        self.logDirectory = logDirectory
        self.toolVersion = toolVersion
        self.gitCommit = gitCommit
        self.serverURL = serverURL
        self.handleSignals = handleSignals
        self.progressIntervalNanos = progressIntervalNanos
        self.onEvent = onEvent
    }
}

/// What happens during a run, as the driver sees it.
package enum DriverEvent: Sendable, Equatable {
    case spawned(worker: Int, pid: Int32)
    case ready(worker: Int)
    case phaseStarted(phase: Int, runner: String, workers: Int)
    case snapshot(worker: Int, sequence: Int)
    case workerFailed(worker: Int, problem: String)
    case stopping(reason: String)
    case progress(DriverProgress)
}

/// Live figures for the progress display.
package struct DriverProgress: Sendable, Equatable {
    package struct WorkerHealth: Sendable, Equatable {
        package var index: Int
        package var pid: Int32
        /// starting, ready, running, phase done, done, failed, exited.
        package var state: String
        /// Since the last message from the worker.
        package var silenceNanos: Int64
        package var snapshots: Int
    }

    package var elapsedNanos: Int64
    package var phase: Int
    package var phaseCount: Int
    package var runner: String?
    package var typistsActive: Int
    package var keystrokes: Int64
    package var keystrokesPerSecond: Double
    package var requests: Int64
    package var requestsPerSecond: Double
    package var errors: Int64
    /// p99 time to fresh results so far, over every worker (nil until one was measured).
    package var ttfrP99Nanos: Int64?
    /// Failed requests so far by cause ("connection refused × 12, HTTP 503 × 3"), nil if none.
    package var errorCauses: String? = nil
    /// Every group so far, merged over the workers' latest snapshots (running counts during a
    /// live phase, the recorder's metrics once it ended).
    package var groups: [MetricGroup] = []
    package var workers: [WorkerHealth]
}

/// One worker's part in the outcome.
package struct WorkerReport: Sendable, Equatable {
    package var index: Int
    package var pid: Int32
    package var segment: Segment
    package var exit: ExitStatus?
    /// Why the worker's data is incomplete, naming it; `nil` when it finished cleanly.
    package var problem: String?
    package var snapshots: Int
    /// The worker sent its final record.
    package var completed: Bool
}

/// What `Driver.run` returns: the merged record and each worker's fate.
package struct DriverOutcome: Sendable {
    package var record: RunRecord
    package var workers: [WorkerReport]
    /// SIGINT or SIGTERM stopped the run.
    package var interruptedBy: Int32?
    /// An `abort` threshold stopped the run: its verdict on the running figures.
    package var abortedBy: String? = nil
    package var startedWallClockNanos: Int64
    package var endedWallClockNanos: Int64
    /// CPU time of the driver's loop thread during the run, and snapshots processed: the
    /// driver's overhead per snapshot.
    package var driverCPUNanos: Int64
    package var snapshotsReceived: Int
    /// CPU time (user + system) of the reaped workers, from `getrusage(RUSAGE_CHILDREN)`.
    package var workersCPUNanos: Int64 = 0

    package var isPartial: Bool { record.partial }
}
