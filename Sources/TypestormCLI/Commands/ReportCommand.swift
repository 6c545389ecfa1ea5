import Diagnostics
import Foundation
import Orchestration
import TypestormMetrics
import TypestormSystem
import Reporting

/// `typestorm report`: (re)generates `report.html` from a stored run record.
enum ReportCommand {
    static let command = Command(
        name: "report",
        abstract: "Write the HTML report of a run from its stored run record.",
        discussion: """
        RUN is a run directory (holding record.json) or a run-record file. The report is one
        self-contained HTML file: inline SVG charts, no scripts, no network, readable printed and in
        dark mode. By default it is written as report.html next to the record. What to ship (the
        decision the report opens with), the strategies side by side and the verdicts are printed too. The same record always gives the same bytes.
        """,
        options: [
            .value("out", "FILE", help: "Where to write the report (default: report.html next to the record)."),
            .value("svg-dir", "DIR", help: "Also write every chart as a standalone .svg file into DIR."),
            .json,
        ],
        positionals: [Positional("run", help: "A run directory or a run-record JSON file.")],
        run: run
    )

    static let run: Command.Run = { invocation in
        let arguments = invocation.arguments
        let input = try arguments.requiredPositional(0, name: "run")
        let loaded = try ReportingCLI.load(input)
        if loaded.record.sweepPoints.count > 8 && loaded.record.sweepPoints.count == loaded.record.groups.count {
            invocation.console.err("note: this is a sweep record (\(loaded.record.groups.count) grid points); 'typestorm sweep --record \(loaded.path)' shows its trade-off curves.\n")
        }
        let scenario = loaded.runDirectory.flatMap(RecordStore.scenarioText)
        // The run's scenario (when the directory keeps it) names the populations' networks and
        // lets the report type the first flawed searches again for their timelines.
        let parsed = scenario.flatMap { try? ScenarioReader.read(json: $0) }
        let report = HTMLReport.forRun(loaded.record, scenario: parsed, scenarioText: scenario,
                                       baseDirectory: loaded.runDirectory ?? FileManager.default.currentDirectoryPath)
        let out = arguments.value("out")
            ?? ((loaded.runDirectory ?? (loaded.path as NSString).deletingLastPathComponent) as NSString).appendingPathComponent(RecordStore.reportFileName)
        try ReportingCLI.write(report.render(), to: out)
        let charts = report.charts()
        var svgFiles: [String] = []
        if let directory = arguments.value("svg-dir") {
            try ReportingCLI.makeDirectory(directory)
            for chart in charts {
                let file = (directory as NSString).appendingPathComponent(chart.name + ".svg")
                try ReportingCLI.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + chart.svg + "\n", to: file)
                svgFiles.append(file)
            }
        }
        let summaries = loaded.record.summaries
        let titles = Reporting.Verdict.titles(summaries)
        if arguments.flag("json") {
            struct Output: Encodable {
                var report: String
                var record: String
                var charts: Int
                var svgFiles: [String]
                var partial: Bool
                var verdicts: [Verdict]
                /// `null` when the record has no strategy groups (a stable key).
                @ExplicitNull var decision: Decision.JSON?
                struct Verdict: Encodable {
                    var group: String
                    var sentences: [String]
                }
            }
            let output = Output(report: out, record: loaded.path, charts: charts.count, svgFiles: svgFiles, partial: loaded.record.partial,
                                verdicts: zip(summaries, titles).map { .init(group: $0.key, sentences: Reporting.Verdict.sentences(for: $0, title: $1)) },
                                decision: Decision(record: loaded.record)?.json)
            invocation.console.out(try JSONDocument.text(output))
        } else {
            if let decision = Decision(record: loaded.record) { invocation.console.out(decision.text + "\n") }
            invocation.console.out(SummaryTable.render(loaded.record) + "\n")
            for (summary, title) in zip(summaries, titles) {
                invocation.console.out(Reporting.Verdict.sentences(for: summary, title: title).joined(separator: " ") + "\n")
            }
            invocation.console.err("wrote \(out) (\(charts.count) charts\(svgFiles.isEmpty ? "" : ", \(svgFiles.count) SVG files"))\n")
        }
        return loaded.record.partial ? ExitCode.failure : ExitCode.success
    }
}

/// File helpers shared by the report, compare and sweep commands: errors become `ToolError`s
/// with the path and the exit code that fits.
enum ReportingCLI {
    static func load(_ path: String) throws -> RecordStore.Loaded {
        do {
            return try RecordStore.load(path)
        } catch {
            throw toolError(error)
        }
    }

    static func loadMany(_ path: String) throws -> [RecordStore.Loaded] {
        do {
            return try RecordStore.loadMany(path)
        } catch {
            throw toolError(error)
        }
    }

    static func toolError(_ error: RecordStore.LoadError) -> ToolError {
        switch error {
        case .notFound: return ToolError(error.description, exitCode: ExitCode.noInput)
        case .invalid: return ToolError(error.description, exitCode: ExitCode.dataError)
        }
    }

    static func write(_ text: String, to path: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ToolError("cannot write \(path): \(ErrorText.describe(error))", exitCode: ExitCode.cannotCreate)
        }
    }

    /// Prints a verdict the way `compare` and `history` both do: JUnit XML to the `--junit` file,
    /// then on stdout JSON with `--json`, `csv` with `--csv` (where the command has it), markdown
    /// with `--markdown`, else the terminal table (every row with `--all`). Returns the verdict's
    /// exit code.
    static func print(_ verdict: some Verdict, _ invocation: Invocation, csv: (() -> String)? = nil) throws -> Int32 {
        let arguments = invocation.arguments
        if let junit = arguments.value("junit") {
            try write(verdict.junit().render(), to: junit)
        }
        if arguments.flag("json") {
            invocation.console.out(try verdict.json())
        } else if let csv, arguments.flag("csv") {
            invocation.console.out(csv())
        } else if arguments.flag("markdown") {
            invocation.console.out(verdict.markdown())
        } else {
            invocation.console.out(verdict.terminalTable(all: arguments.flag("all")))
        }
        return verdict.exitCode
    }

    static func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw ToolError("cannot create directory \(path): \(ErrorText.describe(error))", exitCode: ExitCode.cannotCreate)
        }
    }
}

/// A judgement of runs that `compare` and `history` print in the same formats
/// (``ReportingCLI/print(_:_:csv:)``).
protocol Verdict {
    func junit() -> JUnitXML
    func json() throws -> String
    func markdown() -> String
    func terminalTable(all: Bool) -> String
    var exitCode: Int32 { get }
}

extension Comparison: Verdict {}
