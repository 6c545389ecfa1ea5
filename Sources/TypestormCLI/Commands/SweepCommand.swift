import Diagnostics
import FieldRuntime
import Foundation
import Measurement
import Orchestration
import Reporting
import SearchField
import Simulation
import Typists

/// `typestorm sweep`: a debounce × min-length grid, its trade-off curves and a recommendation.
enum SweepCommand {
    static let command = Command(
        name: "sweep",
        abstract: "Sweep debounce interval and minimum query length; plot the trade-offs and recommend an interval.",
        discussion: """
        Runs one strategy of SCENARIO once per grid point in virtual time, for each typist
        population of the scenario's mix (device × language, typed by the Typists models against
        the scenario's modelled backend), then plots requests per search and wasted work against
        p50/p95 time to fresh results, and stale overwrites against the interval, per population. The recommendation is the knee of the Pareto front of p95 time to fresh
        results against requests per search, or, with --budget, the smallest interval whose
        requests per search stay within the budget. With --record, analyses a stored sweep record
        (groups labelled debounceMs, minLength, population) instead of running the grid.
        Ranges: START:END[:STEP] (end included), a single value, or a comma-separated list.
        """,
        options: [
            .value("debounce", "MS-RANGE", help: "Debounce intervals in milliseconds.", default: "0:600:25"),
            .value("min-length", "RANGE", help: "Minimum query lengths (default: the strategy's own)."),
            .value("budget", "REQUESTS", help: "Requests per search allowed; recommends the smallest interval within it."),
            .value("strategy", "NAME", help: "The scenario strategy to sweep (default: debounce-switch if present, else the first)."),
            .value("typists", "N", help: "Typists per population (default: the scenario's share of its typists, at least 50)."),
            .value("workers", "N", help: "Worker processes the grid is spread over (default: the scenario's processes); 1 runs it in this process on every core."),
            .value("queries", "DIR", help: "Query lists for the typists (default: the scenario's population.queryLists, else the shipped Datasets/queries)."),
            .value("record", "FILE", help: "Analyse a stored sweep record instead of running the grid."),
            .value("out", "DIR", help: "Write sweep.html, sweep.json and one SVG per plot into DIR."),
            .json,
        ],
        positionals: [Positional("scenario", help: "Scenario file to sweep.", optional: true)],
        run: run
    )

    /// The grid the command line asks for.
    struct Grid: Equatable {
        var debounceMs: [Int]
        /// `nil` when not given: the strategy's own minimum length (or, with `--record`, any).
        var minLengths: [Int]?

        func points(defaultMinLength: Int) -> [(debounceMs: Int, minLength: Int)] {
            (minLengths ?? [defaultMinLength]).flatMap { length in debounceMs.map { ($0, length) } }
        }

        static func == (a: Grid, b: Grid) -> Bool { a.debounceMs == b.debounceMs && a.minLengths == b.minLengths }
    }

    static func grid(_ arguments: ParsedArguments) throws -> Grid {
        func range(_ name: String, _ fallback: String) throws -> [Int] {
            let text = arguments.value(name) ?? fallback
            do {
                return try GridRange.parse(text).values
            } catch {
                throw UsageError.invalid("invalid value '\(text)' for option '--\(name)': \(error.reason)")
            }
        }
        let debounce = try range("debounce", "0:600:25")
        let lengths = arguments.value("min-length") == nil ? nil : try range("min-length", "1")
        return Grid(debounceMs: debounce, minLengths: lengths)
    }

    static let run: Command.Run = { invocation in
        let arguments = invocation.arguments
        let grid = try grid(arguments)
        let rule: SweepAnalysis.Rule = try arguments.double("budget", in: 0.01...1_000_000).map { .budget(requestsPerSearch: $0) } ?? .knee

        let record: RunRecord
        if let file = arguments.value("record") {
            record = try ReportingCLI.load(file).record
        } else if let scenario = arguments.positional(0) {
            record = try await runGrid(scenarioPath: scenario, grid: grid, arguments: arguments, console: invocation.console)
        } else {
            throw UsageError.invalid("give a scenario to sweep, or --record FILE to analyse a stored sweep")
        }

        var points = record.sweepPoints
        if arguments.value("record") != nil {
            // Restrict a stored sweep to the ranges asked for.
            if arguments.value("debounce") != nil {
                let wanted = Set(grid.debounceMs)
                points = points.filter { wanted.contains($0.debounceMs) }
            }
            if let lengths = grid.minLengths {
                let wanted = Set(lengths)
                points = points.filter { wanted.contains($0.minLength) }
            }
        }
        guard !points.isEmpty else {
            throw ToolError("the sweep record has no grid points (groups labelled \(ReportMetrics.labelDebounce)) in the requested grid", exitCode: ExitCode.dataError)
        }
        let report = SweepReport(analysis: SweepAnalysis(points: points, rule: rule), scenarioName: record.metadata.scenarioName)
        if let directory = arguments.value("out") {
            try ReportingCLI.makeDirectory(directory)
            try ReportingCLI.write(report.html(), to: (directory as NSString).appendingPathComponent("sweep.html"))
            try ReportingCLI.write(try report.json(), to: (directory as NSString).appendingPathComponent("sweep.json"))
            for population in report.analysis.populations {
                for chart in report.charts(population: population) {
                    try ReportingCLI.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + chart.svg + "\n",
                                           to: (directory as NSString).appendingPathComponent(chart.name + ".svg"))
                }
            }
            if arguments.value("record") == nil {
                try ReportingCLI.write(String(decoding: try record.encoded(), as: UTF8.self), to: (directory as NSString).appendingPathComponent("sweep-record.json"))
            }
            invocation.console.err("wrote \(directory)/sweep.html\n")
        }
        invocation.console.out(arguments.flag("json") ? try report.json() : report.terminalTable())
        return report.analysis.recommendations.allSatisfy(\.satisfied) ? ExitCode.success : ExitCode.failure
    }

    /// Runs every grid point of the scenario in virtual time and returns one record whose groups
    /// are labelled with their grid coordinates (`ReportMetrics.labelDebounce`, `labelMinLength`,
    /// `labelPopulation`), the format `--record` reads back.
    ///
    /// Grid points run concurrently (one task per point, at most one per core); each is
    /// deterministic, and results are collected by index, so the record does not depend on the
    /// scheduling.
    static func runGrid(scenarioPath: String, grid: Grid, arguments: ParsedArguments, console: Console) async throws -> RunRecord {
        guard let data = FileManager.default.contents(atPath: scenarioPath) else {
            throw ToolError("\(scenarioPath): cannot be read", exitCode: ExitCode.noInput)
        }
        let scenario: Scenario
        do {
            scenario = try ScenarioReader.read(bytes: Array(data), file: scenarioPath)
        } catch {
            throw ToolError(error.description, exitCode: ExitCode.dataError)
        }
        let spec = try chooseStrategy(scenario, name: arguments.value("strategy"))
        guard let preset = Preset(rawValue: spec.preset) else {
            throw ToolError("\(scenarioPath): strategy '\(spec.name)' has preset '\(spec.preset)', which this build cannot simulate", exitCode: ExitCode.dataError)
        }
        let backend = virtualBackend(scenario)
        let typistsOverride = try arguments.int("typists", default: nil, in: 1...1_000_000)

        // One population per mix entry, each typed by the Typists models for its device and
        // language, as the driver types it (`ScenarioTypists`: sessions cut at the scenario's
        // maxLength), so the in-process grid and the grid over workers give the same numbers.
        let fm = FileManager.default
        let queries: String
        if let given = arguments.value("queries") {
            queries = URL(fileURLWithPath: given, relativeTo: URL(fileURLWithPath: fm.currentDirectoryPath)).standardizedFileURL.path
        } else {
            let scenarioDirectory = URL(fileURLWithPath: scenarioPath).deletingLastPathComponent().path
            do {
                queries = try ScenarioTypists.queriesDirectory(scenario.population.queryLists, baseDirectory: scenarioDirectory)
            } catch {
                throw ToolError("\(scenarioPath): \(error); or give --queries DIR", exitCode: ExitCode.noInput)
            }
        }
        var populations: [(label: String, scenario: Scenario, sessions: [DeadlineSession<GeneratedSession>])] = []
        for entry in scenario.population.mix {
            let label = "\(entry.device.rawValue)-\(entry.language.rawValue)"
            let count = typistsOverride ?? max(50, Int((entry.share * Double(scenario.population.typists)).rounded()))
            var derived = scenario
            derived.name = "\(scenario.name)-sweep-\(label)"
            derived.population.mix = [Population.MixEntry(device: entry.device, language: entry.language, share: 1)]
            derived.population.typists = count
            derived.population.queryLists = queries
            derived.runners = [.virtual]
            derived.thresholds = []
            let typists: ScenarioTypists
            do {
                typists = try ScenarioTypists(scenario: derived, baseDirectory: fm.currentDirectoryPath)
            } catch {
                throw ToolError("\(error) (give --queries DIR)", exitCode: ExitCode.noInput)
            }
            populations.append((label, derived, (0..<count).map(typists.session(forTypist:))))
        }

        let ownMinimum = spec.minimumLength ?? preset.defaultConfiguration.normalizer.minimumLength
        let gridPoints = grid.points(defaultMinLength: ownMinimum)
        let workers = try arguments.int("workers", default: scenario.processes, in: 1...256)
        if workers > 1 {
            return try await runGridOverWorkers(
                scenario: scenario, spec: spec, gridPoints: gridPoints,
                populations: populations.map { ($0.label, $0.scenario) }, workers: workers, console: console)
        }
        let jobs = populations.indices.flatMap { population in gridPoints.map { (population, $0.debounceMs, $0.minLength) } }
        console.err("sweeping \(spec.name) over \(gridPoints.count) grid points × \(populations.count) populations (\(jobs.count) virtual-time runs)…\n")
        let seed = scenario.seed
        let parallelism = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var results = [MetricSet?](repeating: nil, count: jobs.count)
        var finished = 0
        try await withThrowingTaskGroup(of: (Int, MetricSet).self) { group in
            var next = 0
            func launch() {
                let index = next, job = jobs[index]
                let sessions = populations[job.0].sessions
                var configuration = configuration(for: spec, preset: preset)
                configuration.debounce = Int64(job.1) * 1_000_000
                configuration.normalizer.minimumLength = job.2
                let strategy = preset.make(configuration)
                group.addTask { (index, simulate(strategy, sessions: sessions, backend: backend, seed: seed)) }
                next += 1
            }
            while next < min(parallelism, jobs.count) { launch() }
            while let (index, metrics) = try await group.next() {
                results[index] = metrics
                finished += 1
                if console.isInteractive || finished % max(1, jobs.count / 10) == 0 || finished == jobs.count {
                    console.err("  \(finished)/\(jobs.count) grid runs done\n")
                }
                if next < jobs.count { launch() }
            }
        }

        var record = RunRecord(metadata: RunMetadata(
            toolVersion: VersionCommand.version, scenarioName: scenario.name, scenarioHash: scenario.hash, seed: seed,
            runner: "virtual", segments: [Segment(index: 0, count: 1)]))
        for (index, job) in jobs.enumerated() {
            let labels = [
                "runner": "virtual", ReportMetrics.labelPopulation: populations[job.0].label,
                ReportMetrics.labelDebounce: String(job.1), ReportMetrics.labelMinLength: String(job.2),
            ]
            try record.add(MetricGroup(name: spec.name, labels: labels, metrics: results[index]!))
        }
        return record
    }

    /// The grid spread over `typestorm worker` processes by the driver: per population, one
    /// virtual-time run whose strategies are the grid points, each worker taking a segment of
    /// the typists (so `typestorm worker` and `merge` can spread it over machines too). Typist i
    /// of a population types the same keys as in the in-process grid.
    static func runGridOverWorkers(
        scenario: Scenario, spec: ScenarioStrategy, gridPoints: [(debounceMs: Int, minLength: Int)],
        populations: [(label: String, scenario: Scenario)], workers: Int, console: Console
    ) async throws -> RunRecord {
        let fm = FileManager.default
        let directory = fm.temporaryDirectory.appendingPathComponent("typestorm-sweep-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: directory) }
        let pointName = { (point: (debounceMs: Int, minLength: Int)) in "d\(point.debounceMs)-m\(point.minLength)" }
        console.err("sweeping \(spec.name) over \(gridPoints.count) grid points × \(populations.count) populations on \(workers) worker processes…\n")

        var record = RunRecord(metadata: RunMetadata(
            toolVersion: VersionCommand.version, scenarioName: scenario.name, scenarioHash: scenario.hash, seed: scenario.seed,
            runner: "virtual", segments: [Segment(index: 0, count: 1)]))
        for (index, population) in populations.enumerated() {
            var derived = population.scenario
            derived.strategies = gridPoints.map { point in
                var strategy = spec
                strategy.name = pointName(point)
                strategy.debounceNanos = Int64(point.debounceMs) * 1_000_000
                strategy.minimumLength = point.minLength
                return strategy
            }
            let file = directory.appendingPathComponent("\(derived.name).json").path
            try Data(derived.canonicalJSON.prettyCanonical.utf8).write(to: URL(fileURLWithPath: file))
            let outcome = await Driver(DriverConfiguration(
                scenario: derived, scenarioFile: file, baseDirectory: directory.path, workers: min(workers, derived.population.typists),
                executable: ExecutablePath.current(), toolVersion: VersionCommand.version, handleSignals: false)).run()
            if outcome.isPartial {
                throw ToolError("sweep of \(population.label) did not complete: \(outcome.record.problems.joined(separator: "; "))", exitCode: ExitCode.failure)
            }
            for point in gridPoints {
                guard let group = outcome.record.groups.first(where: { $0.name == pointName(point) }) else {
                    throw ToolError("sweep of \(population.label): no result for grid point \(pointName(point))", exitCode: ExitCode.failure)
                }
                var metrics = group.metrics
                metrics.histograms = metrics.histograms.filter { keptHistograms.contains($0.key) }
                let labels = [
                    "runner": "virtual", ReportMetrics.labelPopulation: population.label,
                    ReportMetrics.labelDebounce: String(point.debounceMs), ReportMetrics.labelMinLength: String(point.minLength),
                ]
                try record.add(MetricGroup(name: spec.name, labels: labels, metrics: metrics))
            }
            console.err("  \(index + 1)/\(populations.count) populations done\n")
        }
        return record
    }

    /// Histograms a sweep keeps: the trade-off curves need only these, and a dense latency
    /// histogram is a few hundred kilobytes in memory, times hundreds of grid runs.
    static let keptHistograms: Set<String> = [ReportMetrics.ttfr, ReportMetrics.fanOutPerSettle]

    /// One virtual-time run. The strategy comes from `Preset.make` as an `any
    /// SearchFieldStrategy` and is opened here, so the runner is not specialised for its type.
    /// Returns every counter and maximum, and the histograms in `keptHistograms`.
    static func simulate<S: SearchFieldStrategy, Session: TypistSession>(_ strategy: S, sessions: [Session], backend: BackendModel, seed: UInt64) -> MetricSet {
        var runner = VirtualRunner(strategy: strategy, sessions: sessions, backend: backend, seed: seed)
        var metrics = runner.run().metrics()
        metrics.histograms = metrics.histograms.filter { keptHistograms.contains($0.key) }
        return metrics
    }

    /// `--strategy NAME`, else the first debounce-switch, else the first strategy.
    static func chooseStrategy(_ scenario: Scenario, name: String?) throws -> ScenarioStrategy {
        if let name {
            guard let spec = scenario.strategies.first(where: { $0.name == name }) else {
                throw UsageError.invalidValue(option: "strategy", value: name, expected: "one of the scenario's strategies: \(scenario.strategies.map(\.name).joined(separator: ", "))")
            }
            return spec
        }
        return scenario.strategies.first { $0.preset == Preset.debounceSwitch.rawValue } ?? scenario.strategies[0]
    }

    /// The strategy's configuration with the scenario's knobs, as the driver maps them (the grid
    /// sets debounce and minimum length on top).
    static func configuration(for spec: ScenarioStrategy, preset: Preset) -> SearchFieldConfiguration {
        VirtualWorkload.simulationStrategy(spec).configuration
    }

    /// The scenario's backend as the simulator's model, mapped as the driver's virtual runner
    /// maps it.
    static func virtualBackend(_ scenario: Scenario) -> BackendModel {
        VirtualWorkload.simulationScenario(scenario).backend
    }
}
