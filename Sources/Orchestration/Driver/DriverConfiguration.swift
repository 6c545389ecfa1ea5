import TypestormMetrics
import TypestormSystem

/// Everything `Driver` needs to run a scenario over worker processes.
public struct DriverConfiguration: Sendable {
    public var scenario: Scenario
    /// The canonical scenario file the workers read (the driver checks their hash against it).
    public var scenarioFile: String
    /// Where relative scenario paths resolve.
    public var baseDirectory: String
    public var workers: Int
    /// The `typestorm` executable that runs `worker` (normally this process's own executable).
    public var executable: String
    /// Replaces the worker command line for worker `index` (tests use it to inject faults);
    /// `nil` runs `executable worker --driver …`.
    public var workerCommand: (@Sendable (_ index: Int, _ standard: [String]) -> (executable: String, arguments: [String]))?
    /// Each worker's standard error goes to `worker-<i>.log` here (inherited when `nil`).
    public var logDirectory: String?
    public var toolVersion: String
    public var gitCommit: String?
    /// The embedded server's base URL, passed to workers for `http-embedded` phases.
    public var serverURL: String?
    /// Trap SIGINT/SIGTERM and drain (off for drivers embedded in tests).
    public var handleSignals: Bool
    /// How often `DriverEvent.progress` is emitted.
    public var progressIntervalNanos: Int64
    /// Called on the driver's thread for everything that happens; keep it short.
    public var onEvent: (@Sendable (DriverEvent) -> Void)?

    public init(
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
public enum DriverEvent: Sendable {
    case spawned(worker: Int, pid: Int32)
    case ready(worker: Int)
    case phaseStarted(phase: Int, runner: String, workers: Int)
    case snapshot(worker: Int, sequence: Int)
    case workerFailed(worker: Int, problem: String)
    case stopping(reason: String)
    case progress(DriverProgress)
}

/// Live figures for the progress display.
public struct DriverProgress: Sendable {
    public struct WorkerHealth: Sendable {
        public var index: Int
        public var pid: Int32
        /// starting, ready, running, phase done, done, failed, exited.
        public var state: String
        /// Since the last message from the worker.
        public var silenceNanos: Int64
        public var snapshots: Int
    }

    public var elapsedNanos: Int64
    public var phase: Int
    public var phaseCount: Int
    public var runner: String?
    public var typistsActive: Int
    public var keystrokes: Int64
    public var keystrokesPerSecond: Double
    public var requests: Int64
    public var requestsPerSecond: Double
    public var errors: Int64
    /// p99 time to fresh results so far, over every worker (nil until one was measured).
    public var ttfrP99Nanos: Int64?
    /// Failed requests so far by cause ("connection refused × 12, HTTP 503 × 3"), nil if none.
    public var errorCauses: String? = nil
    /// Every group so far, merged over the workers' latest snapshots (running counts during a
    /// live phase, the recorder's metrics once it ended).
    public var groups: [MetricGroup] = []
    public var workers: [WorkerHealth]
}

/// One worker's part in the outcome.
public struct WorkerReport: Sendable, Equatable {
    public var index: Int
    public var pid: Int32
    public var segment: Segment
    public var exit: ExitStatus?
    /// Why the worker's data is incomplete, naming it; `nil` when it finished cleanly.
    public var problem: String?
    public var snapshots: Int
    /// The worker sent its final record.
    public var completed: Bool
}

/// What `Driver.run` returns: the merged record and each worker's fate.
public struct DriverOutcome: Sendable {
    public var record: RunRecord
    public var workers: [WorkerReport]
    /// SIGINT or SIGTERM stopped the run.
    public var interruptedBy: Int32?
    /// An `abort` threshold stopped the run: its verdict on the running figures.
    public var abortedBy: String? = nil
    public var startedWallClockNanos: Int64
    public var endedWallClockNanos: Int64
    /// CPU time of the driver's loop thread during the run, and snapshots processed: the
    /// driver's overhead per snapshot.
    public var driverCPUNanos: Int64
    public var snapshotsReceived: Int
    /// CPU time (user + system) of the reaped workers, from `getrusage(RUSAGE_CHILDREN)`.
    public var workersCPUNanos: Int64 = 0

    public var isPartial: Bool { record.partial }
}
