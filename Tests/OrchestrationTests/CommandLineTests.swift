import Foundation
import TypestormMetrics
import TypestormSystem
import Testing
@testable import Orchestration

/// `typestorm run`, `worker` and `merge` as a user runs them: separate processes.
@Suite("typestorm run, worker and merge", .timeLimit(.minutes(5)), .enabled(if: TypestormExecutable.path != nil, Comment(rawValue: TypestormExecutable.missing)))
struct CommandLineTests {
    let executable = TypestormExecutable.path ?? "/nonexistent"

    /// Runs `typestorm ARGUMENTS` to the end; returns exit status and standard output.
    func typestorm(_ arguments: [String], environment: [String: String] = [:], in directory: TemporaryDirectory,
                   timeoutSeconds: Int64 = 60) throws -> (TypestormSystem.ExitStatus, String) {
        var env = ProcessInfo.processInfo.environment
        for key in ["SLURM_PROCID", "SLURM_NTASKS", "JOB_COMPLETION_INDEX", "TYPESTORM_SEGMENT_COUNT"] { env[key] = nil }
        env.merge(environment) { $1 }
        let output = directory.file("stdout-\(UInt32.random(in: 0...UInt32.max))")
        let child = try ChildProcess.spawn(SpawnOptions(
            executable: executable, arguments: arguments, environment: env,
            standardOutput: .file(output), standardError: .file(directory.file("stderr.log"))))
        let status = child.waitForExit(timeoutNanos: timeoutSeconds * 1_000_000_000) ?? child.terminate(graceNanos: 0)
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    @Test func standaloneSegmentsFromSlurmMergeToTheWholeRun() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("s.json", probeScenarioJSON(typists: 41, duration: "20s"))
        var files: [String] = []
        for index in 0..<4 {
            let file = directory.file("segment-\(index).json")
            let (status, _) = try typestorm(["worker", scenario, "--out", file], environment: ["SLURM_PROCID": "\(index)", "SLURM_NTASKS": "4"], in: directory)
            #expect(status == .exited(0))
            files.append(file)
        }
        let whole = directory.file("whole.json")
        #expect(try typestorm(["worker", scenario, "--out", whole], in: directory).0 == .exited(0))

        let merged = directory.file("merged.json")
        let (status, table) = try typestorm(["merge"] + files.reversed() + ["--out", merged], in: directory)
        #expect(status == .exited(0))
        #expect(table.contains("segments 0/4, 1/4, 2/4, 3/4"))
        let mergedRecord = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: merged)))
        let wholeRecord = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: whole)))
        #expect(mergedRecord.groups == wholeRecord.groups)
        #expect(mergedRecord.coversAllSegments && !mergedRecord.partial)
        #expect(mergedRecord.group(named: "probe", labels: ["runner": "probe", "pace": "fast"])?.metrics.counter("typists") == 41)
    }

    @Test func fourVirtualTimeWorkersFromSlurmVariablesMergeToTheSingleProcessRun() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("v.json", virtualScenarioJSON(typists: 100, seed: 9))
        var files: [String] = []
        for index in 0..<4 {
            let file = directory.file("v\(index).json")
            let (status, _) = try typestorm(["worker", scenario, "--out", file], environment: ["SLURM_PROCID": "\(index)", "SLURM_NTASKS": "4"], in: directory)
            #expect(status == .exited(0))
            files.append(file)
        }
        let whole = directory.file("whole.json")
        #expect(try typestorm(["worker", scenario, "--out", whole], in: directory).0 == .exited(0))
        let merged = directory.file("merged.json")
        #expect(try typestorm(["merge"] + files + ["--out", merged, "--json"], in: directory).0 == .exited(0))
        let mergedRecord = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: merged)))
        let wholeRecord = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: whole)))
        #expect(mergedRecord.metadata.segments.count == 4)
        #expect(!mergedRecord.groups.isEmpty)
        #expect(mergedRecord.groups == wholeRecord.groups)
    }

    @Test func indexedJobSegmentsAndAMissingOne() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("s.json", probeScenarioJSON(typists: 9, duration: "20s"))
        for index in [0, 2] {
            let (status, _) = try typestorm(["worker", scenario, "--segment-count", "3", "--out", directory.file("k\(index).json")],
                                            environment: ["JOB_COMPLETION_INDEX": "\(index)"], in: directory)
            #expect(status == .exited(0))
        }
        let (status, output) = try typestorm(["merge", directory.file("k0.json"), directory.file("k2.json"), "--json"], in: directory)
        #expect(status == .exited(2))
        let record = try RunRecord.decode(Data(output.utf8))
        #expect(record.partial)
        #expect(record.problems == ["missing segment(s) 1/3"])
        // The same segment twice is refused rather than counted twice.
        let (twice, _) = try typestorm(["merge", directory.file("k0.json"), directory.file("k0.json")], in: directory)
        #expect(twice == .exited(65))
    }

    @Test func liveRunnersInProcessAndOverHTTPToTheEmbeddedServer() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("live.json", """
        { "name": "live-test", "seed": 3, "duration": "2s",
          "catalog": { "generate": { "items": 2000 } },
          "population": { "typists": 10, "session": { "queries": 1 } },
          "strategies": [ { "preset": "naive" }, { "preset": "split-state" } ],
          "runners": [ { "kind": "in-process" }, { "kind": "http-embedded", "serverThreads": 1 } ],
          "backend": { "workers": 1 },
          "driver": { "snapshotInterval": "200ms", "hangTimeout": "60s", "drain": "2s" } }
        """)
        let out = directory.file("run")
        let (status, _) = try typestorm(["run", scenario, "--workers", "2", "--out", out, "--quiet"], in: directory)
        #expect(status == .exited(0))
        let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: "\(out)/record.json")))
        #expect(record.problems == [])
        var httpRequests: Int64 = 0
        for runner in ["in-process", "http-embedded"] {
            for strategy in ["naive", "split-state"] {
                let group = try #require(record.group(named: strategy, labels: ["runner": runner]), "no \(strategy) group for \(runner)")
                #expect(group.metrics.counter("keystrokes") > 0)
                #expect(group.metrics.counter("requests_started") > 0)
                if runner == "http-embedded" { httpRequests += group.metrics.counter("requests_started") }
            }
        }
        let server = try #require(record.group(named: "server", labels: ["runner": "http-embedded"]))
        #expect(server.metrics.counter("server_requests") > 0)
        #expect(server.metrics.counter("server_requests") <= httpRequests)
        #expect(server.metrics.counter("workers_cpu_ns") > 0)
        let summary = try String(contentsOfFile: "\(out)/summary.txt", encoding: .utf8)
        #expect(summary.contains("embedded server: "))
    }

    @Test func failedThresholdExitsWith1() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let json = probeScenarioJSON(typists: 6, duration: "20s").replacingOccurrences(
            of: #""seed": 11,"#, with: #""seed": 11, "thresholds": [{"metric": "keystrokes", "max": 1}, {"metric": "probe.iki.p50", "max": "1h"}],"#)
        let scenario = directory.write("t.json", json)
        let (status, output) = try typestorm(["run", scenario, "--out", directory.file("run"), "--json", "--quiet"], in: directory)
        #expect(status == .exited(1))
        let object = try #require((try JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any])
        let thresholds = try #require(object["thresholds"] as? [[String: Any]])
        #expect(thresholds.map { $0["metric"] as? String } == ["keystrokes", "probe.iki.p50"])
        #expect(thresholds.map { $0["passed"] as? Bool } == [false, true])
        #expect(object["exitCode"] as? Int == 1)
    }

    @Test func invalidScenarioFailsWithThePathAndExit65() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("bad.json", probeScenarioJSON().replacingOccurrences(of: "\"typists\": 24", with: "\"typists\": 0"))
        let (status, _) = try typestorm(["run", scenario, "--out", directory.file("run")], in: directory)
        #expect(status == .exited(65))
        let message = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
        #expect(message.contains("$.population.typists: expected an integer in 1...10000000, found 0"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("run")))
    }

    @Test func runWritesTheRunDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("s.json", probeScenarioJSON(typists: 10))
        let out = directory.file("run")
        let (status, output) = try typestorm(["run", scenario, "--workers", "2", "--out", out, "--json", "--quiet"], in: directory)
        #expect(status == .exited(0))
        let json = try #require((try JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any])
        #expect(json["runDirectory"] as? String == out)
        #expect(json["partial"] as? Bool == false)
        #expect((json["workers"] as? [[String: Any]])?.count == 2)
        for file in ["record.json", "summary.csv", "summary.txt", "scenario.json", "workers/worker-0.log", "workers/worker-1.log"] {
            #expect(FileManager.default.fileExists(atPath: "\(out)/\(file)"), "missing \(file)")
        }
        let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: "\(out)/record.json")))
        #expect(record.metadata.host?.cores ?? 0 >= 1)
        #expect(record.metadata.startedAtMillis != nil && record.metadata.endedAtMillis != nil)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("partial") }
        #expect(leftovers.isEmpty)
    }

    /// Starts `typestorm run` on a long real-time probe and returns it with its workers' pids
    /// once the first phase has started.
    func startLongRun(in directory: TemporaryDirectory, workers: Int) throws -> (ChildProcess, [Int32], String) {
        let scenario = directory.write("s.json", probeScenarioJSON(typists: 20, duration: "60s", runners: #"[{"kind": "probe", "pace": "realtime"}]"#))
        let out = directory.file("run")
        let driver = try ChildProcess.spawn(SpawnOptions(
            executable: executable, arguments: ["run", scenario, "--workers", "\(workers)", "--out", out],
            standardOutput: .file(directory.file("stdout")), standardError: .pipe))
        var buffer = LineBuffer()
        var workerPIDs: [Int32] = []
        var started = false
        let deadline = Int64(MonotonicClock.now()) + 30_000_000_000
        while !started, Int64(MonotonicClock.now()) < deadline {
            guard try !PipeIO.poll([driver.standardError!], timeoutMillis: 1_000).isEmpty else { continue }
            let bytes = try PipeIO.readAvailable(driver.standardError!)
            if bytes.isEmpty { break }
            for line in try buffer.append(bytes).map({ String(decoding: $0, as: UTF8.self) }) {
                if line.hasPrefix("run: worker "), let pid = line.split(separator: "pid ").last.flatMap({ Int32($0.dropLast()) }) {
                    workerPIDs.append(pid)
                }
                if line.contains("phase 0 (probe) started") { started = true }
            }
        }
        #expect(started)
        #expect(workerPIDs.count == workers)
        return (driver, workerPIDs, out)
    }

    /// Whether `pid` is gone or a zombie (a reaper that is not us may take a moment).
    func isGoneOrZombie(_ pid: Int32) -> Bool {
        guard processExists(pid) else { return true }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? true
    }

    @Test func workersDieWithAKilledDriver() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (driver, workerPIDs, _) = try startLongRun(in: directory, workers: 2)
        driver.send(SIGKILL)
        #expect(driver.waitForExit(timeoutNanos: 10_000_000_000) == .signaled(SIGKILL))
        // Waits (bounded) for the kernel's parent-death signal to reach the orphans.
        let deadline = Int64(MonotonicClock.now()) + 10_000_000_000
        while !workerPIDs.allSatisfy(isGoneOrZombie), Int64(MonotonicClock.now()) < deadline { MonotonicClock.sleep(10_000_000) }
        for pid in workerPIDs { #expect(isGoneOrZombie(pid), "worker pid \(pid) outlived its driver") }
    }

    @Test func sigintDrainsStopsWorkersAndWritesAPartialReport() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (driver, workerPIDs, out) = try startLongRun(in: directory, workers: 3)
        driver.send(SIGINT)
        let status = driver.waitForExit(timeoutNanos: 20_000_000_000) ?? driver.terminate(graceNanos: 0)
        #expect(status == .exited(130))
        let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: "\(out)/record.json")))
        #expect(record.partial)
        #expect(record.problems.first == "the run was interrupted by SIGINT; workers were drained and stopped")
        // Drained: every worker sent its (stopped) record, so every segment is present.
        #expect(record.metadata.segments.count == 3)
        for pid in workerPIDs { #expect(!processExists(pid), "worker pid \(pid) is still around") }
    }
}
