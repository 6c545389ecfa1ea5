import Foundation
import TypestormMetrics
import TypestormSystem
import Testing
@testable import Orchestration

/// The repository's root (for the shipped `Datasets/` and `scripts/`).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// What a user gets wrong, or an attacker tries, from the command line: each answered with a
/// sentence of ours and the right exit code, from any working directory.
@Suite("Hostile input from the command line", .timeLimit(.minutes(5)), .enabled(if: TypestormExecutable.path != nil, Comment(rawValue: TypestormExecutable.missing)))
struct HostileInputTests {
    let executable = TypestormExecutable.path ?? "/nonexistent"

    struct Outcome {
        var status: TypestormSystem.ExitStatus
        var out: String
        var err: String
    }

    /// Runs `typestorm ARGUMENTS` in `workingDirectory` (default: `directory`) without the
    /// launcher variables or `TYPESTORM_HOME` of the test's environment.
    func typestorm(_ arguments: [String], in directory: TemporaryDirectory, workingDirectory: String? = nil,
                   environment: [String: String] = [:]) throws -> Outcome {
        var env = ProcessInfo.processInfo.environment
        for key in ["SLURM_PROCID", "SLURM_NTASKS", "JOB_COMPLETION_INDEX", "TYPESTORM_SEGMENT_COUNT", "TYPESTORM_HOME"] { env[key] = nil }
        env.merge(environment) { $1 }
        let tag = UInt32.random(in: 0...UInt32.max)
        let out = directory.file(".stdout-\(tag)"), err = directory.file(".stderr-\(tag)")
        let child = try ChildProcess.spawn(SpawnOptions(
            executable: "/bin/sh", arguments: ["-c", "cd \"$0\" && exec \"$@\"", workingDirectory ?? directory.path, executable] + arguments,
            environment: env, standardOutput: .file(out), standardError: .file(err)))
        let status = child.waitForExit(timeoutNanos: 120_000_000_000) ?? child.terminate(graceNanos: 0)
        defer {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: err)
        }
        return Outcome(status: status, out: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                       err: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    // MARK: merge

    @Test func mergeRefusesSegmentsOfDifferentSplitsNamingBothFiles() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("v.json", virtualScenarioJSON(typists: 30, seed: 3))
        let a = directory.file("a.json"), b = directory.file("b.json")
        #expect(try typestorm(["worker", scenario, "--segment", "0/3", "--out", a], in: directory).status == .exited(0))
        #expect(try typestorm(["worker", scenario, "--segment", "0/2", "--out", b], in: directory).status == .exited(0))
        let merged = directory.file("m.json")
        let outcome = try typestorm(["merge", a, b, "--out", merged], in: directory)
        #expect(outcome.status == .exited(65))
        #expect(outcome.err.contains(a) && outcome.err.contains(b), "\(outcome.err)")
        #expect(outcome.err.contains("segment 0/3") && outcome.err.contains("segment 0/2"), "\(outcome.err)")
        #expect(!FileManager.default.fileExists(atPath: merged))

        let twice = try typestorm(["merge", a, a], in: directory)
        #expect(twice.status == .exited(65))
        #expect(twice.err.contains("\(a) and \(a) both hold segment 0/3"), "\(twice.err)")
    }

    @Test func recordsOfDifferentSplitsDoNotMerge() throws {
        let metadata = { (segment: Segment) in
            RunMetadata(toolVersion: "t", scenarioName: "s", scenarioHash: "h", seed: 1, runner: "virtual", segments: [segment])
        }
        var first = RunRecord(metadata: metadata(Segment(index: 0, count: 3)))
        let other = RunRecord(metadata: metadata(Segment(index: 1, count: 2)))
        #expect(throws: MergeError.self) { try first.merge(other) }
        #expect(first.metadata.segments == [Segment(index: 0, count: 3)])
    }

    // MARK: worker --out

    @Test func workerOutputPatternGivesEachSlurmTaskItsOwnFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("v.json", virtualScenarioJSON(typists: 40, seed: 4))
        // Every task gets the same arguments, as srun starts them.
        for index in 0..<4 {
            let outcome = try typestorm(["worker", scenario, "--out", directory.file("segment-{segment}.json")], in: directory,
                                        environment: ["SLURM_PROCID": "\(index)", "SLURM_NTASKS": "4"])
            #expect(outcome.status == .exited(0), "\(outcome.err)")
        }
        let files = (0..<4).map { directory.file("segment-\($0).json") }
        for file in files { #expect(FileManager.default.fileExists(atPath: file), "missing \(file)") }
        let whole = directory.file("whole.json")
        #expect(try typestorm(["worker", scenario, "--out", whole], in: directory).status == .exited(0))
        let merged = directory.file("merged.json")
        #expect(try typestorm(["merge"] + files + ["--out", merged], in: directory).status == .exited(0))
        let mergedRecord = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: merged)))
        #expect(mergedRecord.groups == (try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: whole)))).groups)

        // An output directory gets one file per segment.
        let results = directory.file("results")
        try FileManager.default.createDirectory(atPath: results, withIntermediateDirectories: true)
        #expect(try typestorm(["worker", scenario, "--segment", "2/4", "--out", results], in: directory).status == .exited(0))
        #expect(FileManager.default.fileExists(atPath: "\(results)/segment-2-of-4.json"))

        // srun's own placeholder would reach us unexpanded: refused before any work.
        let percent = try typestorm(["worker", scenario, "--segment", "1/4", "--out", directory.file("seg-%t.json")], in: directory)
        #expect(percent.status == .exited(64))
        #expect(percent.err.contains("{segment}"), "\(percent.err)")
    }

    @Test func outputPatternExpansion() throws {
        let segment = Segment(index: 3, count: 8)
        #expect(try WorkerOutput.path("r/seg-{segment}-of-{count}.json", segment: segment) == "r/seg-3-of-8.json")
        #expect(try WorkerOutput.path("r/", segment: segment).hasSuffix("/r/segment-3-of-8.json"))
        #expect(try WorkerOutput.path("plain.json", segment: segment) == "plain.json")
        #expect(throws: WorkerOutput.Failure.self) { try WorkerOutput.path("seg-%t.json", segment: segment) }
    }

    // MARK: partial run directories

    @Test func stalePartialDirectoriesOfKilledDriversAreFound() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let sleeper = try ChildProcess.spawn(SpawnOptions(executable: "/bin/sleep", arguments: ["60"]))
        let partial = directory.file(".run.partial-\(sleeper.pid)")
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)
        #expect(RunSession.stalePartialDirectories(in: directory.path).isEmpty, "a live driver's directory is not stale")
        sleeper.send(SIGKILL)
        #expect(sleeper.waitForExit(timeoutNanos: 10_000_000_000) == .signaled(SIGKILL))
        #expect(RunSession.stalePartialDirectories(in: directory.path) == [RunSession.PartialDirectory(path: partial, pid: sleeper.pid)])
        // A driver on another host sharing this file system: its pid means nothing here.
        try Data("another-host".utf8).write(to: URL(fileURLWithPath: "\(partial)/\(RunSession.driverHostFile)"))
        #expect(RunSession.stalePartialDirectories(in: directory.path).isEmpty)
    }

    @Test func runRemovesWhatAKilledDriverLeft() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("s.json", probeScenarioJSON(typists: 20, duration: "60s", runners: #"[{"kind": "probe", "pace": "realtime"}]"#))
        let runs = directory.file("runs")
        try FileManager.default.createDirectory(atPath: runs, withIntermediateDirectories: true)
        // A real driver, killed with SIGKILL once its partial directory exists.
        let driver = try ChildProcess.spawn(SpawnOptions(
            executable: executable, arguments: ["run", scenario, "--workers", "1", "--out", "\(runs)/first", "--quiet"],
            standardOutput: .file(directory.file("first.out")), standardError: .file(directory.file("first.err"))))
        let partial = "\(runs)/.first.partial-\(driver.pid)"
        let deadline = MonotonicClock.now() + 60_000_000_000
        while !FileManager.default.fileExists(atPath: "\(partial)/scenario.json"), MonotonicClock.now() < deadline {
            MonotonicClock.sleep(20_000_000)
        }
        driver.send(SIGKILL)
        #expect(driver.waitForExit(timeoutNanos: 10_000_000_000) == .signaled(SIGKILL))
        #expect(FileManager.default.fileExists(atPath: partial), "the killed driver left nothing to clean")

        let quick = directory.write("q.json", probeScenarioJSON(typists: 4))
        let outcome = try typestorm(["run", quick, "--workers", "1", "--out", "\(runs)/second", "--quiet"], in: directory)
        #expect(outcome.status == .exited(0), "\(outcome.err)")
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(outcome.err.contains("removed \(partial)"), "\(outcome.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runs).sorted() == ["second"])
        #expect(!FileManager.default.fileExists(atPath: "\(runs)/second/\(RunSession.driverHostFile)"))
    }

    // MARK: shipped data from any directory

    @Test func shippedDataLookupOrder() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fm = FileManager.default
        for root in ["scenario-tree", "home", "install"] {
            try fm.createDirectory(atPath: directory.file("\(root)/Datasets/queries"), withIntermediateDirectories: true)
        }
        try fm.createDirectory(atPath: directory.file("scenario-tree/Datasets/scenarios"), withIntermediateDirectories: true)
        try fm.createDirectory(atPath: directory.file("install/.build/debug"), withIntermediateDirectories: true)
        let executable = directory.file("install/.build/debug/typestorm")
        let scenarios = directory.file("scenario-tree/Datasets/scenarios")
        let home = ["TYPESTORM_HOME": directory.file("home")]
        func find(_ scenario: String?, _ environment: [String: String], checkout: String? = nil) throws -> String {
            try ShippedData.find(ShippedData.queries, scenarioDirectory: scenario, environment: environment, executable: executable,
                                 checkout: checkout, currentDirectory: directory.file("install/.build"))
        }
        #expect(try find(scenarios, home) == directory.file("scenario-tree/Datasets/queries"))
        #expect(try find(directory.path, home) == directory.file("home/Datasets/queries"))
        #expect(try find(nil, [:]) == directory.file("install/Datasets/queries"))
        try fm.removeItem(atPath: directory.file("install/Datasets"))
        // A package that depends on Typestorm finds the data in the checkout it was built from.
        #expect(try find(nil, [:], checkout: directory.file("home")) == directory.file("home/Datasets/queries"))
        #expect(throws: ShippedData.NotFound.self) { try find(directory.file("install"), [:]) }
    }

    @Test func everyCommandFindsTheShippedDataFromATemporaryDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let elsewhere = directory.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)

        let sample = try typestorm(["typists", "sample", "--count", "1", "--json"], in: directory, workingDirectory: elsewhere)
        #expect(sample.status == .exited(0), "\(sample.err)")

        let search = try typestorm(["search", "usb", "--json"], in: directory, workingDirectory: elsewhere)
        #expect(search.status == .exited(0), "\(search.err)")

        let shipped = "\(repositoryRoot)/Datasets/scenarios/default.json"
        let sweep = try typestorm(["sweep", shipped, "--debounce", "0,300", "--typists", "3", "--workers", "1", "--json"],
                                  in: directory, workingDirectory: elsewhere)
        #expect(sweep.status == .exited(0), "\(sweep.err)")

        // A scenario outside the repository, without queryLists: the lists beside the executable.
        let scenario = directory.write("elsewhere/v.json", virtualScenarioJSON(typists: 6))
        let worker = try typestorm(["worker", scenario, "--out", directory.file("w.json")], in: directory, workingDirectory: elsewhere)
        #expect(worker.status == .exited(0), "\(worker.err)")
    }

    @Test func sweepUsesTheScenariosQueryLists() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let json = virtualScenarioJSON(typists: 6).replacingOccurrences(of: #""session": { "queries": 1 }"#,
                                                                         with: #""session": { "queries": 1 }, "queryLists": "no-such-lists""#)
        let scenario = directory.write("v.json", json)
        let outcome = try typestorm(["sweep", scenario, "--debounce", "0", "--typists", "3", "--workers", "1"], in: directory,
                                    workingDirectory: repositoryRoot)
        #expect(outcome.status == .exited(66))
        #expect(outcome.err.contains("$.population.queryLists: no directory at \(directory.file("no-such-lists"))"), "\(outcome.err)")
    }

    // MARK: errors in our words

    @Test func fileErrorsAreSentencesOfOurs() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("v.json", virtualScenarioJSON(typists: 6))
        let record = directory.file("r.json")
        #expect(try typestorm(["worker", scenario, "--out", record], in: directory).status == .exited(0))
        let unwritable = directory.file("no-such-directory/m.json")
        let merge = try typestorm(["merge", record, "--out", unwritable], in: directory)
        #expect(merge.status == .exited(73))
        #expect(merge.err.contains("cannot write \(unwritable): no such file or directory"), "\(merge.err)")
        #expect(!merge.err.contains("NSCocoaErrorDomain") && !merge.err.contains("couldn’t") && !merge.err.contains("The operation"))

        let trace = directory.write("t.jsonl", "{\"session\":0}\n{\"t_ms\":\"soon\",\"key\":\"a\",\"text\":\"a\"}\n")
        let replay = try typestorm(["replay", "--trace", trace, "--strategy", "naive"], in: directory)
        #expect(replay.status == .exited(65))
        #expect(replay.err.contains("field 't_ms': expected a number"), "\(replay.err)")
        #expect(!replay.err.contains("Expected to decode"))

        let noScenario = directory.file("no-such-scenario.json")
        let worker = try typestorm(["worker", noScenario], in: directory)
        #expect(worker.status == .exited(66))
        #expect(worker.err.contains("cannot read scenario \(noScenario): no such file or directory"), "\(worker.err)")

        let missing = directory.file("no-such-run")
        let report = try typestorm(["report", missing], in: directory)
        #expect(report.status == .exited(66))
        #expect(report.err.contains("\(missing): no such file or directory"), "\(report.err)")
    }

    @Test func serveOnAnAddressOfAnotherMachineSaysSo() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // TEST-NET-1 (RFC 5737): never an address of this machine; binding fails at once.
        let outcome = try typestorm(["serve", "--synthetic", "10", "--host", "192.0.2.1", "--port", "0"], in: directory)
        #expect(outcome.status == .exited(1))
        #expect(outcome.err.contains("192.0.2.1 is not an address of this machine"), "\(outcome.err)")
        #expect(!outcome.err.contains("port in use"))
    }
}

/// The scale-out examples of the README and docs/driver.md, as they were run or validated.
@Suite("Scale-out examples", .timeLimit(.minutes(5)), .serialized)
struct ScaleOutExampleTests {
    /// The Indexed Job manifest: a Job kubectl would accept, whose pods run one segment each and
    /// write distinct files (no cluster here, and `kubectl --dry-run=client` needs one).
    @Test func indexedJobManifestHasTheShapeKubernetesNeeds() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(repositoryRoot)/docs/typestorm-indexed-job.json"))
        let job = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(job["apiVersion"] as? String == "batch/v1")
        #expect(job["kind"] as? String == "Job")
        #expect(((job["metadata"] as? [String: Any])?["name"] as? String)?.isEmpty == false)
        let spec = try #require(job["spec"] as? [String: Any])
        #expect(spec["completionMode"] as? String == "Indexed")
        let completions = try #require(spec["completions"] as? Int)
        #expect(spec["parallelism"] as? Int == completions)
        let pod = try #require((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        #expect(pod["restartPolicy"] as? String == "Never")
        let containers = try #require(pod["containers"] as? [[String: Any]])
        #expect(containers.count == 1)
        let command = try #require(containers[0]["command"] as? [String])
        #expect(Array(command.prefix(2)) == ["typestorm", "worker"])
        let count = try #require(command.firstIndex(of: "--segment-count").map { command[$0 + 1] })
        #expect(Int(count) == completions)
        let out = try #require(command.firstIndex(of: "--out").map { command[$0 + 1] })
        #expect(out.contains("{segment}"))
        #expect(try WorkerOutput.path(out, segment: Segment(index: 5, count: completions)) == "/results/segment-5.json")
        let volumes = Set(((pod["volumes"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String })
        let mounts = ((containers[0]["volumeMounts"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
        #expect(!mounts.isEmpty && mounts.allSatisfy(volumes.contains))
        // The docs show the same command.
        let driverDoc = try String(contentsOfFile: "\(repositoryRoot)/docs/driver.md", encoding: .utf8)
        #expect(driverDoc.contains("typestorm worker /scenarios/default.json --segment-count \(count) --out\n\(out)")
                || driverDoc.contains("typestorm worker /scenarios/default.json --segment-count \(count) --out \(out)"))
    }

    /// `scripts/slurm-local`: a real single-node Slurm runs four workers with `srun -O`, and the
    /// merged record equals one process running the whole scenario.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/slurmctld") && TypestormExecutable.path != nil,
                   "needs slurm-wlm and munge (scripts/bootstrap installs them) and the typestorm executable"))
    func slurmLocalRunsTheReadmeExample() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var environment = ProcessInfo.processInfo.environment
        environment["TYPESTORM"] = TypestormExecutable.path
        for key in ["SLURM_PROCID", "SLURM_NTASKS", "SLURM_CONF", "TYPESTORM_HOME"] { environment[key] = nil }
        let out = directory.file("slurm-local.out"), err = directory.file("slurm-local.err")
        let child = try ChildProcess.spawn(SpawnOptions(
            executable: "\(repositoryRoot)/scripts/slurm-local", environment: environment,
            standardOutput: .file(out), standardError: .file(err), processGroup: .new))
        let status = child.waitForExit(timeoutNanos: 300_000_000_000) ?? child.terminate(graceNanos: 5_000_000_000)
        let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        #expect(status == .exited(0), "\(errors)")
        #expect(output.contains("slurm-local: ok: 4 Slurm tasks"), "\(output)\n\(errors)")
    }
}
