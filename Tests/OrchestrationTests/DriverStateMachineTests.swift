import Foundation
import TypestormMetrics
import TypestormSystem
import Testing
@testable import Orchestration

/// The driver's decisions with a manual clock and no processes: events in, actions out.
@Suite("Driver state machine", .timeLimit(.minutes(5)))
struct DriverStateMachineTests {
    /// Times the tests start from (monotonic and wall clock, nanoseconds).
    static let start: Int64 = 1_000_000_000
    static let wall: Int64 = 1_800_000_000_000_000_000
    static let second: Int64 = 1_000_000_000

    /// A machine over the probe scenario (hang timeout 10 s, drain 5 s, grace 500 ms, duration
    /// 1 s) with `workers` spawned as pids 100, 101, …, a manual clock and everything it emitted.
    struct Harness {
        let scenario: Scenario
        var machine: DriverStateMachine
        var now = DriverStateMachineTests.start
        var emitted: [DriverEvent] = []

        init(workers: Int, runners: String = #"[{"kind": "probe", "pace": "fast"}]"#, spawn: Bool = true) throws {
            scenario = try ScenarioReader.read(json: probeScenarioJSON(runners: runners, hang: "10s", drain: "5s"))
            machine = DriverStateMachine(scenario: scenario, workers: workers, startedAt: now, reportsProgress: false,
                                         progressIntervalNanos: DriverStateMachineTests.second)
            if spawn {
                for index in 0..<workers { handle(.spawned(worker: index, pid: Int32(100 + index), at: now)) }
            }
        }

        @discardableResult
        mutating func handle(_ event: DriverStateMachine.Event) -> [DriverStateMachine.Action] {
            let actions = machine.handle(event)
            for case let .emit(event) in actions { emitted.append(event) }
            return actions
        }

        /// Advances the clock by `nanos` and ticks.
        @discardableResult
        mutating func tick(after nanos: Int64 = 0) -> [DriverStateMachine.Action] {
            now += nanos
            return handle(.tick(at: now, wallClock: DriverStateMachineTests.wall + now - DriverStateMachineTests.start))
        }

        @discardableResult
        mutating func say(_ worker: Int, _ message: WorkerProtocol.WorkerMessage) -> [DriverStateMachine.Action] {
            handle(.line(worker: worker, Array(WorkerProtocol.encode(message).dropLast()), at: now))
        }

        mutating func hello(_ worker: Int, hash: String? = nil) {
            let segment = machine.workers[worker].segment
            say(worker, .hello(.init(pid: Int32(100 + worker), segment: segment, scenarioHash: hash ?? scenario.hash, toolVersion: "test")))
        }

        mutating func ready(_ workers: Int...) {
            for worker in workers {
                hello(worker)
                say(worker, .ready(typists: 1))
            }
        }

        func snapshot(_ sequence: Int, phase: Int = 0, keystrokes: Int64 = 5) -> WorkerProtocol.Snapshot {
            var metrics = MetricSet()
            metrics.add("keystrokes", keystrokes)
            return WorkerProtocol.Snapshot(sequence: sequence, phase: phase, typistsActive: 1,
                                           groups: [MetricGroup(name: "probe", labels: ["runner": "probe"], metrics: metrics)])
        }

        func record(_ worker: Int, keystrokes: Int64) -> RunRecord {
            var metrics = MetricSet()
            metrics.add("keystrokes", keystrokes)
            return RunRecord(
                metadata: RunMetadata(toolVersion: "test", scenarioName: scenario.name, scenarioHash: scenario.hash, seed: scenario.seed,
                                      runner: "probe", segments: [machine.workers[worker].segment]),
                groups: [MetricGroup(name: "probe", labels: ["runner": "probe"], metrics: metrics)])
        }

        /// Worker `worker` ends cleanly: its record, exit 0, output closed.
        mutating func finish(_ worker: Int, keystrokes: Int64 = 5) {
            say(worker, .done(record(worker, keystrokes: keystrokes)))
            handle(.exited(worker: worker, .exited(0), at: now))
            handle(.outputClosed(worker: worker, remainder: [], at: now))
        }

        mutating func exit(_ worker: Int, _ status: TypestormSystem.ExitStatus) {
            handle(.exited(worker: worker, status, at: now))
            handle(.outputClosed(worker: worker, remainder: [], at: now))
        }

        var problems: [String] {
            emitted.compactMap { if case let .workerFailed(_, problem) = $0 { problem } else { nil } }
        }

        var phasesStarted: [DriverEvent] {
            emitted.filter { if case .phaseStarted = $0 { true } else { false } }
        }

        func outcome() -> DriverOutcome {
            machine.outcome(toolVersion: "test", gitCommit: nil, host: nil, startedWall: DriverStateMachineTests.wall,
                            endedWall: DriverStateMachineTests.wall + now - DriverStateMachineTests.start, cpu: 0)
        }
    }

    /// The messages among `actions`, in order.
    static func sent(_ actions: [DriverStateMachine.Action]) -> [DriverStateMachine.Action] {
        actions.filter { if case .send = $0 { true } else { false } }
    }

    /// The signals among `actions`, in order.
    static func signals(_ actions: [DriverStateMachine.Action]) -> [DriverStateMachine.Action] {
        actions.filter { if case .signal = $0 { true } else { false } }
    }

    static func closedInputs(_ actions: [DriverStateMachine.Action]) -> [Int] {
        actions.compactMap { if case let .closeInput(worker) = $0 { worker } else { nil } }
    }

    // MARK: The ready barrier

    @Test func allReadyStartsThePhaseTogetherAtOneInstant() throws {
        var run = try Harness(workers: 3)
        run.ready(0, 1)
        #expect(Self.sent(run.tick(after: Self.second)) == [])
        #expect(run.machine.phase == -1)
        run.ready(2)
        let actions = run.tick()
        // 100 ms ahead of the release, on the wall clock, the same instant for every worker.
        let at = Self.wall + Self.second + DriverStateMachine.startLead
        #expect(Self.sent(actions) == [.send(worker: 0, .start(phase: 0, atWallClockNanos: at)), .send(worker: 1, .start(phase: 0, atWallClockNanos: at)), .send(worker: 2, .start(phase: 0, atWallClockNanos: at))])
        #expect(run.phasesStarted == [.phaseStarted(phase: 0, runner: "probe", workers: 3)])
        #expect(run.machine.workers.map(\.stage) == [.running(0), .running(0), .running(0)])
        #expect(run.machine.phaseStartedAt == run.now + DriverStateMachine.startLead)
        // Ticking again starts nothing more.
        #expect(Self.sent(run.tick(after: Self.second)) == [])
    }

    @Test func readyBeforeHelloIsKilledAsOutOfOrder() throws {
        var run = try Harness(workers: 2)
        let actions = run.say(1, .ready(typists: 1))
        #expect(Self.signals(actions) == [.signal(worker: 1, SIGKILL)])
        #expect(Self.closedInputs(actions) == [1])
        #expect(run.problems == ["worker 1 (pid 101, segment 1/2) sent ready out of order"])
        #expect(run.machine.workers[1].stage == .failed)
    }

    @Test func aWorkerThatNeverGetsReadyIsKilledAtTheHangTimeoutAndTheOthersStart() throws {
        var run = try Harness(workers: 2)
        run.now += 9 * Self.second
        run.ready(0)
        // Exactly at the limit it is not late yet.
        var actions = run.tick(after: Self.second)
        #expect(Self.signals(actions) == [])
        #expect(Self.sent(actions) == [])
        actions = run.tick(after: 1_000_000)
        #expect(Self.signals(actions) == [.signal(worker: 1, SIGKILL)])
        #expect(run.problems == ["worker 1 (pid 101, segment 1/2) sent nothing for 10001ms (hung; limit 10s) and was killed"])
        // The barrier does not wait for a failed worker: the rest start in the same tick.
        #expect(Self.sent(actions) == [.send(worker: 0, .start(phase: 0, atWallClockNanos: Self.wall + run.now - Self.start + DriverStateMachine.startLead))])
        #expect(run.phasesStarted == [.phaseStarted(phase: 0, runner: "probe", workers: 1)])

        run.exit(1, .signaled(SIGKILL))
        run.say(0, .phaseDone(phase: 0, snapshot: run.snapshot(1)))
        run.finish(0)
        run.tick()
        #expect(run.machine.isFinished)
        let outcome = run.outcome()
        #expect(outcome.isPartial)
        #expect(outcome.record.problems == run.problems)
        #expect(outcome.workers.map(\.completed) == [true, false])
    }

    @Test func aWorkerThatCouldNotBeStartedIsNamedAndTheOthersRun() throws {
        var run = try Harness(workers: 2, spawn: false)
        run.handle(.spawned(worker: 0, pid: 100, at: run.now))
        run.handle(.spawnFailed(worker: 1, reason: "no such file"))
        #expect(run.problems == ["worker 1 (segment 1/2) could not be started: no such file"])
        run.ready(0)
        #expect(Self.sent(run.tick()).count == 1)
        #expect(run.machine.workers[1].isFinished)
    }

    // MARK: Workers that fail

    @Test func aWorkerExitingEarlyIsNamedWithItsStageAndItsLastSnapshotIsKept() throws {
        var run = try Harness(workers: 2)
        run.ready(0, 1)
        run.tick()
        run.say(1, .snapshot(run.snapshot(1, keystrokes: 7)))
        run.exit(1, .exited(3))
        run.tick()
        #expect(run.problems == ["worker 1 (pid 101, segment 1/2) exited with status 3 while running phase 0; its last snapshot (#1) is kept"])
        #expect(run.machine.workers[1].stage == .failed)

        run.say(0, .phaseDone(phase: 0, snapshot: run.snapshot(1)))
        run.finish(0, keystrokes: 5)
        run.tick()
        #expect(run.machine.isFinished)
        let outcome = run.outcome()
        #expect(outcome.isPartial)
        #expect(outcome.workers.map(\.completed) == [true, false])
        #expect(outcome.workers.map(\.exit) == [.exited(0), .exited(3)])
        // Worker 0's record and worker 1's last snapshot, merged.
        #expect(outcome.record.group(named: "probe", labels: ["runner": "probe"])?.metrics.counter("keystrokes") == 12)
        #expect(outcome.record.problems == run.problems)
    }

    @Test func aWorkerThatExitsBeforeItSaysAnythingDeliveredNothing() throws {
        var run = try Harness(workers: 1)
        run.exit(0, .exited(70))
        run.tick()
        #expect(run.problems == ["worker 0 (pid 100, segment 0/1) exited with status 70 while starting; it delivered no measurements"])
        #expect(run.machine.isFinished)
        #expect(run.outcome().isPartial)
    }

    @Test func garbageIsNamedAndKilledAtOnce() throws {
        var run = try Harness(workers: 2)
        let actions = run.handle(.line(worker: 0, Array("hello world".utf8), at: run.now))
        #expect(Self.signals(actions) == [.signal(worker: 0, SIGKILL)])
        #expect(run.problems.count == 1)
        #expect(run.problems[0].hasPrefix("worker 0 (pid 100, segment 0/2) sent garbage: "))
        // Later lines of a failed worker are ignored.
        #expect(run.say(0, .ready(typists: 1)).isEmpty)
    }

    @Test func anUnterminatedLastLineIsGarbage() throws {
        var run = try Harness(workers: 1)
        let actions = run.handle(.outputClosed(worker: 0, remainder: Array("{\"v\": 2".utf8), at: run.now))
        #expect(Self.signals(actions) == [.signal(worker: 0, SIGKILL)])
        #expect(run.problems == [#"worker 0 (pid 100, segment 0/1) sent garbage: an unterminated line "{"v": 2""#])
    }

    @Test func aLineOverTheLimitIsNamed() throws {
        var run = try Harness(workers: 1)
        let actions = run.handle(.lineTooLong(worker: 0, reason: "lineTooLong(300)", at: run.now))
        #expect(Self.signals(actions) == [.signal(worker: 0, SIGKILL)])
        #expect(run.problems == ["worker 0 (pid 100, segment 0/1) sent a line longer than the protocol allows (lineTooLong(300))"])
    }

    @Test func aWorkerOnAnotherScenarioGetsSIGTERMThenSIGKILLAfterTheGrace() throws {
        var run = try Harness(workers: 1)
        run.hello(0, hash: "0000000000000000")
        #expect(run.problems == ["worker 0 (pid 100, segment 0/1) read a different scenario (hash 0000000000000000, expected \(run.scenario.hash))"])
        #expect(Self.signals(run.tick(after: 499_000_000)) == [])
        #expect(Self.signals(run.tick(after: 1_000_000)) == [.signal(worker: 0, SIGKILL)])
        // Sent once.
        #expect(Self.signals(run.tick(after: Self.second)) == [])
    }

    @Test func protocolViolationsAreNamed() throws {
        var run = try Harness(workers: 3)
        run.ready(0, 1, 2)
        run.tick()
        run.say(0, .snapshot(run.snapshot(2)))
        run.say(0, .snapshot(run.snapshot(2)))
        run.say(1, .phaseDone(phase: 1, snapshot: run.snapshot(1)))
        run.hello(2)
        #expect(run.problems == [
            "worker 0 (pid 100, segment 0/3) sent snapshot 2 after 2",
            "worker 1 (pid 101, segment 1/3) reported the end of phase 1 while running(0)",
            "worker 2 (pid 102, segment 2/3) sent hello twice",
        ])
    }

    @Test func aLivePhaseThatOutlivesItsDurationIsStoppedDespiteItsHeartbeat() throws {
        var run = try Harness(workers: 1, runners: #"[{"kind": "probe", "pace": "realtime"}]"#)
        run.ready(0)
        run.tick()
        let phaseStart = run.machine.phaseStartedAt
        // Snapshots keep coming (the heartbeat), so the hang timeout never fires.
        var sequence = 0
        while run.now + 2 * Self.second <= phaseStart + 16 * Self.second {
            sequence += 1
            run.now += 2 * Self.second
            run.say(0, .snapshot(run.snapshot(sequence)))
            #expect(Self.signals(run.tick()) == [])
        }
        // Duration 1 s + drain 5 s + hang timeout 10 s after the phase started.
        run.now = phaseStart + 16 * Self.second
        #expect(Self.signals(run.tick()) == [])
        #expect(Self.signals(run.tick(after: 1_000_000)) == [.signal(worker: 0, SIGTERM)])
        #expect(run.problems == ["worker 0 (pid 100, segment 0/1) was still running live phase 0 (probe) 15001ms after its duration (limit: drain + hang timeout) and was stopped"])
    }

    @Test func anExitedWorkerWhosePipeStaysOpenIsReadAndClosedAfterASecond() throws {
        var run = try Harness(workers: 1)
        run.ready(0)
        run.tick()
        run.say(0, .phaseDone(phase: 0, snapshot: run.snapshot(1)))
        run.say(0, .done(run.record(0, keystrokes: 5)))
        run.handle(.exited(worker: 0, .exited(0), at: run.now))
        let drains: ([DriverStateMachine.Action]) -> [Int] = { $0.compactMap { if case let .drainOutput(worker) = $0 { worker } else { nil } } }
        #expect(drains(run.tick(after: DriverStateMachine.lingerNanos)) == [])
        #expect(drains(run.tick(after: 1)) == [0])
        run.handle(.outputClosed(worker: 0, remainder: [], at: run.now))
        run.tick()
        #expect(run.machine.isFinished)
        #expect(run.problems == [])
        #expect(!run.outcome().isPartial)
    }

    @Test func aWorkerThatClosesItsOutputButLingersIsStopped() throws {
        var run = try Harness(workers: 1)
        run.ready(0)
        run.tick()
        run.handle(.outputClosed(worker: 0, remainder: [], at: run.now))
        #expect(run.machine.hasExitingWorker)
        #expect(Self.signals(run.tick(after: DriverStateMachine.lingerNanos)) == [])
        #expect(Self.signals(run.tick(after: 1)) == [.signal(worker: 0, SIGTERM)])
        #expect(run.problems == ["worker 0 (pid 100, segment 0/1) closed its output before finishing"])
    }

    // MARK: Stopping

    @Test func sigintStopsTheLoadDrainsThenTerminatesAndKeepsAPartialRecord() throws {
        var run = try Harness(workers: 2, runners: #"[{"kind": "probe", "pace": "fast"}, {"kind": "probe", "pace": "realtime"}]"#)
        run.ready(0, 1)
        run.tick()
        var actions = run.handle(.signal(SIGINT, at: run.now))
        #expect(Self.sent(actions) == [.send(worker: 0, .stop(reason: "SIGINT")), .send(worker: 1, .stop(reason: "SIGINT"))])
        #expect(run.machine.stopping)
        #expect(run.machine.drainDeadline == run.now + 5 * Self.second)
        // Worker 0 drains in time; no next phase starts while stopping.
        run.say(0, .phaseDone(phase: 0, snapshot: run.snapshot(1)))
        run.say(1, .phaseDone(phase: 0, snapshot: run.snapshot(1)))
        #expect(Self.sent(run.tick()) == [])
        run.finish(0)
        // Worker 1 does not finish within the drain time.
        #expect(Self.signals(run.tick(after: 4 * Self.second)) == [])
        actions = run.tick(after: Self.second)
        #expect(Self.signals(actions) == [.signal(worker: 1, SIGTERM)])
        #expect(Self.closedInputs(actions) == [1])
        #expect(Self.signals(run.tick(after: 500_000_000)) == [.signal(worker: 1, SIGKILL)])
        run.exit(1, .signaled(SIGKILL))
        run.tick()
        #expect(run.machine.isFinished)
        let outcome = run.outcome()
        #expect(outcome.interruptedBy == SIGINT)
        #expect(outcome.isPartial)
        #expect(outcome.record.problems == [
            "the run was interrupted by SIGINT; workers were drained and stopped",
            "worker 1 (pid 101, segment 1/2) did not finish within the drain time (5s) and was terminated",
        ])
        #expect(outcome.workers.map(\.completed) == [true, false])
        #expect(run.phasesStarted == [.phaseStarted(phase: 0, runner: "probe", workers: 2)])
    }

    @Test func aSecondSignalTerminatesTheWorkersAtOnce() throws {
        var run = try Harness(workers: 2)
        run.ready(0, 1)
        run.tick()
        run.handle(.signal(SIGTERM, at: run.now))
        let actions = run.handle(.signal(SIGINT, at: run.now))
        #expect(Self.sent(actions) == [])
        #expect(Self.signals(actions) == [.signal(worker: 0, SIGTERM), .signal(worker: 1, SIGTERM)])
        // The first signal is the one reported.
        #expect(run.machine.interruptedBy == SIGTERM)
    }

    // MARK: The sequence of phases

    @Test func phasesRunInOrderAndTheRunEndsWhenEveryWorkerIsDone() throws {
        var run = try Harness(workers: 2, runners: #"[{"kind": "probe", "pace": "fast"}, {"kind": "probe", "pace": "realtime"}]"#)
        #expect(run.machine.workers.map(\.stage) == [.starting, .starting])
        run.ready(0, 1)
        #expect(run.machine.workers.map(\.stage) == [.ready, .ready])
        run.tick()
        run.say(0, .phaseDone(phase: 0, snapshot: run.snapshot(1)))
        #expect(Self.sent(run.tick(after: Self.second)) == [])
        run.say(1, .phaseDone(phase: 0, snapshot: run.snapshot(1)))
        #expect(run.machine.workers.map(\.stage) == [.phaseDone(0), .phaseDone(0)])
        let at = Self.wall + run.now - Self.start + DriverStateMachine.startLead
        #expect(Self.sent(run.tick()) == [.send(worker: 0, .start(phase: 1, atWallClockNanos: at)), .send(worker: 1, .start(phase: 1, atWallClockNanos: at))])
        run.say(0, .phaseDone(phase: 1, snapshot: run.snapshot(2)))
        run.say(1, .phaseDone(phase: 1, snapshot: run.snapshot(2)))
        // No third phase.
        #expect(Self.sent(run.tick()) == [])
        run.finish(0, keystrokes: 3)
        #expect(!run.machine.isFinished)
        run.finish(1, keystrokes: 4)
        run.tick()
        #expect(run.machine.isFinished)
        #expect(run.phasesStarted == [.phaseStarted(phase: 0, runner: "probe", workers: 2), .phaseStarted(phase: 1, runner: "probe", workers: 2)])
        let outcome = run.outcome()
        #expect(!outcome.isPartial)
        #expect(outcome.record.problems == [])
        #expect(outcome.record.coversAllSegments)
        #expect(outcome.record.group(named: "probe", labels: ["runner": "probe"])?.metrics.counter("keystrokes") == 7)
        #expect(outcome.snapshotsReceived == 4)
        #expect(outcome.workers.map(\.completed) == [true, true])
    }

    /// Two ready workers in phase 0 of a driver that reports progress every second.
    static func reportingProgress() throws -> Harness {
        var run = try Harness(workers: 2)
        run.machine = DriverStateMachine(scenario: run.scenario, workers: 2, startedAt: run.now, reportsProgress: true,
                                         progressIntervalNanos: second)
        run.handle(.spawned(worker: 0, pid: 100, at: run.now))
        run.handle(.spawned(worker: 1, pid: 101, at: run.now))
        run.ready(0, 1)
        run.tick()
        return run
    }

    @Test func progressIsEmittedAtItsIntervalWithTheMergedFigures() throws {
        var run = try Self.reportingProgress()
        run.say(0, .snapshot(run.snapshot(1, keystrokes: 10)))
        run.say(1, .snapshot(run.snapshot(1, keystrokes: 20)))
        let progress: ([DriverStateMachine.Action]) -> [DriverProgress] = {
            $0.compactMap { if case let .emit(.progress(progress)) = $0 { progress } else { nil } }
        }
        #expect(progress(run.tick(after: Self.second / 2)).isEmpty)
        let figures = try #require(progress(run.tick(after: Self.second / 2)).first)
        #expect(figures.keystrokes == 30)
        #expect(figures.keystrokesPerSecond == 30)
        #expect(figures.phase == 0)
        #expect(figures.workers.map(\.state) == ["running 0", "running 0"])
    }

    @Test func progressErrorCausesAddUpToTheErrors() throws {
        var run = try Self.reportingProgress()
        // Worker 0: a live tally with causes; worker 1: a recorder's metrics, classes only (the
        // virtual runner knows no cause).
        var live = MetricSet()
        live.add(MetricName.serverErrors, 3)
        live.add(MetricName.errorCausePrefix + "http_503", 3)
        live.add(MetricName.transportErrors, 2)
        live.add(MetricName.errorCausePrefix + "connection_refused", 2)
        var recorded = MetricSet()
        recorded.add(MetricName.serverErrors, 24)
        recorded.add(MetricName.timeouts, 1)
        run.say(0, .snapshot(WorkerProtocol.Snapshot(sequence: 1, phase: 0, typistsActive: 1,
                                                    groups: [MetricGroup(name: "naive", labels: ["runner": "http"], metrics: live)])))
        run.say(1, .snapshot(WorkerProtocol.Snapshot(sequence: 1, phase: 0, typistsActive: 1,
                                                    groups: [MetricGroup(name: "naive", labels: ["runner": "virtual"], metrics: recorded)])))
        let figures = try #require(run.tick(after: Self.second).compactMap { action -> DriverProgress? in
            if case let .emit(.progress(progress)) = action { progress } else { nil }
        }.first)
        #expect(figures.errors == 30)
        #expect(figures.errorCauses == "server error × 24, HTTP 503 × 3, connection refused × 2, timeout × 1")
        #expect(ProgressRenderer.headline(figures).contains("errors 30 (server error × 24, HTTP 503 × 3, connection refused × 2, timeout × 1)"))
    }
}
