import Foundation
import Measurement
import Reporting

/// `typestorm sweep`: a debounce × min-length grid, its trade-off curves and a recommendation.
enum SweepCommand {
    static let command = Command(
        name: "sweep",
        abstract: "Sweep debounce interval and minimum query length; plot the trade-offs and recommend an interval.",
        discussion: """
        Runs SCENARIO once per grid point (virtual time), then plots requests per search and wasted
        work against p50/p95 time to fresh results, and stale overwrites against the interval, per
        typist population. The recommendation is the knee of the Pareto front of p95 time to fresh
        results against requests per search, or, with --budget, the smallest interval whose
        requests per search stay within the budget. With --record, analyses a stored sweep record
        (groups labelled debounceMs, minLength, population) instead of running the grid.
        Ranges: START:END[:STEP] (end included), a single value, or a comma-separated list.
        """,
        options: [
            .value("debounce", "MS-RANGE", help: "Debounce intervals in milliseconds.", default: "0:600:25"),
            .value("min-length", "RANGE", help: "Minimum query lengths.", default: "1"),
            .value("budget", "REQUESTS", help: "Requests per search allowed; recommends the smallest interval within it."),
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
        var minLengths: [Int]
        var points: [(debounceMs: Int, minLength: Int)] {
            minLengths.flatMap { length in debounceMs.map { ($0, length) } }
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
        let lengths = try range("min-length", "1")
        guard lengths.allSatisfy({ $0 >= 1 }) else {
            throw UsageError.invalidValue(option: "min-length", value: arguments.value("min-length") ?? "", expected: "lengths of at least 1")
        }
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
            record = try runGrid(scenario: scenario, grid: grid, console: invocation.console)
        } else {
            throw UsageError.invalid("give a scenario to sweep, or --record FILE to analyse a stored sweep")
        }

        var points = record.sweepPoints
        if arguments.value("record") != nil && (arguments.value("debounce") != nil || arguments.value("min-length") != nil) {
            // Restrict a stored sweep to the grid asked for.
            let wanted = Set(grid.points.map { "\($0.debounceMs)/\($0.minLength)" })
            points = points.filter { wanted.contains("\($0.debounceMs)/\($0.minLength)") }
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
            invocation.console.err("wrote \(directory)/sweep.html\n")
        }
        invocation.console.out(arguments.flag("json") ? try report.json() : report.terminalTable())
        return report.analysis.recommendations.allSatisfy(\.satisfied) ? ExitCode.success : ExitCode.failure
    }

    /// Runs every grid point of `scenario` in virtual time and returns one record whose groups
    /// are labelled with their grid coordinates (`ReportMetrics.labelDebounce`, `labelMinLength`,
    /// `labelPopulation`).
    ///
    /// The virtual-time runner and the scenario reader are not on main yet; until they are, this
    /// says so instead of pretending. The call to add is described in docs/reports.md.
    static func runGrid(scenario: String, grid: Grid, console: Console) throws -> RunRecord {
        throw ToolError(
            "running a sweep grid needs the virtual-time runner, which this build does not include yet; analyse a stored sweep with --record FILE",
            exitCode: ExitCode.software)
    }
}
