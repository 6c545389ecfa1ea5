import Foundation
import TypestormMetrics
import TypestormSystem

/// The driver's decisions, apart from its I/O: the stages of every worker, the ready barrier
/// and the common start of each phase, the policing of workers (hello checks, out-of-order
/// messages, garbage, silence, a live phase that outlives its duration, exits), stopping on a
/// signal or an `abort` threshold, the drain, and the progress figures.
///
/// A value with no clock and no processes: `handle` takes what happened (a line from a worker,
/// its output closing, its exit, a signal, a tick with the time) and returns what to do (send a
/// message, signal a worker, close its input, read the rest of its output, emit an event). The
/// driver's loop (`Driver`) turns the world into events and carries out the actions, so every
/// rule here is tested with a manual clock (`DriverStateMachineTests`).
struct DriverStateMachine {
    /// Where a worker is in the run, as the driver has seen it.
    enum Stage: Equatable, Sendable {
        case starting, ready, running(Int), phaseDone(Int), done, failed
    }

    /// What the driver knows of one worker.
    struct Worker: Sendable {
        var index: Int
        var segment: Segment
        /// A process was started for it (the loop reported `spawned`).
        var started = false
        var pid: Int32 = 0
        var stage: Stage = .starting
        /// When its last line arrived (monotonic), for the hang timeout.
        var lastHeard: Int64
        var hello: WorkerProtocol.Hello?
        var latest: WorkerProtocol.Snapshot?
        var record: RunRecord?
        var problem: String?
        var exit: ExitStatus?
        var exitSeenAt: Int64?
        var inputOpen = true
        var outputOpen = true
        var outputClosedAt: Int64?
        var snapshots = 0
        /// When to send SIGKILL if the worker is still alive (after a SIGTERM); `.max` once sent.
        var killAt: Int64?

        var name: String { "worker \(index) (pid \(pid), segment \(segment.index)/\(segment.count))" }
        var isAlive: Bool { exit == nil }
        var isFinished: Bool { exit != nil && !outputOpen }
    }

    /// What happened, as the loop saw it; every time is monotonic nanoseconds.
    enum Event: Sendable {
        /// Worker `worker`'s process started.
        case spawned(worker: Int, pid: Int32, at: Int64)
        /// Worker `worker`'s process could not be started (`reason` says why).
        case spawnFailed(worker: Int, reason: String)
        /// One complete line (without its newline) from the worker's standard output.
        case line(worker: Int, [UInt8], at: Int64)
        /// The worker wrote a line longer than the protocol allows.
        case lineTooLong(worker: Int, reason: String, at: Int64)
        /// The worker's output reached its end (or could not be read) and the loop closed it;
        /// `remainder` is an unterminated last line, if any.
        case outputClosed(worker: Int, remainder: [UInt8], at: Int64)
        /// The worker's process exited (reaped).
        case exited(worker: Int, ExitStatus, at: Int64)
        /// The driver received SIGINT or SIGTERM.
        case signal(Int32, at: Int64)
        /// Time passed: `at` on the monotonic clock, `wallClock` in ns since 1970 (for the
        /// common start instant sent to workers).
        case tick(at: Int64, wallClock: Int64)
    }

    /// What the loop must do, in order.
    enum Action: Sendable, Equatable {
        case send(worker: Int, WorkerProtocol.DriverMessage)
        case signal(worker: Int, Int32)
        case closeInput(worker: Int)
        /// Read what the (exited) worker left in its pipe, then close it and report
        /// `outputClosed`: a grandchild may hold the pipe open forever.
        case drainOutput(worker: Int)
        case emit(DriverEvent)
    }

    /// How far ahead of the barrier's release a phase starts, so every worker has the `start`
    /// message before the instant.
    static let startLead: Int64 = 100_000_000
    /// How long an exited worker's pipe may stay open, or a worker linger after closing its
    /// output, before the driver steps in.
    static let lingerNanos: Int64 = 1_000_000_000

    let scenario: Scenario
    /// Whether progress figures are computed and emitted (someone listens).
    let reportsProgress: Bool
    let progressIntervalNanos: Int64
    let startedAt: Int64
    private(set) var workers: [Worker]

    /// Where the run as a whole is: before the first phase, in a phase, or stopping. A run
    /// stops once (a signal or an `abort` threshold) and never starts another phase after.
    private enum State {
        /// Waiting at the ready barrier; no phase has started.
        case starting
        /// Phase `phase` (the one running or last started) started at `startedAt` (monotonic).
        case running(phase: Int, startedAt: Int64)
        /// The load is stopping: no further phase starts, and the workers still alive at
        /// `drainDeadline` are terminated (`nil` once they were). `phase` and `startedAt` are
        /// those of the phase that was running (-1 and 0 if none had started).
        case stopping(phase: Int, startedAt: Int64, drainDeadline: Int64?)
    }

    private var state = State.starting

    /// The phase running or last started; -1 before the first.
    var phase: Int {
        switch state {
        case .starting: -1
        case let .running(phase, _), let .stopping(phase, _, _): phase
        }
    }

    /// When the current phase started (monotonic), to catch a live phase that never ends; 0
    /// before the first.
    var phaseStartedAt: Int64 {
        switch state {
        case .starting: 0
        case let .running(_, startedAt), let .stopping(_, startedAt, _): startedAt
        }
    }

    /// The run is stopping (a signal or an `abort` threshold): draining, then terminating.
    var stopping: Bool {
        if case .stopping = state { true } else { false }
    }

    /// When the workers still alive are terminated, while stopping.
    var drainDeadline: Int64? {
        if case let .stopping(_, _, deadline) = state { deadline } else { nil }
    }

    /// Moves to `.stopping` with a drain deadline `now` + the drain time.
    private mutating func startStopping(now: Int64) {
        state = .stopping(phase: phase, startedAt: phaseStartedAt, drainDeadline: now + settings.drainNanos)
    }

    private(set) var interruptedBy: Int32?
    /// The `abort` threshold verdict that stopped the run.
    private(set) var abortedBy: String?
    private(set) var snapshotsReceived = 0
    private var lastProgress: (at: Int64, keystrokes: Int64, requests: Int64)?
    private var actions: [Action] = []

    init(scenario: Scenario, workers: Int, startedAt: Int64, reportsProgress: Bool, progressIntervalNanos: Int64) {
        self.scenario = scenario
        self.reportsProgress = reportsProgress
        self.progressIntervalNanos = progressIntervalNanos
        self.startedAt = startedAt
        self.workers = (0..<workers).map { Worker(index: $0, segment: Segment(index: $0, count: workers), lastHeard: startedAt) }
    }

    var settings: DriverSettings { scenario.driver }

    /// Every worker has exited and its output is closed: the run is over.
    var isFinished: Bool { workers.allSatisfy(\.isFinished) }

    /// A worker closed its output and is exiting: nothing wakes `poll` when it is gone, so the
    /// loop should look again soon.
    var hasExitingWorker: Bool {
        workers.contains { !$0.outputOpen && $0.isAlive && $0.killAt == nil && $0.started }
    }

    /// Applies `event` and returns what to do about it.
    mutating func handle(_ event: Event) -> [Action] {
        actions = []
        switch event {
        case let .spawned(index, pid, at):
            workers[index].started = true
            workers[index].pid = pid
            workers[index].lastHeard = at
            emit(.spawned(worker: index, pid: pid))
        case let .spawnFailed(index, reason):
            workers[index].stage = .failed
            workers[index].problem = "worker \(index) (segment \(index)/\(workers.count)) could not be started: \(reason)"
            workers[index].exit = .exited(-1)
            workers[index].inputOpen = false
            workers[index].outputOpen = false
            emit(.workerFailed(worker: index, problem: workers[index].problem!))
        case let .line(index, line, at):
            if workers[index].stage != .failed, !line.isEmpty { receive(index, line, at: at) }
        case let .lineTooLong(index, reason, at):
            fail(index, "sent a line longer than the protocol allows (\(reason))", signal: SIGKILL, at: at)
        case let .outputClosed(index, remainder, at):
            guard workers[index].outputOpen else { break }
            workers[index].outputOpen = false
            workers[index].outputClosedAt = at
            if !remainder.isEmpty, workers[index].stage != .failed, workers[index].stage != .done {
                fail(index, "sent garbage: an unterminated line \"\(String(decoding: remainder.prefix(60), as: UTF8.self))\"", signal: SIGKILL, at: at)
            }
        case let .exited(index, status, at):
            guard workers[index].isAlive else { break }
            workers[index].exit = status
            workers[index].exitSeenAt = at
        case let .signal(signal, at):
            received(signal, at: at)
        case let .tick(now, wallClock):
            for index in workers.indices { police(index, now: now) }
            advanceBarrier(now: now, wallClock: wallClock)
            if case let .stopping(phase, startedAt, deadline?) = state, now >= deadline {
                state = .stopping(phase: phase, startedAt: startedAt, drainDeadline: nil)
                for index in workers.indices where workers[index].isAlive && workers[index].killAt == nil {
                    if workers[index].stage != .done, workers[index].problem == nil {
                        workers[index].problem = "\(workers[index].name) did not finish within the drain time (\(DurationText.format(settings.drainNanos))) and was terminated"
                    }
                    terminate(index, now: now)
                }
            }
            reportProgress(now)
        }
        return actions
    }

    private mutating func emit(_ event: DriverEvent) { actions.append(.emit(event)) }

    // MARK: Messages from workers

    private mutating func receive(_ index: Int, _ line: [UInt8], at now: Int64) {
        workers[index].lastHeard = now
        let message: WorkerProtocol.WorkerMessage
        do {
            message = try WorkerProtocol.decodeWorkerMessage(line)
        } catch {
            return fail(index, "sent garbage: \(error)", signal: SIGKILL, at: now)
        }
        switch message {
        case let .hello(hello):
            guard workers[index].hello == nil else { return fail(index, "sent hello twice", signal: SIGKILL, at: now) }
            if hello.scenarioHash != scenario.hash {
                return fail(index, "read a different scenario (hash \(hello.scenarioHash), expected \(scenario.hash))", signal: SIGTERM, at: now)
            }
            if hello.segment != workers[index].segment {
                return fail(index, "runs segment \(hello.segment.index)/\(hello.segment.count), expected \(workers[index].segment.index)/\(workers[index].segment.count)", signal: SIGTERM, at: now)
            }
            workers[index].hello = hello
        case .ready:
            guard workers[index].hello != nil, workers[index].stage == .starting else {
                return fail(index, "sent ready out of order", signal: SIGKILL, at: now)
            }
            workers[index].stage = .ready
            emit(.ready(worker: index))
        case let .snapshot(snapshot):
            accept(index, snapshot, at: now)
        case let .phaseDone(phaseNumber, snapshot):
            guard workers[index].stage == .running(phaseNumber) else {
                return fail(index, "reported the end of phase \(phaseNumber) while \(workers[index].stage)", signal: SIGKILL, at: now)
            }
            accept(index, snapshot, at: now)
            workers[index].stage = .phaseDone(phaseNumber)
        case let .done(record):
            guard record.metadata.scenarioHash == scenario.hash, record.metadata.segments == [workers[index].segment] else {
                return fail(index, "sent a record for another scenario or segment", signal: SIGKILL, at: now)
            }
            workers[index].record = record
            workers[index].stage = .done
        case let .error(text):
            fail(index, "reported an error: \(text)", signal: SIGTERM, at: now)
        }
    }

    private mutating func accept(_ index: Int, _ snapshot: WorkerProtocol.Snapshot, at now: Int64) {
        if let previous = workers[index].latest, snapshot.sequence <= previous.sequence {
            return fail(index, "sent snapshot \(snapshot.sequence) after \(previous.sequence)", signal: SIGKILL, at: now)
        }
        workers[index].latest = snapshot
        workers[index].snapshots += 1
        snapshotsReceived += 1
        emit(.snapshot(worker: index, sequence: snapshot.sequence))
    }

    // MARK: Faults and stopping

    /// Marks worker `index` failed (naming it), closes its input and stops it with `signal`
    /// (SIGKILL after the grace period if it was SIGTERM).
    private mutating func fail(_ index: Int, _ reason: String, signal: Int32, at now: Int64) {
        guard workers[index].stage != .failed else { return }
        workers[index].stage = .failed
        if workers[index].problem == nil { workers[index].problem = "\(workers[index].name) \(reason)" }
        emit(.workerFailed(worker: index, problem: workers[index].problem!))
        closeInput(index)
        if workers[index].isAlive {
            actions.append(.signal(worker: index, signal))
            workers[index].killAt = now + (signal == SIGKILL ? 0 : settings.graceNanos)
        }
    }

    private mutating func closeInput(_ index: Int) {
        guard workers[index].inputOpen else { return }
        workers[index].inputOpen = false
        actions.append(.closeInput(worker: index))
    }

    /// SIGTERM now, SIGKILL after the grace period.
    private mutating func terminate(_ index: Int, now: Int64) {
        guard workers[index].isAlive, workers[index].killAt == nil else { return }
        closeInput(index)
        actions.append(.signal(worker: index, SIGTERM))
        workers[index].killAt = now + settings.graceNanos
    }

    private mutating func police(_ index: Int, now: Int64) {
        guard workers[index].started else { return }
        if let killAt = workers[index].killAt, workers[index].isAlive, now >= killAt {
            actions.append(.signal(worker: index, SIGKILL))
            workers[index].killAt = .max
        }
        // A child that exited but left its pipe open (a grandchild holds it) is done anyway,
        // once what it wrote before it exited is read.
        if !workers[index].isAlive, workers[index].outputOpen, let seen = workers[index].exitSeenAt, now - seen > Self.lingerNanos {
            actions.append(.drainOutput(worker: index))
        }
        let worker = workers[index]
        guard worker.isFinished || !worker.isAlive else {
            // Alive: is it silent for too long?
            if case let .running(running) = worker.stage, scenario.runners[running].isLive,
               now - phaseStartedAt > scenario.durationNanos + settings.drainNanos + settings.hangTimeoutNanos {
                // Its heartbeat is alive but the workload is not: a live phase has a known end.
                let late = DurationText.format((now - phaseStartedAt - scenario.durationNanos) / 1_000_000 * 1_000_000)
                fail(index, "was still running live phase \(running) (\(scenario.runners[running].kind)) \(late) after its duration (limit: drain + hang timeout) and was stopped", signal: SIGTERM, at: now)
            } else if worker.stage != .failed, worker.outputOpen, now - worker.lastHeard > settings.hangTimeoutNanos {
                fail(index, "sent nothing for \(DurationText.format((now - worker.lastHeard) / 1_000_000 * 1_000_000)) (hung; limit \(DurationText.format(settings.hangTimeoutNanos))) and was killed", signal: SIGKILL, at: now)
            } else if !worker.outputOpen, worker.killAt == nil, let closed = worker.outputClosedAt, now - closed > Self.lingerNanos {
                // Closed its output a while ago but lingers.
                if worker.stage != .done, worker.stage != .failed {
                    fail(index, "closed its output before finishing", signal: SIGTERM, at: now)
                } else {
                    terminate(index, now: now)
                }
            }
            return
        }
        if worker.isFinished, worker.stage != .done, worker.stage != .failed, let status = worker.exit {
            workers[index].stage = .failed
            if worker.problem == nil {
                let last = worker.latest.map { "; its last snapshot (#\($0.sequence)) is kept" } ?? "; it delivered no measurements"
                workers[index].problem = "\(worker.name) \(status) while \(Self.describe(worker.stage))\(last)"
                emit(.workerFailed(worker: index, problem: workers[index].problem!))
            }
        }
    }

    static func describe(_ stage: Stage) -> String {
        switch stage {
        case .starting: return "starting"
        case .ready: return "waiting at the ready barrier"
        case let .running(phase): return "running phase \(phase)"
        case let .phaseDone(phase): return "waiting after phase \(phase)"
        case .done: return "done"
        case .failed: return "failed"
        }
    }

    /// Stops the run (drain, then a partial report) when a threshold marked `abort` fails on the
    /// running figures; a metric not yet recorded does not abort.
    private mutating func checkAbortThresholds(_ groups: [MetricGroup], now: Int64) {
        guard !stopping, abortedBy == nil else { return }
        let aborting = scenario.thresholds.filter(\.abort)
        guard !aborting.isEmpty else { return }
        let running = RunRecord(metadata: RunMetadata(toolVersion: "", scenarioName: scenario.name, scenarioHash: "", seed: scenario.seed,
                                                      runner: "", segments: []), groups: groups)
        guard let crossed = aborting.lazy.flatMap({ $0.evaluate(running) }).first(where: { $0.value != nil && !$0.passed }) else { return }
        abortedBy = crossed.message
        startStopping(now: now)
        emit(.stopping(reason: "abort threshold crossed (\(crossed.message)): stopping the load and draining"))
        send(.stop(reason: "abort threshold"))
    }

    /// The first SIGINT/SIGTERM stops the load and drains; another one terminates the workers.
    private mutating func received(_ signal: Int32, at now: Int64) {
        if interruptedBy == nil { interruptedBy = signal }
        if !stopping {
            startStopping(now: now)
            emit(.stopping(reason: "\(signalName(signal)) received: stopping the load and draining"))
            send(.stop(reason: signalName(signal)))
        } else {
            emit(.stopping(reason: "\(signalName(signal)) again: terminating workers"))
            for index in workers.indices { terminate(index, now: now) }
        }
    }

    /// `message` to every worker still in the run.
    private mutating func send(_ message: WorkerProtocol.DriverMessage) {
        for worker in workers where worker.stage != .failed && worker.isAlive && worker.inputOpen && worker.started {
            actions.append(.send(worker: worker.index, message))
        }
    }

    /// Starts the next phase once every live worker waits at the barrier.
    private mutating func advanceBarrier(now: Int64, wallClock: Int64) {
        guard !stopping else { return }
        let live = workers.indices.filter { workers[$0].stage != .failed }
        guard !live.isEmpty else { return }
        let waiting: Bool
        if phase == -1 {
            waiting = live.allSatisfy { workers[$0].stage == .ready }
        } else {
            waiting = live.allSatisfy { workers[$0].stage == .phaseDone(phase) || workers[$0].stage == .done }
        }
        guard waiting, phase + 1 < scenario.runners.count else { return }
        let next = phase + 1
        state = .running(phase: next, startedAt: now + Self.startLead)
        send(.start(phase: next, atWallClockNanos: wallClock + Self.startLead))
        for index in live { workers[index].stage = .running(next) }
        emit(.phaseStarted(phase: next, runner: scenario.runners[next].kind, workers: live.count))
    }

    // MARK: Progress and outcome

    private mutating func reportProgress(_ now: Int64) {
        guard reportsProgress else { return }
        if let last = lastProgress, now - last.at < progressIntervalNanos { return }
        var keystrokes: Int64 = 0, requests: Int64 = 0, errors: Int64 = 0, active = 0
        var ttfr: Histogram?
        var causes = MetricSet()
        var merged: [String: MetricGroup] = [:]
        for worker in workers {
            guard let snapshot = worker.latest else { continue }
            active += worker.isAlive ? snapshot.typistsActive : 0
            for group in snapshot.groups {
                if merged[group.key] == nil { merged[group.key] = group } else { try? merged[group.key]!.metrics.merge(group.metrics) }
                // The coarse classes too, so failures counted without a cause appear under their
                // class's generic cause and the breakdown adds up to `errors`.
                for (name, count) in group.metrics.counters
                where name.hasPrefix(MetricName.errorCausePrefix) || MetricName.failureCounters.contains(name) { causes.add(name, count) }
                keystrokes += group.metrics.counter(MetricName.keystrokes)
                requests += group.metrics.counter(MetricName.requestsStarted)
                errors += MetricName.failureCounters.reduce(0) { $0 + group.metrics.counter($1) }
                if let histogram = group.metrics.histograms[MetricName.timeToFresh] {
                    if ttfr == nil { ttfr = histogram } else { try? ttfr!.merge(histogram) }
                }
            }
        }
        let seconds = lastProgress.map { Double(now - $0.at) / 1e9 } ?? 0
        let progress = DriverProgress(
            elapsedNanos: now - startedAt, phase: phase, phaseCount: scenario.runners.count,
            runner: phase >= 0 ? scenario.runners[phase].kind : nil, typistsActive: active,
            keystrokes: keystrokes, keystrokesPerSecond: seconds > 0 ? Double(keystrokes - lastProgress!.keystrokes) / seconds : 0,
            requests: requests, requestsPerSecond: seconds > 0 ? Double(requests - lastProgress!.requests) / seconds : 0,
            errors: errors, ttfrP99Nanos: ttfr?.percentile(99), errorCauses: causes.errorBreakdownText,
            groups: merged.keys.sorted().map { merged[$0]! },
            workers: workers.map { worker in
                DriverProgress.WorkerHealth(
                    index: worker.index, pid: worker.pid, state: Self.health(worker),
                    silenceNanos: worker.isAlive ? now - worker.lastHeard : 0, snapshots: worker.snapshots)
            })
        lastProgress = (now, keystrokes, requests)
        emit(.progress(progress))
        checkAbortThresholds(progress.groups, now: now)
    }

    static func health(_ worker: Worker) -> String {
        switch worker.stage {
        case .starting: return "starting"
        case .ready: return "ready"
        case let .running(phase): return "running \(phase)"
        case let .phaseDone(phase): return "done \(phase)"
        case .done: return worker.isAlive ? "finishing" : "done"
        case .failed: return "FAILED"
        }
    }

    /// The merged record (a worker's final record, else its last snapshot, marked partial) and
    /// each worker's fate, with every problem named.
    func outcome(
        toolVersion: String, gitCommit: String?, host: RunMetadata.Host?, startedWall: Int64, endedWall: Int64, cpu: Int64
    ) -> DriverOutcome {
        let metadata = RunMetadata(
            toolVersion: toolVersion, gitCommit: gitCommit, scenarioName: scenario.name,
            scenarioHash: scenario.hash, seed: scenario.seed, runner: scenario.runners.map(\.kind).joined(separator: ","),
            segments: [], host: host, startedAtMillis: startedWall / 1_000_000, endedAtMillis: endedWall / 1_000_000)
        var record = RunRecord(metadata: metadata)
        var problems: [String] = []
        for worker in workers {
            var part: RunRecord?
            if let done = worker.record {
                part = done
            } else if let snapshot = worker.latest, !snapshot.groups.isEmpty {
                var partial = RunRecord(
                    metadata: RunMetadata(toolVersion: toolVersion, scenarioName: scenario.name, scenarioHash: scenario.hash,
                                          seed: scenario.seed, runner: metadata.runner, segments: [worker.segment]),
                    groups: snapshot.groups, partial: true)
                partial.problems = []
                part = partial
            }
            if let part {
                do { try record.merge(part) } catch { problems.append("\(worker.name): its record could not be merged: \(error)") }
            }
            if let problem = worker.problem { problems.append(problem) }
        }
        record.metadata.startedAtMillis = startedWall / 1_000_000
        record.metadata.endedAtMillis = endedWall / 1_000_000
        if let signal = interruptedBy {
            problems.insert("the run was interrupted by \(signalName(signal)); workers were drained and stopped", at: 0)
        }
        if let abortedBy {
            problems.insert("the run was aborted by a threshold: \(abortedBy); workers were drained and stopped", at: 0)
        }
        record.problems = problems + record.problems
        if !problems.isEmpty || !record.coversAllSegments { record.partial = true }
        let reports = workers.map { worker in
            WorkerReport(index: worker.index, pid: worker.pid, segment: worker.segment, exit: worker.exit, problem: worker.problem,
                         snapshots: worker.snapshots, completed: worker.record != nil)
        }
        return DriverOutcome(record: record, workers: reports, interruptedBy: interruptedBy, abortedBy: abortedBy,
                             startedWallClockNanos: startedWall, endedWallClockNanos: endedWall,
                             driverCPUNanos: cpu, snapshotsReceived: snapshotsReceived)
    }
}
