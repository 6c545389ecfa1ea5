import Diagnostics
import Foundation
import Reporting

/// `typestorm compare`: the CI verdict between a baseline and a candidate.
enum CompareCommand {
    static let command = Command(
        name: "compare",
        abstract: "Compare a candidate run against a baseline; exit 0 unchanged, 2 regression, 4 improvement only.",
        discussion: """
        BASELINE and CANDIDATE are each a run-record file, a run directory, or a directory of
        several runs (repeated runs of the same scenario). Every metric and percentile of every
        strategy is compared: a change counts when it exceeds both its absolute and its relative
        tolerance and, with two or more runs on each side, when Welch's t-test gives p < alpha, so
        run-to-run noise is not called a regression. Defaults and the tolerances file format are in
        docs/reports.md.
        Exit codes: 0 nothing moved, 2 at least one regression, 4 improvements only; 65/66 for
        unreadable inputs.
        """,
        options: [
            .value("tolerances", "FILE", help: "JSON file of tolerances (see docs/reports.md)."),
            .value("thresholds", "FILE", help: "The same as --tolerances (its older name)."),
            .flag("markdown", help: "Print markdown for a pull-request comment."),
            .value("junit", "FILE", help: "Also write JUnit XML: one test case per group and metric, failed on a regression."),
            .flag("all", help: "List every metric in the table, not only those that moved."),
            .json,
        ],
        positionals: [
            Positional("baseline", help: "Baseline record, run directory, or directory of runs."),
            Positional("candidate", help: "Candidate record, run directory, or directory of runs."),
        ],
        run: run
    )

    static let run: Command.Run = { invocation in
        let arguments = invocation.arguments
        if arguments.flag("json") && arguments.flag("markdown") { throw UsageError.conflictingOptions("json", "markdown") }
        let baselinePath = try arguments.requiredPositional(0, name: "baseline")
        let candidatePath = try arguments.requiredPositional(1, name: "candidate")
        let tolerances = try CompareCommand.tolerances(arguments.value("tolerances") ?? arguments.value("thresholds"))
        let baseline = try ReportingCLI.loadMany(baselinePath)
        let candidate = try ReportingCLI.loadMany(candidatePath)
        let hashes = Set((baseline + candidate).map(\.record.metadata.scenarioHash))
        if hashes.count > 1 {
            invocation.console.err("note: the runs come from \(hashes.count) different scenarios (hashes \(hashes.sorted().joined(separator: ", "))); compare only what you meant to change.\n")
        }
        for loaded in baseline + candidate where loaded.record.partial {
            invocation.console.err("note: \(loaded.path) is a partial run.\n")
        }
        let comparison = Comparison(baseline: baseline.map(\.record), candidate: candidate.map(\.record), thresholds: tolerances)
        guard comparison.hasCommonMetrics else {
            throw ToolError(
                "nothing to compare: no strategy group appears in both \(baselinePath) and \(candidatePath) (baseline: \(comparison.groupsOnlyInBaseline.joined(separator: ", ")); candidate: \(comparison.groupsOnlyInCandidate.joined(separator: ", ")))",
                exitCode: ExitCode.dataError)
        }
        return try ReportingCLI.print(comparison, invocation)
    }

    /// The tolerances file, or the built-in tolerances (shared with `history`).
    static func tolerances(_ file: String?) throws -> Tolerances {
        guard let file else { return Tolerances() }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ToolError("\(file): cannot be read (tolerances file)", exitCode: ExitCode.noInput)
        }
        do {
            return try Tolerances.parse(data, file: file)
        } catch {
            throw ToolError(String(describing: error), exitCode: ExitCode.dataError)
        }
    }
}
