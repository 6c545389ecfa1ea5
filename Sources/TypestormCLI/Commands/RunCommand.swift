import Diagnostics
import Foundation
import RunHistory
import TypestormMetrics
import Orchestration
import TypestormSystem
import Reporting

/// `typestorm run SCENARIO`: the multi-process driver.
enum RunCommand {
    static let command = Command(
        name: "run",
        abstract: "Run a scenario over worker processes and write a report directory.",
        discussion: """
        Spawns N 'typestorm worker' processes, each running segment i/N of the typists, starts them
        together phase by phase (one phase per runner), merges their snapshots and writes the run
        directory atomically: record.json, summary.csv, summary.txt, scenario.json, workers/*.log.

        Command-line overrides (--typists, --duration, --seed, --strategies, --url, --set) change
        the scenario before it is checked; the run directory's scenario.json and the hash are those
        of the overridden scenario. With --repeat N the runs go to DIR/run-1 … DIR/run-N ('typestorm
        compare' reads such a directory as repeated runs) and the exit code is the worst of them.
        Every run fails (exit 1) when more than 1 % of a group's requests failed, unless the
        scenario sets its own threshold on failed_share.

        Exit codes: 0 complete; 1 a threshold failed (or an "abort" threshold stopped the run);
        2 partial (a worker crashed, hung or sent garbage; the report holds what arrived); 65 bad
        scenario or override, or a bad catalog row; 66 the catalog, a CA file or a header's
        environment variable is missing; 70 a runner is unavailable, no worker started or the
        metrics port is taken; 73 the run directory cannot be written; 130/143 stopped by SIGINT/SIGTERM
        (load drained, children stopped, partial report written).
        """,
        options: [
            .value("workers", "N", help: "Worker processes (default: the scenario's \"processes\").", default: nil),
            .value("out", "DIR", help: "Run directory to create (default: runs/<scenario>-<UTC time>)."),
            .flag("quiet", short: "q", help: "No progress output."),
            .value("store", "URL", help: "Also add the run to a results store (sqlite:PATH or postgres://…; see docs/history.md)."),
            .value("out-jsonl", "FILE", help: "Write the groups' counters and quantiles so far to FILE, one JSON line per group every second."),
            .value("metrics-port", "PORT", help: "Serve the groups so far in the Prometheus text format on http://127.0.0.1:PORT/metrics (0: a free port, printed)."),
            .value("repeat", "N", help: "Run the scenario N times into DIR/run-1 … DIR/run-N, for compare's Welch test (default 1)."),
            .json,
        ] + RunOverrides.options,
        positionals: [Positional("scenario", help: "Scenario JSON file (see Datasets/scenarios/).")],
        run: { invocation in
            let path = try invocation.arguments.requiredPositional(0, name: "scenario")
            let workers = try invocation.arguments.int("workers", default: nil, in: 1...256)
            let repeats = try invocation.arguments.int("repeat", default: 1, in: 1...1_000)
            var scenario = try ScenarioLoading.load(path, overrides: try RunOverrides.parse(invocation.arguments))
            // An http-url runner without a count path: its first answers show where the count is.
            let lines: [String]
            (scenario, lines) = try await CountDetection.detectingCounts(
                in: scenario, file: path, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
            if !invocation.arguments.flag("quiet") { for line in lines { invocation.console.err("run: \(line)\n") } }
            let json = invocation.arguments.flag("json")
            let mode: ProgressRenderer.Mode = invocation.arguments.flag("quiet") ? .quiet : (invocation.console.isInteractive ? .terminal : .lines)
            // Opened before the run, so a wrong URL or an unreachable database costs no load.
            let store = try invocation.arguments.value("store").map(HistoryCLI.open)
            let jsonl = invocation.arguments.value("out-jsonl")
            let metricsPort = try invocation.arguments.int("metrics-port", default: nil, in: 0...65_535).map { UInt16($0) }
            guard repeats > 1 else {
                return try await execute(
                    scenario: scenario, path: path, workers: workers, out: invocation.arguments.value("out"),
                    progress: mode, json: json, console: invocation.console, progressLines: jsonl, metricsPort: metricsPort, store: store)
            }
            if jsonl != nil { throw UsageError.conflictingOptions("out-jsonl", "repeat") }
            if metricsPort != nil { throw UsageError.conflictingOptions("metrics-port", "repeat") }
            if store != nil { throw UsageError.conflictingOptions("store", "repeat") }
            return try await repeated(repeats, scenario: scenario, path: path, workers: workers, out: invocation.arguments.value("out"),
                                      progress: mode, json: json, console: invocation.console)
        }
    )

    /// Runs a loaded scenario and prints the summary (shared with the main job).
    static func execute(scenario: Scenario, path: String?, workers: Int?, out: String?, progress: ProgressRenderer.Mode,
                        json: Bool, console: Console, progressLines: String? = nil, metricsPort: UInt16? = nil,
                        store: HistoryStore? = nil) async throws -> Int32 {
        let result = try await session(scenario: scenario, path: path, workers: workers, out: out, progress: progress, console: console,
                                       progressLines: progressLines, metricsPort: metricsPort)
        if json {
            console.out(RunJSON.render(result))
        } else {
            console.out(result.summary)
            console.out("\nreport: \(result.runDirectory)/report.html\n")
        }
        if let store {
            try HistoryCLI.addAfterRun(result.outcome.record, runDirectory: result.runDirectory, to: store, console: console)
        }
        return result.exitCode
    }

    /// One run, report files included; printing is the caller's.
    static func session(scenario: Scenario, path: String?, workers: Int?, out: String?, progress: ProgressRenderer.Mode,
                        console: Console, progressLines: String? = nil, metricsPort: UInt16? = nil) async throws -> RunSession.Result {
        var request = RunSession.Request(
            scenario: scenario, scenarioPath: path, workers: workers, outputDirectory: out,
            executable: ExecutablePath.current(), toolVersion: VersionCommand.version,
            progress: progress, writeProgress: { console.err($0) })
        request.progressLinesPath = progressLines
        request.metricsPort = metricsPort
        let result: RunSession.Result
        do {
            result = try await RunSession.run(request)
        } catch {
            throw ToolError(error.message, exitCode: error.kind.exitCode)
        }
        return result
    }
}

/// The main job (`typestorm` with no arguments): call `RunCommand.mainJob(console)` from
/// `MainJob.run`.
extension RunCommand {
    static func mainJob(_ console: Console) async throws -> Int32 {
        let executable = ExecutablePath.current()
        guard let path = MainJobPlan.defaultScenarioPath(executable: executable) else {
            throw ToolError("cannot find \(MainJobPlan.relativeScenarioPath); run typestorm from the package directory or set TYPESTORM_HOME", exitCode: ExitCode.noInput)
        }
        return try await execute(scenario: try ScenarioLoading.load(path), path: path, workers: nil, out: nil,
                                 progress: console.isInteractive ? .terminal : .lines, json: false, console: console)
    }
}

/// Reading a scenario file with errors a user can act on.
enum ScenarioLoading {
    static func load(_ path: String, overrides: [ScenarioOverride] = []) throws -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ToolError("cannot read scenario file \(path): no such file or not readable", exitCode: ExitCode.noInput)
        }
        do {
            return try ScenarioReader.read(bytes: Array(data), file: path, overrides: overrides)
        } catch {
            throw ToolError(error.description, exitCode: ExitCode.dataError)
        }
    }
}

/// The path of the running `typestorm` executable, which the driver spawns as its workers.
enum ExecutablePath {
    static func current() -> String { ShippedData.executablePath }
}

/// `typestorm run --json`: stable keys (documented in docs/driver.md).
enum RunJSON {
    static func render(_ result: RunSession.Result) -> String {
        let outcome = result.outcome
        let record = outcome.record
        let object: [String: Any] = [
            "runDirectory": result.runDirectory,
            "exitCode": Int(result.exitCode),
            "partial": record.partial,
            "interruptedBy": outcome.interruptedBy.map { signalName($0) as Any } ?? NSNull(),
            "scenario": ["name": record.metadata.scenarioName, "hash": record.metadata.scenarioHash, "seed": NSNumber(value: record.metadata.seed)],
            "seconds": Double(outcome.endedWallClockNanos - outcome.startedWallClockNanos) / 1e9,
            "workers": outcome.workers.map { worker -> [String: Any] in
                [
                    "index": worker.index, "pid": Int(worker.pid), "segment": "\(worker.segment.index)/\(worker.segment.count)",
                    "exit": worker.exit.map { $0.description as Any } ?? NSNull(),
                    "problem": worker.problem.map { $0 as Any } ?? NSNull(),
                    "snapshots": worker.snapshots, "completed": worker.completed,
                ]
            },
            "thresholds": result.thresholds.map { threshold -> [String: Any] in
                ["metric": threshold.threshold.metric, "group": threshold.group,
                 "value": threshold.value.map { $0 as Any } ?? NSNull(), "passed": threshold.passed]
            },
            "problems": record.problems,
            "decision": decisionObject(record),
            "groups": record.groups.map { group -> [String: Any] in
                ["name": group.name, "labels": group.labels, "counters": group.metrics.counters.mapValues { NSNumber(value: $0) },
                 "histograms": group.metrics.histograms.mapValues(histogramObject)]
            },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// What to ship (`Decision.JSON`, docs/reports.md), or null when the record has no strategy groups.
    static func decisionObject(_ record: RunRecord) -> Any {
        guard let decision = Decision(record: record), let data = try? JSONEncoder().encode(decision.json),
              let object = try? JSONSerialization.jsonObject(with: data) else { return NSNull() }
        return object
    }

    /// A histogram's `HistogramSummary` (count, mean, p50, p90, p95, p99, p999, max; `null` when empty).
    static func histogramObject(_ histogram: Histogram) -> Any {
        guard let data = try? JSONEncoder().encode(HistogramSummary(histogram)),
              let object = try? JSONSerialization.jsonObject(with: data) else { return NSNull() }
        return object
    }
}
