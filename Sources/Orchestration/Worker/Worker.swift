import Diagnostics
import Foundation
import TypestormMetrics
import TypestormSystem
import Locking
import Synchronization

/// How a worker was started.
package struct WorkerOptions: Sendable {
    package enum Mode: Sendable {
        /// Under `typestorm run`: protocol on standard input/output, dies with its parent.
        case driver(parentPID: Int32?)
        /// On its own (a Slurm task, a Kubernetes pod, a shell): runs at once, writes the run
        /// record to `output` (standard output when `nil`).
        case standalone(output: String?)
    }

    package var scenarioPath: String
    /// Where relative paths in the scenario are resolved (default: the scenario's directory).
    package var baseDirectory: String?
    package var segment: Segment
    package var mode: Mode
    package var toolVersion: String
    /// The embedded search server's base URL (for `http-embedded` phases), from the driver.
    package var serverURL: String?
    /// Progress and diagnostics (standard error).
    package var log: @Sendable (String) -> Void

    package init(scenarioPath: String, baseDirectory: String? = nil, segment: Segment, mode: Mode, toolVersion: String,
                serverURL: String? = nil, log: @escaping @Sendable (String) -> Void) {
        self.serverURL = serverURL
        self.scenarioPath = scenarioPath
        self.baseDirectory = baseDirectory
        self.segment = segment
        self.mode = mode
        self.toolVersion = toolVersion
        self.log = log
    }
}

/// One worker process: runs segment i/N of a scenario's typists, phase by phase.
package enum Worker {
    package static func run(_ options: WorkerOptions) async -> WorkerOutcome {
        switch options.mode {
        case let .driver(parentPID):
            return await runUnderDriver(options, parentPID: parentPID)
        case let .standalone(output):
            return await runStandalone(options, output: output)
        }
    }

    /// Loads the scenario and checks its runners.
    static func prepare(_ options: WorkerOptions) -> Result<(Scenario, [any PhaseWorkload]), PrepareFailure> {
        let scenario: Scenario
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: options.scenarioPath))
            scenario = try ScenarioReader.read(bytes: Array(data), file: options.scenarioPath)
        } catch let error as ScenarioError {
            return .failure(PrepareFailure(message: error.description, kind: .badInput))
        } catch {
            return .failure(PrepareFailure(message: "cannot read scenario \(options.scenarioPath): \(ErrorText.describe(error))", kind: .missingInput))
        }
        let workloads = scenario.runners.map(WorkloadRegistry.workload(for:))
        if options.serverURL == nil, let index = scenario.runners.firstIndex(where: { if case .httpEmbedded = $0 { true } else { false } }) {
            return .failure(PrepareFailure(
                message: "\(options.scenarioPath): $.runners[\(index)]: an http-embedded runner needs the search server that 'typestorm run' starts "
                    + "(--server-url); run this scenario with 'typestorm run', or aim an http-url runner at 'typestorm serve'",
                kind: .cannotRun))
        }
        return .success((scenario, workloads))
    }

    /// Builds each workload's phase-independent parts (`PhaseWorkload.prepared`) before the
    /// first phase, so they are not inside the phase all workers start together.
    static func prepareWorkloads(_ workloads: [any PhaseWorkload], scenario: Scenario, options: WorkerOptions)
        -> Result<[any PhaseWorkload], PrepareFailure> {
        let resources = WorkloadResources(scenario: scenario, baseDirectory: baseDirectory(options))
        var prepared: [any PhaseWorkload] = []
        for (phase, workload) in workloads.enumerated() {
            do {
                prepared.append(try workload.prepared(resources))
            } catch {
                return .failure(PrepareFailure(message: "phase \(phase) (\(scenario.runners[phase].kind)) cannot be prepared: \(error)",
                                               kind: .cannotRun))
            }
        }
        return .success(prepared)
    }

    struct PrepareFailure: Error {
        var message: String
        var kind: RunFailureKind
    }

    static func baseDirectory(_ options: WorkerOptions) -> String {
        options.baseDirectory ?? URL(fileURLWithPath: options.scenarioPath).deletingLastPathComponent().path
    }

    static func record(_ scenario: Scenario, options: WorkerOptions, groups: [MetricGroup], stopped: Bool,
                       started: Int64?, ended: Int64?) -> RunRecord {
        let metadata = RunMetadata(
            toolVersion: options.toolVersion, scenarioName: scenario.name, scenarioHash: scenario.hash,
            seed: scenario.seed, runner: scenario.runners.map(\.kind).joined(separator: ","),
            segments: [options.segment],
            startedAtMillis: scenario.runners.contains(where: \.isLive) ? started.map { $0 / 1_000_000 } : nil,
            endedAtMillis: scenario.runners.contains(where: \.isLive) ? ended.map { $0 / 1_000_000 } : nil)
        var problems: [String] = []
        if stopped { problems.append("segment \(options.segment.index)/\(options.segment.count) was stopped before the end") }
        return RunRecord(metadata: metadata, groups: groups, partial: stopped, problems: problems)
    }

    /// Runs one phase's workload, labelling every group with the runner.
    static func runPhase(_ workload: any PhaseWorkload, context: PhaseContext) async throws -> [MetricGroup] {
        try await workload.run(context).map { group in
            var group = group
            if group.labels["runner"] == nil { group.labels["runner"] = context.runner.kind }
            return group
        }
    }

    // MARK: Standalone

    private static func runStandalone(_ options: WorkerOptions, output: String?) async -> WorkerOutcome {
        let prepared: (Scenario, [any PhaseWorkload])
        switch prepare(options) {
        case let .success(value): prepared = value
        case let .failure(failure):
            options.log("error: \(failure.message)\n")
            return .failed(failure.kind)
        }
        let scenario = prepared.0
        let workloads: [any PhaseWorkload]
        switch prepareWorkloads(prepared.1, scenario: scenario, options: options) {
        case let .success(value): workloads = value
        case let .failure(failure):
            options.log("error: \(failure.message)\n")
            return .failed(failure.kind)
        }
        let trap = try? SignalTrap()
        let sink = ProgressSink()
        let typists = Array(scenario.population.typistIndices(segment: options.segment.index, of: options.segment.count))
        options.log("worker \(options.segment.index)/\(options.segment.count): \(typists.count) typists, \(scenario.runners.count) phase(s)\n")
        let watcher = Thread {
            while !sink.isStopRequested {
                guard let trap else { return }
                if let ready = try? PipeIO.poll([trap.fileDescriptor], timeoutMillis: 200), !ready.isEmpty, !trap.received().isEmpty {
                    options.log("worker: signal received, stopping\n")
                    sink.requestStop()
                }
            }
        }
        watcher.start()
        let started = WallClock.now()
        var groups: [MetricGroup] = []
        for (phase, workload) in workloads.enumerated() where !sink.isStopRequested {
            let context = PhaseContext(
                scenario: scenario, baseDirectory: baseDirectory(options), segment: options.segment, typists: typists,
                runner: scenario.runners[phase], phase: phase, startWallClockNanos: WallClock.now(), progress: sink, serverURL: options.serverURL)
            do {
                groups += try await runPhase(workload, context: context)
            } catch {
                options.log("error: phase \(phase) (\(scenario.runners[phase].kind)) failed: \(error)\n")
                sink.requestStop()
                return .failed(.cannotRun)
            }
        }
        let stopped = sink.isStopRequested
        sink.requestStop()
        let record = record(scenario, options: options, groups: groups, stopped: stopped, started: started, ended: WallClock.now())
        do {
            let data = try record.encoded() + Data("\n".utf8)
            if let output {
                try AtomicFile.write(data, to: output)
                options.log("worker: wrote \(output)\n")
            } else {
                FileHandle.standardOutput.write(data)
            }
        } catch {
            options.log("error: cannot write the run record to \(output ?? "standard output"): \(ErrorText.describe(error))\n")
            return .failed(.cannotWrite)
        }
        return stopped ? .stopped : .completed
    }

    // MARK: Under a driver

    /// What the control thread and the phase loop share.
    final class Shared: Sendable {
        struct State {
            var sequence = 0
            var phase = -1
            var completed: [MetricGroup] = []
            var finished = false
        }
        let state = Locked(State())
        let sink = ProgressSink()
        let writer: ProtocolWriter

        init(writer: ProtocolWriter) { self.writer = writer }

        /// Builds the cumulative snapshot (completed phases plus what the running phase
        /// published) and sends it, under one lock so sequence numbers leave in order.
        func sendSnapshot(phaseDone: Int? = nil) {
            let (live, active) = sink.latest
            state.withLock { state in
                state.sequence += 1
                var groups = state.completed
                if state.phase >= 0, phaseDone == nil { groups += live }
                let snapshot = WorkerProtocol.Snapshot(sequence: state.sequence, phase: state.phase, typistsActive: active, groups: groups)
                writer.send(phaseDone.map { .phaseDone(phase: $0, snapshot: snapshot) } ?? .snapshot(snapshot))
            }
        }
    }

    private static func runUnderDriver(_ options: WorkerOptions, parentPID: Int32?) async -> WorkerOutcome {
        if !SignalTrap.dieWithParent(signal: SIGTERM, expectedParent: parentPID) {
            options.log("worker: the driver is gone; exiting\n")
            return .failed(.cannotRun)
        }
        // Keep the protocol on a private descriptor and point standard output at standard error,
        // so a stray print anywhere in the process cannot corrupt the message stream.
        let protocolFD = dup(1)
        _ = dup2(2, 1)
        let shared = Shared(writer: ProtocolWriter(fd: protocolFD))
        let writer = shared.writer

        let prepared: (Scenario, [any PhaseWorkload])
        switch prepare(options) {
        case let .success(value): prepared = value
        case let .failure(failure):
            writer.send(.error(failure.message))
            return .failed(failure.kind)
        }
        let scenario = prepared.0
        writer.send(.hello(.init(pid: getpid(), segment: options.segment, scenarioHash: scenario.hash, toolVersion: options.toolVersion)))
        // The heartbeat starts before the typists are built, so a large population cannot look
        // like a hung worker to the driver.
        let (starts, startContinuation) = AsyncStream.makeStream(of: (phase: Int, at: Int64).self)
        let control = Thread {
            controlLoop(shared: shared, interval: scenario.driver.snapshotIntervalNanos, starts: startContinuation, log: options.log)
        }
        control.start()
        let workloads: [any PhaseWorkload]
        switch prepareWorkloads(prepared.1, scenario: scenario, options: options) {
        case let .success(value): workloads = value
        case let .failure(failure):
            shared.state.withLock { $0.finished = true }
            writer.send(.error(failure.message), final: true)
            return .failed(failure.kind)
        }
        let typists = Array(scenario.population.typistIndices(segment: options.segment.index, of: options.segment.count))
        writer.send(.ready(typists: typists.count))

        let started = WallClock.now()
        var iterator = starts.makeAsyncIterator()
        var failure: String?
        for (phase, workload) in workloads.enumerated() {
            guard let start = await iterator.next(), !shared.sink.isStopRequested else { break }
            guard start.phase == phase else {
                failure = "expected start of phase \(phase), got phase \(start.phase)"
                break
            }
            let wait = start.at - WallClock.now()
            if wait > 0 { try? await Task.sleep(nanoseconds: UInt64(wait)) }
            shared.sink.publish(groups: [], typistsActive: 0)
            shared.state.withLock { $0.phase = phase }
            let context = PhaseContext(
                scenario: scenario, baseDirectory: baseDirectory(options), segment: options.segment, typists: typists,
                runner: scenario.runners[phase], phase: phase, startWallClockNanos: start.at, progress: shared.sink,
                serverURL: options.serverURL)
            do {
                let groups = try await runPhase(workload, context: context)
                // Clear the live view first: a snapshot taken in between under-counts for one
                // interval instead of counting the phase twice.
                shared.sink.publish(groups: [], typistsActive: 0)
                shared.state.withLock { $0.completed += groups }
                if shared.sink.isStopRequested { break }
                shared.sendSnapshot(phaseDone: phase)
            } catch {
                failure = "phase \(phase) (\(scenario.runners[phase].kind)) failed: \(error)"
                break
            }
        }
        let stopped = shared.sink.isStopRequested
        shared.sink.requestStop()
        startContinuation.finish()
        let completed = shared.state.withLock { state in
            state.finished = true
            return state.completed
        }
        if let failure {
            writer.send(.error(failure), final: true)
            return .failed(.cannotRun)
        }
        let record = record(scenario, options: options, groups: completed, stopped: stopped, started: started, ended: WallClock.now())
        writer.send(.done(record), final: true)
        return stopped ? .stopped : .completed
    }

    /// Reads driver messages from standard input and sends a snapshot every interval, on its own
    /// thread so a busy workload cannot delay the heartbeat.
    private static func controlLoop(shared: Shared, interval: Int64, starts: AsyncStream<(phase: Int, at: Int64)>.Continuation,
                                    log: @Sendable (String) -> Void) {
        var lines = LineBuffer(maximumLineLength: 1 << 20)
        var nextSnapshot = Int64(MonotonicClock.now()) + interval
        var inputOpen = true
        while !shared.state.withLock({ $0.finished }) {
            let now = Int64(MonotonicClock.now())
            if now >= nextSnapshot {
                shared.sendSnapshot()
                nextSnapshot = now + interval
            }
            let timeout = Int32(max(1, min(100, (nextSnapshot - now) / 1_000_000)))
            guard inputOpen else {
                MonotonicClock.sleep(Int64(timeout) * 1_000_000)
                continue
            }
            guard let ready = try? PipeIO.poll([0], timeoutMillis: timeout), !ready.isEmpty else { continue }
            let bytes = (try? PipeIO.readAvailable(0)) ?? []
            if bytes.isEmpty {
                // The driver closed our input: it is gone or wants us gone.
                inputOpen = false
                shared.sink.requestStop()
                starts.finish()
                continue
            }
            do {
                for line in try lines.append(bytes) {
                    switch try WorkerProtocol.decodeDriverMessage(line) {
                    case let .start(phase, at): starts.yield((phase, at))
                    case let .stop(reason):
                        log("worker: stop requested (\(reason))\n")
                        shared.sink.requestStop()
                        starts.finish()
                    }
                }
            } catch {
                log("worker: bad message from the driver: \(error); stopping\n")
                shared.sink.requestStop()
                starts.finish()
            }
        }
    }
}

/// Writes protocol messages to one descriptor, whole lines at a time, from any thread.
final class ProtocolWriter: Sendable {
    private let fd: Locked<Int32>
    private let broken = Atomic<Bool>(false)

    init(fd: Int32) { self.fd = Locked(fd) }

    /// Sends `message`; a write error (the driver went away) is remembered and later sends are
    /// dropped: the worker notices through its closed input and stops.
    ///
    /// `final`: the last message (`done` or an error before exiting); later sends are dropped,
    /// so a heartbeat snapshot racing the exit can neither follow the result nor be cut off
    /// half-written when the process ends.
    func send(_ message: WorkerProtocol.WorkerMessage, final: Bool = false) {
        let bytes = WorkerProtocol.encode(message)
        fd.withLock { fd in
            guard !broken.load(ordering: .relaxed) else { return }
            do { try PipeIO.writeAll(fd, bytes) } catch { broken.store(true, ordering: .relaxed) }
            if final { broken.store(true, ordering: .relaxed) }
        }
    }
}

/// Writes a file atomically: a temporary sibling, then `rename`.
package enum AtomicFile {
    package static func write(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())")
        try data.write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw ProcessError(call: "rename \(temporary.path) → \(url.path)", errno: code)
        }
    }
}
