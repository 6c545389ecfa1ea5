import Diagnostics
import Foundation
import TypestormMetrics
import Orchestration
import Reporting

/// `typestorm sweep`: debounce advice. Parses the command line, runs the grid (Orchestration's
/// `SweepGrid`), analyses it (Reporting's `SweepAnalysis`) and prints the recommendations.
enum SweepCommand {
    static let command = Command(
        name: "sweep",
        abstract: "Recommend a search-field strategy, debounce interval and minimum query length, with confidence intervals.",
        discussion: """
        Runs every setting (strategy × minimum length × interval) in virtual time for each typist
        population of SCENARIO's mix (device × language) against its modelled backend (or
        --backend FILE), several times with independent seeds (--replicates, from --seed). The
        recommendation minimises a stated objective: p95 time to fresh results + --request-cost per
        request (default 40ms), or the p95 within --budget requests per search, or requests per
        search within --ttfr-p95; settings with more than --max-stale wrong final screens or
        --max-never-fresh searches without fresh results (default 1% each) are out. Settings not
        significantly worse than the best (95% interval of the paired difference) form the good
        range; the recommendation is its point with the lowest upper 95% bound of the objective
        (ties: fewer requests per search, then the longer debounce and minimum length). Time to
        fresh results counts the searches that needed an answer (docs/metrics.md). One answer for all typists (the mix, weighted), one per device
        class, and per population where its good range does not overlap the overall one.
        With --record, analyses a stored sweep record instead of running the grid.
        Ranges: START:END[:STEP] (end included), a single value, or a comma-separated list.
        """,
        options: [
            .value("debounce", "MS-RANGE", help: "Debounce intervals in milliseconds.", default: "0:600:25"),
            .value("min-length", "RANGE", help: "Minimum query lengths (default: each strategy's own)."),
            .value("strategies", "A,B", help: "Strategies to compare: names in the scenario or presets.", default: "split-state"),
            .value("request-cost", "DURATION", help: "What one request per search is worth in p95 waiting.", default: "40ms"),
            .value("budget", "REQUESTS", help: "Instead: the fastest p95 within this many requests per search."),
            .value("ttfr-p95", "DURATION", help: "Instead: the fewest requests with p95 time to fresh results within this."),
            .value("max-stale", "SHARE", help: "Largest share of wrong final screens, e.g. 1% or 0.01.", default: "1%"),
            .value("max-never-fresh", "SHARE", help: "Largest share of searches never fresh.", default: "1%"),
            .value("replicates", "N", help: "Independent seeds per setting.", default: "5"),
            .value("seed", "S", help: "Base seed of the replicates (default: the scenario's seed)."),
            .value("backend", "FILE", help: "A JSON backend object (the scenario's backend keys) to use instead of the scenario's (e.g. from typestorm calibrate)."),
            .value("typists", "N", help: "Typists per population and replicate (default: the scenario's share of its typists, at least 50)."),
            .value("workers", "N", help: "Worker processes the grid is spread over; 1 runs it in this process on every core (default: 1 for presets, the scenario's processes when a field of yours is swept)."),
            .value("queries", "DIR", help: "Query lists for the typists (default: the scenario's population.queryLists, else the shipped Datasets/queries)."),
            .value("record", "FILE", help: "Analyse a stored sweep record instead of running the grid."),
            .value("out", "DIR", help: "Write sweep.html, sweep.json, sweep-record.json and one SVG per plot into DIR."),
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

    /// The objective the command line states.
    static func objective(_ arguments: ParsedArguments) throws -> SweepObjective {
        let given = ["request-cost", "budget", "ttfr-p95"].filter { arguments.value($0) != nil }
        guard given.count <= 1 else {
            throw UsageError.invalid("give one of --request-cost, --budget and --ttfr-p95, not \(given.map { "--" + $0 }.joined(separator: " and "))")
        }
        let goal: SweepObjective.Goal
        if let budget = try arguments.double("budget", in: 0.01...1_000_000) {
            goal = .budget(requestsPerSearch: budget)
        } else if let target = try arguments.durationNanos("ttfr-p95") {
            guard target > 0 else { throw UsageError.invalidValue(option: "ttfr-p95", value: arguments.value("ttfr-p95")!, expected: "a positive duration") }
            goal = .ttfrP95(nanos: Double(target))
        } else {
            goal = .requestCost(nanos: Double(try arguments.durationNanos("request-cost") ?? Int64(SweepObjective.defaultRequestCostNanos)))
        }
        return SweepObjective(goal: goal, maxStaleShare: try share(arguments, "max-stale"), maxNeverFreshShare: try share(arguments, "max-never-fresh"))
    }

    /// `1%`, `0.5 %` or `0.01`: a share in 0...1.
    static func share(_ arguments: ParsedArguments, _ name: String) throws -> Double {
        guard let text = arguments.value(name) else { return SweepObjective.defaultMaxShare }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let percent = trimmed.hasSuffix("%")
        guard let number = Double(percent ? String(trimmed.dropLast()).trimmingCharacters(in: .whitespaces) : trimmed), number.isFinite else {
            throw UsageError.invalidValue(option: name, value: text, expected: "a share such as 1% or 0.01")
        }
        let value = percent ? number / 100 : number
        guard (0...1).contains(value) else { throw UsageError.invalidValue(option: name, value: text, expected: "a share between 0% and 100%") }
        return value
    }

    static let run: Command.Run = { invocation in
        let arguments = invocation.arguments
        let grid = try grid(arguments)
        let objective = try objective(arguments)
        let replicates = try arguments.int("replicates", default: 5, in: 1...1_000)

        let record: RunRecord
        if let file = arguments.value("record") {
            record = try ReportingCLI.load(file).record
        } else if let scenarioPath = arguments.positional(0) {
            let plan = try plan(scenarioPath: scenarioPath, grid: grid, replicates: replicates, arguments: arguments)
            // Presets run on every core in this process, with none of the worker processes'
            // start-up and record traffic; a field of yours takes turns on one thread here, so its
            // grid goes to the scenario's worker processes.
            let inProcess = plan.settings.allSatisfy(\.strategy.isPreset)
            let workers = try arguments.int("workers", default: inProcess ? 1 : plan.scenario.processes, in: 1...256)
            let console = invocation.console
            do {
                record = try await SweepGrid.run(plan, workers: workers, executable: ExecutablePath.current(), toolVersion: VersionCommand.version) {
                    console.err($0)
                }
            } catch let error as SweepFailure {
                throw ToolError(error.message, exitCode: exitCode(error.kind))
            }
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
            if let names = arguments.value("strategies") {
                let wanted = Set(names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                points = points.filter { wanted.contains($0.strategy) }
            }
        }
        guard !points.isEmpty else {
            throw ToolError("the sweep record has no grid points (groups labelled \(SweepLabel.debounce)) in the requested grid", exitCode: ExitCode.dataError)
        }
        let report = SweepReport(analysis: SweepAnalysis(points: points, objective: objective), scenarioName: record.metadata.scenarioName,
                                 baseSeed: record.metadata.seed)
        if let directory = arguments.value("out") {
            try ReportingCLI.makeDirectory(directory)
            try ReportingCLI.write(report.html(), to: (directory as NSString).appendingPathComponent("sweep.html"))
            try ReportingCLI.write(try report.json(), to: (directory as NSString).appendingPathComponent("sweep.json"))
            for scope in report.analysis.scopes {
                for chart in report.charts(scope: scope.name) {
                    try ReportingCLI.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + chart.svg + "\n",
                                           to: (directory as NSString).appendingPathComponent(chart.name + ".svg"))
                }
            }
            if arguments.value("record") == nil {
                try ReportingCLI.write(String(decoding: try record.encoded(), as: UTF8.self), to: (directory as NSString).appendingPathComponent("sweep-record.json"))
            }
            invocation.console.err("wrote \(directory)/sweep.html\n")
        }
        invocation.console.out(arguments.flag("json") ? try report.json() : report.terminalTable() + "\n")
        // The answers an app ships (all typists, each device class) must exist; a population
        // without one is reported in its sentence.
        let shipped = report.analysis.recommendations.filter { $0.scope.kind != .population }
        return shipped.allSatisfy(\.satisfied) ? ExitCode.success : ExitCode.failure
    }

    /// The sweep the command line asks for: the scenario (with `--backend` in place of its
    /// backend), the strategies, the grid, replicates and seed.
    static func plan(scenarioPath: String, grid: Grid, replicates: Int, arguments: ParsedArguments) throws -> SweepPlan {
        guard let data = FileManager.default.contents(atPath: scenarioPath) else {
            throw ToolError("\(scenarioPath): cannot be read", exitCode: ExitCode.noInput)
        }
        var scenario: Scenario
        do {
            scenario = try ScenarioReader.read(bytes: Array(data), file: scenarioPath)
        } catch {
            throw ToolError(error.description, exitCode: ExitCode.dataError)
        }
        if let file = arguments.value("backend") {
            guard let bytes = FileManager.default.contents(atPath: file) else {
                throw ToolError("\(file) (--backend): cannot be read", exitCode: ExitCode.noInput)
            }
            do {
                scenario.backend = try ScenarioReader.readBackend(bytes: Array(bytes), file: file)
            } catch {
                throw ToolError("\(error.description) (--backend)", exitCode: ExitCode.dataError)
            }
        }
        let names = arguments.value("strategies").map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let strategies: [ScenarioStrategy]
        do {
            strategies = try SweepPlan.strategies(named: names, in: scenario)
        } catch {
            throw UsageError.invalid(error.message)
        }
        let seed = try arguments.uint64("seed", default: scenario.seed)
        let queries: String
        if let given = arguments.value("queries") {
            queries = given
        } else {
            do {
                queries = try ScenarioTypists.queriesDirectory(scenario.population.queryLists,
                                                               baseDirectory: URL(fileURLWithPath: scenarioPath).deletingLastPathComponent().path)
            } catch {
                throw ToolError("\(scenarioPath): \(error); or give --queries DIR", exitCode: ExitCode.noInput)
            }
        }
        return SweepPlan(
            scenario: scenario, strategies: strategies, debounceMs: grid.debounceMs, minLengths: grid.minLengths, replicates: replicates,
            baseSeed: seed, typistsPerPopulation: try arguments.int("typists", default: nil, in: 1...1_000_000),
            queriesDirectory: queries, baseDirectory: FileManager.default.currentDirectoryPath)
    }

    static func exitCode(_ kind: SweepFailure.Kind) -> Int32 {
        switch kind {
        case .usage: return ExitCode.usage
        case .badData: return ExitCode.dataError
        case .unreadable: return ExitCode.noInput
        case .failed: return ExitCode.failure
        }
    }
}
