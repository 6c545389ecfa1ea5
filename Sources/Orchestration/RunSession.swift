import Diagnostics
import Foundation
import Reporting
import SearchServer
import TypestormMetrics
import TypestormSystem

/// `typestorm run` as a library call: check the scenario's runners, prepare the run
/// directory, drive the workers, evaluate thresholds, write the report atomically.
package enum RunSession {
    package struct Request: Sendable {
        package var scenario: Scenario
        /// The scenario file (its directory resolves relative paths); `nil` for built-in ones.
        package var scenarioPath: String?
        /// Overrides `scenario.processes`.
        package var workers: Int?
        /// The run directory to create; default `runs/<scenario>-<UTC time>`.
        package var outputDirectory: String?
        /// The `typestorm` executable the workers run.
        package var executable: String
        package var toolVersion: String
        package var progress: ProgressRenderer.Mode
        package var writeProgress: @Sendable (String) -> Void
        /// Extra hook for every driver event (tests, benchmarks).
        package var onEvent: (@Sendable (DriverEvent) -> Void)?
        package var handleSignals: Bool
        /// `--out-jsonl`: write the groups so far to this file at every progress tick.
        package var progressLinesPath: String?
        /// `--metrics-port`: serve the groups so far on 127.0.0.1 (0: a free port).
        package var metricsPort: UInt16?

        package init(scenario: Scenario, scenarioPath: String?, workers: Int? = nil, outputDirectory: String? = nil,
                    executable: String, toolVersion: String, progress: ProgressRenderer.Mode = .quiet,
                    writeProgress: @escaping @Sendable (String) -> Void = { _ in },
                    onEvent: (@Sendable (DriverEvent) -> Void)? = nil, handleSignals: Bool = true) {
            self.scenario = scenario
            self.scenarioPath = scenarioPath
            self.workers = workers
            self.outputDirectory = outputDirectory
            self.executable = executable
            self.toolVersion = toolVersion
            self.progress = progress
            self.writeProgress = writeProgress
            self.onEvent = onEvent
            self.handleSignals = handleSignals
        }
    }

    package struct Result: Sendable {
        package var outcome: DriverOutcome
        package var runDirectory: String
        package var thresholds: [ThresholdResult]
        /// How the run ended (the command line's exit code is made from it).
        package var verdict: RunVerdict
        /// The summary table and problems, as printed to a person.
        package var summary: String
    }

    /// A run that could not start or could not write its run directory.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var message: String
        package var kind: RunFailureKind
        package var description: String { message }
    }

    package static func run(_ request: Request) async throws(Failure) -> Result {
        let scenario = request.scenario
        let fm = FileManager.default
        let baseDirectory = request.scenarioPath.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } ?? fm.currentDirectoryPath
        try checkInputs(scenario, scenarioPath: request.scenarioPath, baseDirectory: baseDirectory)
        let final = request.outputDirectory ?? defaultDirectory(for: scenario)
        let finalURL = URL(fileURLWithPath: final).standardizedFileURL
        guard !fm.fileExists(atPath: finalURL.path) else {
            throw Failure(message: "the run directory \(final) already exists; choose another with --out", kind: .cannotWrite)
        }
        for note in removeStalePartialDirectories(in: finalURL.deletingLastPathComponent().path) {
            request.writeProgress("run: \(note)\n")
        }
        let temporary = finalURL.deletingLastPathComponent().appendingPathComponent(partialName(for: finalURL.lastPathComponent, pid: getpid()))
        let scenarioFile = temporary.appendingPathComponent("scenario.json")
        do {
            try fm.createDirectory(at: temporary.appendingPathComponent("workers"), withIntermediateDirectories: true)
            try markDriverHost(in: temporary.path)
            try Data(scenario.canonicalJSON.prettyCanonical.utf8).write(to: scenarioFile)
        } catch {
            throw Failure(message: "cannot create the run directory next to \(final): \(ErrorText.describe(error)); choose a writable place with --out", kind: .cannotWrite)
        }

        let renderer = ProgressRenderer(mode: request.progress, write: request.writeProgress)
        var lines: ProgressLines?
        if let path = request.progressLinesPath {
            do { lines = try ProgressLines(path: path) } catch {
                try? fm.removeItem(at: temporary)
                throw Failure(message: "cannot write --out-jsonl \(path): \(error.localizedDescription)", kind: .cannotWrite)
            }
        }
        defer { lines?.close() }
        let progressLines = lines
        var endpoint: MetricsEndpoint?
        if let port = request.metricsPort {
            do { endpoint = try MetricsEndpoint(port: port) } catch {
                try? fm.removeItem(at: temporary)
                throw Failure(message: "--metrics-port: \(error)", kind: .cannotRun)
            }
            request.writeProgress("run: metrics at http://127.0.0.1:\(endpoint!.port)/metrics\n")
        }
        defer { endpoint?.close() }
        let metrics = endpoint
        let extra = request.onEvent
        func configuration(serverURL: String?) -> DriverConfiguration {
            DriverConfiguration(
            scenario: scenario, scenarioFile: scenarioFile.path, baseDirectory: baseDirectory,
            workers: request.workers ?? scenario.processes, executable: request.executable,
            logDirectory: temporary.appendingPathComponent("workers").path, toolVersion: request.toolVersion,
            gitCommit: HostInfo.gitCommit(near: baseDirectory) ?? HostInfo.gitCommit(near: fm.currentDirectoryPath),
            serverURL: serverURL, handleSignals: request.handleSignals,
            onEvent: { event in
                renderer.handle(event)
                if case let .progress(progress) = event {
                    progressLines?.write(progress)
                    metrics?.update(PrometheusText.render(progress))
                }
                extra?(event)
            })
        }
        let serverThreads = scenario.runners.compactMap { runner -> Int? in
            if case let .httpEmbedded(threads, _) = runner { return threads } else { return nil }
        }.max()
        var outcome: DriverOutcome
        if let serverThreads {
            do {
                outcome = try await EmbeddedServerFactory.withServer(for: scenario, baseDirectory: baseDirectory, threads: serverThreads) { server in
                    let cpuBefore = CPUTime.process()
                    var outcome = await Driver(configuration(serverURL: server.baseURL)).run()
                    var group = server.metricsGroup()
                    // The server runs in this process: its CPU is the process's minus the driver's.
                    group.metrics.add(MetricName.serverCPUNs, max(0, CPUTime.process() - cpuBefore - outcome.driverCPUNanos))
                    group.metrics.add(MetricName.workersCPUNs, outcome.workersCPUNanos)
                    try? outcome.record.add(group)
                    return outcome
                }
            } catch {
                try? fm.removeItem(at: temporary)
                throw Failure(message: "cannot start the embedded search server: \(error)", kind: .cannotRun)
            }
        } else {
            outcome = await Driver(configuration(serverURL: nil)).run()
        }
        renderer.finish()

        if outcome.workers.allSatisfy({ $0.pid == 0 }) {
            try? fm.removeItem(at: temporary)
            throw Failure(message: outcome.record.problems.first ?? "no worker could be started", kind: .cannotRun)
        }
        let thresholds = scenario.evaluateThresholds(outcome.record)
        let summary = summaryText(outcome: outcome, thresholds: thresholds, directory: final)
        do {
            try outcome.record.encoded().write(to: temporary.appendingPathComponent("record.json"))
            try Data(RunSummary.csv(outcome.record).utf8).write(to: temporary.appendingPathComponent("summary.csv"))
            try Data(summary.utf8).write(to: temporary.appendingPathComponent("summary.txt"))
            let report = HTMLReport.forRun(outcome.record, scenario: scenario, scenarioText: scenario.canonicalJSON.prettyCanonical,
                                           baseDirectory: baseDirectory).render()
            try Data(report.utf8).write(to: temporary.appendingPathComponent("report.html"))
            try? fm.removeItem(atPath: temporary.appendingPathComponent(driverHostFile).path)
            try fm.moveItem(at: temporary, to: finalURL)
        } catch {
            throw Failure(message: "cannot write the run directory \(final): \(ErrorText.describe(error)) (partial files in \(temporary.path))", kind: .cannotWrite)
        }
        let verdict: RunVerdict
        if let signal = outcome.interruptedBy {
            verdict = .interrupted(signal: signal)
        } else if outcome.abortedBy != nil {
            verdict = .aborted
        } else if outcome.isPartial {
            verdict = .partial
        } else if thresholds.contains(where: { !$0.passed }) {
            verdict = .thresholdFailed
        } else {
            verdict = .complete
        }
        return Result(outcome: outcome, runDirectory: final, thresholds: thresholds, verdict: verdict, summary: summary)
    }

    package static func defaultDirectory(for scenario: Scenario) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return "runs/\(scenario.name)-\(formatter.string(from: Date()))"
    }

    static func summaryText(outcome: DriverOutcome, thresholds: [ThresholdResult], directory: String) -> String {
        let record = outcome.record
        let seconds = Double(outcome.endedWallClockNanos - outcome.startedWallClockNanos) / 1e9
        var text = "\(record.metadata.scenarioName) (hash \(record.metadata.scenarioHash), seed \(record.metadata.seed)), "
        text += "\(outcome.workers.count) worker(s), \(String(format: "%.1f", seconds)) s\(record.partial ? " — PARTIAL" : "")\n\n"
        // What to ship first (the report's decision), then every group.
        if let decision = Decision(record: record) { text += decision.text + "\nevery group:\n" }
        text += RunSummary.table(record)
        if let agreement = RunSummary.agreement(record) { text += "\n" + agreement }
        if let server = record.group(named: "server", labels: ["runner": "http-embedded"])?.metrics {
            let serverCPU = Double(server.counter(MetricName.serverCPUNs)), workersCPU = Double(server.counter(MetricName.workersCPUNs))
            let share = serverCPU + workersCPU > 0 ? serverCPU / (serverCPU + workersCPU) * 100 : 0
            text += String(format: "\nembedded server: %lld requests (%lld ok, %lld cancelled, %lld refused), CPU %.2f s = %.0f%% of server + workers\n",
                           server.counter(MetricName.serverRequests), server.counter(MetricName.serverOK),
                           server.counter(MetricName.serverCancelled), server.counter(MetricName.serverOverloadRejections), serverCPU / 1e9, share)
        }
        let failures = record.groups.compactMap { group -> String? in
            guard let breakdown = group.metrics.errorBreakdownText else { return nil }
            let share = MetricExpression.failedShare(in: group.metrics).map { String(format: " (%.1f%% of requests)", $0 * 100) } ?? ""
            return "  \(group.key): \(breakdown)\(share)\n"
        }
        if !failures.isEmpty {
            text += "\nfailed requests:\n" + failures.joined()
        }
        if !thresholds.isEmpty {
            text += "\nthresholds:\n" + thresholds.map { "  \($0.passed ? "ok  " : "FAIL") \($0.message)\n" }.joined()
        }
        if !record.problems.isEmpty {
            text += "\nproblems:\n" + record.problems.map { "  - \($0)\n" }.joined()
        }
        return text
    }
}
