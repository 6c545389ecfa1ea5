import Foundation
import Measurement
import Platform

/// Runs a scenario over N worker processes: spawn, ready barrier, common start per phase,
/// snapshots, faults, drain, merge.
///
/// The whole run is one `poll` loop on a dedicated thread (it blocks in `poll` and `waitpid`,
/// and it must outlive every child: Linux's parent-death signal fires when the *thread* that
/// spawned a child exits). Every child is reaped before `run` returns.
public final class Driver: Sendable {
    public let configuration: DriverConfiguration

    public init(_ configuration: DriverConfiguration) {
        self.configuration = configuration
    }

    /// Runs to the end on a thread of its own and returns the outcome.
    public func run() async -> DriverOutcome {
        await withCheckedContinuation { continuation in
            let thread = Thread { [configuration] in
                var loop = DriverLoop(configuration)
                continuation.resume(returning: loop.run())
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Runs on the calling thread (which must stay alive until it returns).
    public func runBlocking() -> DriverOutcome {
        var loop = DriverLoop(configuration)
        return loop.run()
    }
}

/// The driver's state machine and loop; lives on one thread, so it needs no locks.
struct DriverLoop {
    enum Stage: Equatable {
        case starting, ready, running(Int), phaseDone(Int), done, failed
    }

    struct Slot {
        var index: Int
        var segment: Segment
        var process: ChildProcess?
        var pid: Int32 = 0
        var lines = LineBuffer(maximumLineLength: 256 << 20)
        var stage: Stage = .starting
        var lastHeard: Int64
        var hello: WorkerProtocol.Hello?
        var latest: WorkerProtocol.Snapshot?
        var record: RunRecord?
        var problem: String?
        var exit: ExitStatus?
        var exitSeenAt: Int64?
        var outputOpen = true
        var outputClosedAt: Int64?
        var snapshots = 0
        /// When to send SIGKILL if the worker is still alive (after a SIGTERM).
        var killAt: Int64?

        var name: String { "worker \(index) (pid \(pid), segment \(segment.index)/\(segment.count))" }
        var isAlive: Bool { exit == nil }
        var isFinished: Bool { exit != nil && !outputOpen }
    }

    let configuration: DriverConfiguration
    var slots: [Slot] = []
    var phase = -1
    /// When the current phase started (monotonic), to catch a live phase that never ends.
    var phaseStartedAt: Int64 = 0
    var stopping = false
    var drainDeadline: Int64?
    var interruptedBy: Int32?
    /// The `abort` threshold verdict that stopped the run.
    var abortedBy: String?
    var trap: SignalTrap?
    var startedAt: Int64 = 0
    var snapshotsReceived = 0
    var lastProgress: (at: Int64, keystrokes: Int64, requests: Int64)?

    init(_ configuration: DriverConfiguration) {
        self.configuration = configuration
    }

    var scenario: Scenario { configuration.scenario }
    var settings: DriverSettings { configuration.scenario.driver }

    func emit(_ event: DriverEvent) { configuration.onEvent?(event) }

    mutating func run() -> DriverOutcome {
        SignalTrap.ignoreBrokenPipes()
        if configuration.handleSignals { trap = try? SignalTrap() }
        defer { trap?.cancel() }
        // The whole driver loop runs on this thread, so its CPU time is the driver's own cost,
        // apart from an embedded server in the same process.
        let cpuStart = CPUTime.thread()
        let childrenStart = CPUTime.reapedChildren()
        startedAt = Int64(MonotonicClock.now())
        let startedWall = WallClock.now()
        spawnAll()
        while !slots.allSatisfy(\.isFinished) {
            pollOnce()
            let now = Int64(MonotonicClock.now())
            checkSignals(now)
            for index in slots.indices { police(index, now: now) }
            advanceBarrier()
            if stopping, let deadline = drainDeadline, now >= deadline {
                drainDeadline = nil
                for index in slots.indices where slots[index].isAlive && slots[index].killAt == nil {
                    if slots[index].stage != .done, slots[index].problem == nil {
                        slots[index].problem = "\(slots[index].name) did not finish within the drain time (\(DurationText.format(settings.drainNanos))) and was terminated"
                    }
                    terminate(index, now: now)
                }
            }
            reportProgress(now)
        }
        let cpu = CPUTime.thread() - cpuStart
        var result = outcome(startedWall: startedWall, endedWall: WallClock.now(), cpu: cpu)
        result.workersCPUNanos = CPUTime.reapedChildren() - childrenStart
        return result
    }

    // MARK: Spawning

    mutating func spawnAll() {
        var group: pid_t?
        for index in 0..<configuration.workers {
            let segment = Segment(index: index, count: configuration.workers)
            var slot = Slot(index: index, segment: segment, lastHeard: Int64(MonotonicClock.now()))
            var standard = [
                "worker", configuration.scenarioFile, "--driver",
                "--segment", "\(index)/\(configuration.workers)",
                "--base-dir", configuration.baseDirectory,
                "--parent-pid", "\(getpid())",
            ]
            if let url = configuration.serverURL { standard += ["--server-url", url] }
            var executable = configuration.executable
            var arguments = standard
            if let custom = configuration.workerCommand?(index, standard) {
                executable = custom.executable
                arguments = custom.arguments
            }
            let options = SpawnOptions(
                executable: executable, arguments: arguments,
                standardInput: .pipe, standardOutput: .pipe,
                standardError: configuration.logDirectory.map { .file("\($0)/worker-\(index).log") } ?? .inherit,
                processGroup: group.map { .join($0) } ?? .new)
            do {
                let process = try ChildProcess.spawn(options)
                if let output = process.standardOutput { PipeIO.setCapacity(output, bytes: Self.pipeBytes) }
                slot.process = process
                slot.pid = process.pid
                if group == nil { group = process.pid }
                emit(.spawned(worker: index, pid: process.pid))
            } catch {
                slot.stage = .failed
                slot.problem = "worker \(index) (segment \(index)/\(configuration.workers)) could not be started: \(error)"
                slot.exit = .exited(-1)
                slot.outputOpen = false
                emit(.workerFailed(worker: index, problem: slot.problem!))
            }
            slots.append(slot)
        }
    }

    // MARK: Reading

    mutating func pollOnce() {
        var fds: [Int32] = []
        var owner: [Int32: Int] = [:]
        for slot in slots where slot.outputOpen {
            if let fd = slot.process?.standardOutput {
                fds.append(fd)
                owner[fd] = slot.index
            }
        }
        if let trap { fds.append(trap.fileDescriptor) }
        // A worker that closed its output is exiting, and nothing wakes `poll` when it is gone:
        // look again in 1 ms rather than 50, so the run ends when the last worker does.
        let exiting = slots.contains { !$0.outputOpen && $0.isAlive && $0.killAt == nil && $0.process != nil }
        let ready = (try? PipeIO.poll(fds, timeoutMillis: exiting ? 1 : 50)) ?? []
        for readiness in ready {
            guard let index = owner[readiness.fd] else { continue }
            read(index)
        }
    }

    /// The pipe size asked for: a whole snapshot fits (≈ 100 KB for two strategies), so the
    /// worker's write does not stall half-way and the driver reads it in one go.
    static let pipeBytes = 1 << 20

    mutating func read(_ index: Int) {
        guard let process = slots[index].process, let fd = process.standardOutput else { return }
        let bytes: [UInt8]
        do {
            bytes = try PipeIO.readAvailable(fd, maximum: 256 << 10)
        } catch {
            closeOutput(index)
            return
        }
        if bytes.isEmpty {
            closeOutput(index)
            return
        }
        let lines: [[UInt8]]
        do {
            lines = try slots[index].lines.append(bytes)
        } catch {
            fail(index, "sent a line longer than the protocol allows (\(error))", signal: SIGKILL)
            return
        }
        for line in lines where slots[index].stage != .failed {
            if line.isEmpty { continue }
            handle(index, line)
        }
    }

    mutating func closeOutput(_ index: Int) {
        slots[index].outputOpen = false
        slots[index].outputClosedAt = Int64(MonotonicClock.now())
        slots[index].process?.close(slots[index].process?.standardOutput)
        let remainder = slots[index].lines.remainder
        if !remainder.isEmpty, slots[index].stage != .failed, slots[index].stage != .done {
            fail(index, "sent garbage: an unterminated line \"\(String(decoding: remainder.prefix(60), as: UTF8.self))\"", signal: SIGKILL)
        }
    }

    mutating func handle(_ index: Int, _ line: [UInt8]) {
        let now = Int64(MonotonicClock.now())
        slots[index].lastHeard = now
        let message: WorkerProtocol.WorkerMessage
        do {
            message = try WorkerProtocol.decodeWorkerMessage(line)
        } catch {
            fail(index, "sent garbage: \(error)", signal: SIGKILL)
            return
        }
        switch message {
        case let .hello(hello):
            guard slots[index].hello == nil else { return fail(index, "sent hello twice", signal: SIGKILL) }
            if hello.scenarioHash != scenario.hash {
                return fail(index, "read a different scenario (hash \(hello.scenarioHash), expected \(scenario.hash))", signal: SIGTERM)
            }
            if hello.segment != slots[index].segment {
                return fail(index, "runs segment \(hello.segment.index)/\(hello.segment.count), expected \(slots[index].segment.index)/\(slots[index].segment.count)", signal: SIGTERM)
            }
            slots[index].hello = hello
        case .ready:
            guard slots[index].hello != nil, slots[index].stage == .starting else {
                return fail(index, "sent ready out of order", signal: SIGKILL)
            }
            slots[index].stage = .ready
            emit(.ready(worker: index))
        case let .snapshot(snapshot):
            accept(index, snapshot)
        case let .phaseDone(phaseNumber, snapshot):
            guard slots[index].stage == .running(phaseNumber) else {
                return fail(index, "reported the end of phase \(phaseNumber) while \(slots[index].stage)", signal: SIGKILL)
            }
            accept(index, snapshot)
            slots[index].stage = .phaseDone(phaseNumber)
        case let .done(record):
            guard record.metadata.scenarioHash == scenario.hash, record.metadata.segments == [slots[index].segment] else {
                return fail(index, "sent a record for another scenario or segment", signal: SIGKILL)
            }
            slots[index].record = record
            slots[index].stage = .done
        case let .error(text):
            fail(index, "reported an error: \(text)", signal: SIGTERM)
        }
    }

    mutating func accept(_ index: Int, _ snapshot: WorkerProtocol.Snapshot) {
        if let previous = slots[index].latest, snapshot.sequence <= previous.sequence {
            return fail(index, "sent snapshot \(snapshot.sequence) after \(previous.sequence)", signal: SIGKILL)
        }
        slots[index].latest = snapshot
        slots[index].snapshots += 1
        snapshotsReceived += 1
        emit(.snapshot(worker: index, sequence: snapshot.sequence))
    }

    // MARK: Faults and stopping

    /// Marks worker `index` failed (naming it), closes its input and stops it.
    mutating func fail(_ index: Int, _ reason: String, signal: Int32) {
        guard slots[index].stage != .failed else { return }
        slots[index].stage = .failed
        if slots[index].problem == nil { slots[index].problem = "\(slots[index].name) \(reason)" }
        emit(.workerFailed(worker: index, problem: slots[index].problem!))
        slots[index].process?.close(slots[index].process?.standardInput)
        if slots[index].isAlive {
            slots[index].process?.send(signal)
            slots[index].killAt = Int64(MonotonicClock.now()) + (signal == SIGKILL ? 0 : settings.graceNanos)
        }
    }

    /// SIGTERM now, SIGKILL after the grace period.
    mutating func terminate(_ index: Int, now: Int64) {
        guard slots[index].isAlive, slots[index].killAt == nil else { return }
        slots[index].process?.close(slots[index].process?.standardInput)
        slots[index].process?.send(SIGTERM)
        slots[index].killAt = now + settings.graceNanos
    }

    mutating func police(_ index: Int, now: Int64) {
        guard slots[index].process != nil else { return }
        if slots[index].isAlive, let status = slots[index].process?.exitStatus() {
            slots[index].exit = status
            slots[index].exitSeenAt = now
        }
        if let killAt = slots[index].killAt, slots[index].isAlive, now >= killAt {
            slots[index].process?.send(SIGKILL)
            slots[index].killAt = .max
        }
        // A child that exited but left its pipe open (a grandchild holds it) is done anyway.
        if !slots[index].isAlive, slots[index].outputOpen, let seen = slots[index].exitSeenAt, now - seen > 1_000_000_000 {
            // First read what the worker wrote before it exited (a slow driver may be behind);
            // only then is the pipe closed.
            var rounds = 0
            while slots[index].outputOpen, rounds < 64, let fd = slots[index].process?.standardOutput,
                  (try? PipeIO.poll([fd], timeoutMillis: 0))?.isEmpty == false {
                read(index)
                rounds += 1
            }
            if slots[index].outputOpen { closeOutput(index) }
        }
        guard slots[index].isFinished || !slots[index].isAlive else {
            // Alive: is it silent for too long?
            if case let .running(running) = slots[index].stage, scenario.runners[running].isLive,
               now - phaseStartedAt > scenario.durationNanos + settings.drainNanos + settings.hangTimeoutNanos {
                // Its heartbeat is alive but the workload is not: a live phase has a known end.
                let late = DurationText.format((now - phaseStartedAt - scenario.durationNanos) / 1_000_000 * 1_000_000)
                fail(index, "was still running live phase \(running) (\(scenario.runners[running].kind)) \(late) after its duration (limit: drain + hang timeout) and was stopped", signal: SIGTERM)
            } else if slots[index].stage != .failed, slots[index].outputOpen, now - slots[index].lastHeard > settings.hangTimeoutNanos {
                fail(index, "sent nothing for \(DurationText.format((now - slots[index].lastHeard) / 1_000_000 * 1_000_000)) (hung; limit \(DurationText.format(settings.hangTimeoutNanos))) and was killed", signal: SIGKILL)
            } else if !slots[index].outputOpen, slots[index].killAt == nil,
                      let closed = slots[index].outputClosedAt, now - closed > 1_000_000_000 {
                // Closed its output a while ago but lingers.
                if slots[index].stage != .done, slots[index].stage != .failed {
                    fail(index, "closed its output before finishing", signal: SIGTERM)
                } else {
                    terminate(index, now: now)
                }
            }
            return
        }
        if slots[index].isFinished, slots[index].stage != .done, slots[index].stage != .failed, let status = slots[index].exit {
            let stage = slots[index].stage
            slots[index].stage = .failed
            if slots[index].problem == nil {
                let last = slots[index].latest.map { "; its last snapshot (#\($0.sequence)) is kept" } ?? "; it delivered no measurements"
                slots[index].problem = "\(slots[index].name) \(status) while \(Self.describe(stage))\(last)"
                emit(.workerFailed(worker: index, problem: slots[index].problem!))
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
    mutating func checkAbortThresholds(_ groups: [MetricGroup], now: Int64) {
        guard !stopping, abortedBy == nil else { return }
        let aborting = scenario.thresholds.filter(\.abort)
        guard !aborting.isEmpty else { return }
        let running = RunRecord(metadata: RunMetadata(toolVersion: "", scenarioName: scenario.name, scenarioHash: "", seed: scenario.seed,
                                                      runner: "", segments: []), groups: groups)
        guard let crossed = aborting.lazy.flatMap({ $0.evaluate(running) }).first(where: { $0.value != nil && !$0.passed }) else { return }
        abortedBy = crossed.message
        stopping = true
        drainDeadline = now + settings.drainNanos
        emit(.stopping(reason: "abort threshold crossed (\(crossed.message)): stopping the load and draining"))
        send(.stop(reason: "abort threshold"))
    }

    mutating func checkSignals(_ now: Int64) {
        guard let trap else { return }
        for signal in trap.received() {
            if interruptedBy == nil { interruptedBy = signal }
            if !stopping {
                stopping = true
                drainDeadline = now + settings.drainNanos
                emit(.stopping(reason: "\(signalName(signal)) received: stopping the load and draining"))
                send(.stop(reason: signalName(signal)))
            } else {
                emit(.stopping(reason: "\(signalName(signal)) again: terminating workers"))
                for index in slots.indices { terminate(index, now: now) }
            }
        }
    }

    func send(_ message: WorkerProtocol.DriverMessage) {
        let bytes = WorkerProtocol.encode(message)
        for slot in slots where slot.stage != .failed && slot.isAlive {
            if let fd = slot.process?.standardInput { try? PipeIO.writeAll(fd, bytes) }
        }
    }

    /// Starts the next phase once every live worker waits at the barrier.
    mutating func advanceBarrier() {
        guard !stopping else { return }
        let live = slots.indices.filter { slots[$0].stage != .failed }
        guard !live.isEmpty else { return }
        let waiting: Bool
        if phase == -1 {
            waiting = live.allSatisfy { slots[$0].stage == .ready }
        } else {
            waiting = live.allSatisfy { slots[$0].stage == .phaseDone(phase) || slots[$0].stage == .done }
        }
        guard waiting, phase + 1 < scenario.runners.count else { return }
        phase += 1
        // Far enough ahead that every worker has the message before the instant.
        let at = WallClock.now() + 100_000_000
        phaseStartedAt = Int64(MonotonicClock.now()) + 100_000_000
        send(.start(phase: phase, atWallClockNanos: at))
        for index in live { slots[index].stage = .running(phase) }
        emit(.phaseStarted(phase: phase, runner: scenario.runners[phase].kind, workers: live.count))
    }

    // MARK: Progress and outcome

    mutating func reportProgress(_ now: Int64) {
        guard configuration.onEvent != nil else { return }
        if let last = lastProgress, now - last.at < configuration.progressIntervalNanos { return }
        var keystrokes: Int64 = 0, requests: Int64 = 0, errors: Int64 = 0, active = 0
        var ttfr: Histogram?
        var causes = MetricSet()
        var merged: [String: MetricGroup] = [:]
        for slot in slots {
            guard let snapshot = slot.latest else { continue }
            active += slot.isAlive ? snapshot.typistsActive : 0
            for group in snapshot.groups {
                if merged[group.key] == nil { merged[group.key] = group } else { try? merged[group.key]!.metrics.merge(group.metrics) }
                for (name, count) in group.metrics.counters where name.hasPrefix(MetricName.errorCausePrefix) { causes.add(name, count) }
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
            workers: slots.map { slot in
                DriverProgress.WorkerHealth(
                    index: slot.index, pid: slot.pid, state: Self.health(slot),
                    silenceNanos: slot.isAlive ? now - slot.lastHeard : 0, snapshots: slot.snapshots)
            })
        lastProgress = (now, keystrokes, requests)
        emit(.progress(progress))
        checkAbortThresholds(progress.groups, now: now)
    }

    static func health(_ slot: Slot) -> String {
        switch slot.stage {
        case .starting: return "starting"
        case .ready: return "ready"
        case let .running(phase): return "running \(phase)"
        case let .phaseDone(phase): return "done \(phase)"
        case .done: return slot.isAlive ? "finishing" : "done"
        case .failed: return "FAILED"
        }
    }

    func outcome(startedWall: Int64, endedWall: Int64, cpu: Int64) -> DriverOutcome {
        let metadata = RunMetadata(
            toolVersion: configuration.toolVersion, gitCommit: configuration.gitCommit, scenarioName: scenario.name,
            scenarioHash: scenario.hash, seed: scenario.seed, runner: scenario.runners.map(\.kind).joined(separator: ","),
            segments: [], host: HostInfo.current(), startedAtMillis: startedWall / 1_000_000, endedAtMillis: endedWall / 1_000_000)
        var record = RunRecord(metadata: metadata)
        var problems: [String] = []
        for slot in slots {
            var part: RunRecord?
            if let done = slot.record {
                part = done
            } else if let snapshot = slot.latest, !snapshot.groups.isEmpty {
                var partial = RunRecord(
                    metadata: RunMetadata(toolVersion: configuration.toolVersion, scenarioName: scenario.name, scenarioHash: scenario.hash,
                                          seed: scenario.seed, runner: metadata.runner, segments: [slot.segment]),
                    groups: snapshot.groups, partial: true)
                partial.problems = []
                part = partial
            }
            if let part {
                do { try record.merge(part) } catch { problems.append("\(slot.name): its record could not be merged: \(error)") }
            }
            if let problem = slot.problem { problems.append(problem) }
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
        let reports = slots.map { slot in
            WorkerReport(index: slot.index, pid: slot.pid, segment: slot.segment, exit: slot.exit, problem: slot.problem,
                         snapshots: slot.snapshots, completed: slot.record != nil)
        }
        return DriverOutcome(record: record, workers: reports, interruptedBy: interruptedBy, abortedBy: abortedBy,
                             startedWallClockNanos: startedWall, endedWallClockNanos: endedWall,
                             driverCPUNanos: cpu, snapshotsReceived: snapshotsReceived)
    }

}
