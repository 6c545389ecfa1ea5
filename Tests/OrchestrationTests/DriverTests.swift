import Foundation
import TypestormMetrics
import TypestormSystem
import Locking
import Testing
@testable import Orchestration

/// Runs with real `typestorm worker` processes (the built executable).
@Suite("Driver with worker processes", .timeLimit(.minutes(5)), .enabled(if: TypestormExecutable.path != nil, Comment(rawValue: TypestormExecutable.missing)))
struct DriverTests {
    let executable = TypestormExecutable.path ?? "/nonexistent"

    @Test func smallRunEndToEnd() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let runners = #"[{"kind": "probe", "pace": "fast"}, {"kind": "probe", "pace": "realtime"}]"#
        let phases = Locked<[String]>([])
        let configuration = try driverConfiguration(
            probeScenarioJSON(typists: 30, duration: "2s", runners: runners), in: directory, workers: 3, executable: executable,
            onEvent: { event in
                if case let .phaseStarted(phase, runner, workers) = event { phases.withLock { $0.append("\(phase):\(runner):\(workers)") } }
            })
        let outcome = await Driver(configuration).run()

        #expect(outcome.record.problems == [], "\(logsOfFailedWorkers(outcome, in: directory))")
        #expect(!outcome.isPartial)
        #expect(outcome.record.coversAllSegments)
        #expect(outcome.workers.map(\.completed) == [true, true, true])
        #expect(outcome.workers.allSatisfy { $0.exit == .exited(0) }, "\(logsOfFailedWorkers(outcome, in: directory))")
        #expect(phases.withLock { $0 } == ["0:probe:3", "1:probe:3"])
        let fast = try #require(outcome.record.group(named: "probe", labels: ["runner": "probe", "pace": "fast"]))
        let live = try #require(outcome.record.group(named: "probe", labels: ["runner": "probe", "pace": "realtime"]))
        // Keys are cut at the phase duration, so some typists may not type at all; none twice.
        #expect(fast.metrics.counter("typists") <= 30)
        #expect(fast.metrics.counter("keystrokes") == live.metrics.counter("keystrokes"))
        #expect(live.metrics.histograms["probe.lag"]?.totalCount == live.metrics.counter("keystrokes"))
        #expect(outcome.workers.allSatisfy { !processExists($0.pid) })
    }

    @Test func fourWorkersMergeToTheSingleProcessRun() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let json = probeScenarioJSON(typists: 57, duration: "20s")
        let single = await Driver(try driverConfiguration(json, in: directory, workers: 1, executable: executable)).run()
        let sharded = await Driver(try driverConfiguration(json, in: directory, workers: 4, executable: executable)).run()
        #expect(single.record.problems == [])
        #expect(sharded.record.problems == [])
        #expect(!single.isPartial && !sharded.isPartial)
        #expect(sharded.record.metadata.segments.count == 4)
        #expect(single.record.groups == sharded.record.groups)
        #expect(single.record.group(named: "probe", labels: ["runner": "probe", "pace": "fast"])?.metrics.counter("typists") == 57)
    }

    @Test func virtualTimeShardsMergeToTheSingleProcessRun() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let json = virtualScenarioJSON(typists: 120)
        let single = await Driver(try driverConfiguration(json, in: directory, workers: 1, executable: executable)).run()
        let sharded = await Driver(try driverConfiguration(json, in: directory, workers: 4, executable: executable)).run()
        #expect(single.record.problems == [] && sharded.record.problems == [])
        #expect(single.record.groups.map(\.name) == ["naive", "split-state"])
        #expect(single.record.groups == sharded.record.groups)
        #expect(single.record.groups.allSatisfy { $0.metrics.counter("keystrokes") > 0 && $0.labels == ["runner": "virtual"] })
    }

    @Test func workerKilledMidRunIsNamedAndItsLastSnapshotKept() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pids = Locked<[Int: Int32]>([:])
        let configuration = try driverConfiguration(
            probeScenarioJSON(typists: 12, duration: "1500ms", runners: #"[{"kind": "probe", "pace": "realtime"}]"#),
            in: directory, workers: 3, executable: executable,
            onEvent: { event in
                switch event {
                case let .spawned(worker, pid): pids.withLock { $0[worker] = pid }
                case let .snapshot(worker, sequence) where worker == 1 && sequence == 6:
                    if let pid = pids.withLock({ $0[1] }) { kill(pid, SIGKILL) }
                default: break
                }
            })
        let outcome = await Driver(configuration).run()
        #expect(outcome.isPartial)
        #expect(outcome.workers[1].exit == .signaled(SIGKILL))
        #expect(!outcome.workers[1].completed)
        let problem = try #require(outcome.workers[1].problem)
        #expect(problem.hasPrefix("worker 1 (pid \(outcome.workers[1].pid), segment 1/3) was killed by signal 9 (SIGKILL)"))
        #expect(outcome.record.problems.contains(problem))
        #expect(outcome.workers[0].completed && outcome.workers[2].completed)
        // Segment 1's last snapshot is in the record, so all three segments are present.
        #expect(outcome.record.metadata.segments.count == 3)
    }

    @Test func workerPrintingGarbageIsNamedAndStopped() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let configuration = try driverConfiguration(
            probeScenarioJSON(typists: 8), in: directory, workers: 2, executable: executable,
            workerCommand: { [executable] index, standard in
                guard index == 1 else { return (executable, standard) }
                // Prints a stray line, then becomes a real worker.
                return ("/bin/sh", ["-c", "echo 'Loading catalog... done'; exec \"$0\" \"$@\"", executable] + standard)
            })
        let outcome = await Driver(configuration).run()
        #expect(outcome.isPartial)
        #expect(outcome.workers[0].completed)
        let problem = try #require(outcome.workers[1].problem)
        #expect(problem.contains("worker 1"))
        #expect(problem.contains("sent garbage: not a protocol message: \"Loading catalog... done\""))
        #expect(outcome.workers[1].exit == .signaled(SIGKILL))
        #expect(outcome.record.metadata.segments == [Segment(index: 0, count: 2)])
    }

    @Test func hungWorkerIsKilledAfterTheTimeout() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pid = Locked<Int32>(0)
        // One worker, stopped with SIGSTOP after its second snapshot: a healthy second worker
        // could itself be starved past a short limit on a busy machine.
        let configuration = try driverConfiguration(
            probeScenarioJSON(typists: 8, duration: "10s", runners: #"[{"kind": "probe", "pace": "realtime"}]"#, hang: "1s"),
            in: directory, workers: 1, executable: executable,
            onEvent: { event in
                switch event {
                case let .spawned(_, spawned): pid.withLock { $0 = spawned }
                case let .snapshot(_, sequence) where sequence == 2: kill(pid.withLock { $0 }, SIGSTOP)
                default: break
                }
            })
        let outcome = await Driver(configuration).run()
        #expect(outcome.isPartial)
        let problem = try #require(outcome.workers[0].problem)
        #expect(problem.hasPrefix("worker 0 (pid \(outcome.workers[0].pid), segment 0/1) sent nothing for"))
        #expect(problem.hasSuffix("(hung; limit 1s) and was killed"))
        #expect(outcome.workers[0].exit == .signaled(SIGKILL))
        #expect(outcome.workers[0].snapshots >= 2)
        #expect(!processExists(outcome.workers[0].pid))
    }

    @Test func liveWorkerWhoseHeartbeatOutlivesItsPhaseIsStopped() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let json = probeScenarioJSON(typists: 4, duration: "300ms", runners: #"[{"kind": "probe", "pace": "realtime"}]"#, hang: "1s", drain: "0s")
        let hash = try ScenarioReader.read(json: json).hash
        // A fake worker: a correct handshake, then heartbeats forever and never the phase's end.
        let script = """
        printf '{"v":\(WorkerProtocol.version),"type":"hello","body":{"pid":%d,"segment":{"index":0,"count":1},"scenarioHash":"\(hash)","toolVersion":"t"}}\\n' $$
        printf '{"v":\(WorkerProtocol.version),"type":"ready","body":{"typists":4}}\\n'
        read start
        i=1
        while :; do printf '{"v":\(WorkerProtocol.version),"type":"snapshot","body":{"sequence":%d,"phase":0,"typistsActive":0,"groups":[]}}\\n' $i; i=$((i+1)); sleep 0.1; done
        """
        let configuration = try driverConfiguration(json, in: directory, workers: 1, executable: executable,
                                                    workerCommand: { _, _ in ("/bin/sh", ["-c", script]) })
        let outcome = await Driver(configuration).run()
        #expect(outcome.isPartial)
        let problem = try #require(outcome.workers[0].problem)
        #expect(problem.contains("was still running live phase 0 (probe)"))
        #expect(outcome.workers[0].snapshots > 5)
        #expect(outcome.workers[0].exit == .signaled(SIGTERM))
    }

    /// Typists are built before `ready` (`PhaseWorkload.prepared`): a population that cannot be
    /// built fails the worker before any phase starts, naming the phase and the cause.
    @Test func workerThatCannotBuildItsTypistsReportsWhyBeforeTheBarrier() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let json = virtualScenarioJSON(typists: 20).replacingOccurrences(
            of: #""session": { "queries": 1 }"#, with: #""session": { "queries": 1 }, "queryLists": "no-such-query-lists""#)
        let phases = Locked(0)
        let configuration = try driverConfiguration(json, in: directory, workers: 1, executable: executable, onEvent: { event in
            if case .phaseStarted = event { phases.withLock { $0 += 1 } }
        })
        let outcome = await Driver(configuration).run()
        #expect(outcome.isPartial)
        let problem = try #require(outcome.workers[0].problem)
        #expect(problem.contains("reported an error: phase 0 (virtual) cannot be prepared"))
        #expect(problem.contains("no-such-query-lists"))
        #expect(phases.withLock { $0 } == 0)
    }

    @Test func workerThatCannotReadTheScenarioReportsWhy() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let configuration = try driverConfiguration(
            probeScenarioJSON(typists: 8), in: directory, workers: 2, executable: executable,
            workerCommand: { [executable] index, standard in
                var arguments = standard
                if index == 0 { arguments[1] = "/nonexistent/scenario.json" }
                return (executable, arguments)
            })
        let outcome = await Driver(configuration).run()
        #expect(outcome.isPartial)
        let problem = try #require(outcome.workers[0].problem)
        #expect(problem.contains("reported an error: cannot read scenario /nonexistent/scenario.json"))
        #expect(outcome.workers[1].completed)
    }
}
