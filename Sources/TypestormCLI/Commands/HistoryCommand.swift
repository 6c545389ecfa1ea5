import Diagnostics
import Foundation
import RunHistory
import Reporting

/// `typestorm history`: the stored runs as series per metric, with change points.
enum HistoryCommand {
    static let command = Command(
        name: "history",
        abstract: "Show stored runs as series per metric with change points; exit 0, 2 if the newest run regressed, 4 if it only improved.",
        discussion: """
        Reads the results store that 'typestorm store add' and 'typestorm run --store' fill. Runs
        are ordered by their start time, per scenario. For every group and metric, change points
        are found by binary segmentation with a two-sample t-test on the runs at each side of a
        split (Bonferroni-corrected, alpha 0.05 by default); changes within the 'compare' tolerances are
        ignored. The table lists the series with change points (--all: every series); history.html
        has one chart per metric. The false-alarm rate of the method is in docs/history.md.
        Exit codes: 0 the newest run changed nothing; 2 it started a change for the worse; 4 it
        only improved things; 64 bad options; 65 no runs stored; 66 the store cannot be opened.
        """,
        options: [
            StoreCommand.storeOption,
            .value("scenario", "NAME", help: "Only this scenario (by name)."),
            .value("metric", "M", help: "Metrics to show, comma-separated or repeated ('all' for every one; default: a key set, see docs/history.md).", repeatable: true),
            .value("strategy", "S", help: "Only these strategies, comma-separated or repeated.", repeatable: true),
            .value("out", "FILE", help: "Where to write the HTML page (default history.html; with --json, --csv or --markdown only when given).", default: "history.html"),
            .flag("no-html", help: "Do not write the HTML page."),
            .value("alpha", "P", help: "Significance level of the change-point test.", default: "0.05"),
            .value("window", "N", help: "Runs on each side of a split that the test sees.", default: "8"),
            .value("tolerances", "FILE", help: "Tolerances file, as for compare (changes within them are ignored)."),
            .value("thresholds", "FILE", help: "The same as --tolerances (its older name)."),
            .value("junit", "FILE", help: "Also write JUnit XML: one test case per series, failed when the newest run regressed it."),
            .flag("all", help: "List every series, not only those with change points."),
            .flag("markdown", help: "Print GitHub-flavoured markdown (for $GITHUB_STEP_SUMMARY)."),
            .flag("csv", help: "Print one CSV row per run and series."),
            .json,
        ],
        run: run
    )

    static let run: Command.Run = { invocation in
        let arguments = invocation.arguments
        let formats = ["json", "csv", "markdown"].filter { arguments.flag($0) }
        if formats.count > 1 { throw UsageError.conflictingOptions(formats[0], formats[1]) }
        let alpha = try arguments.double("alpha", default: 0.05, in: 0.000001...0.5)
        let window = try arguments.int("window", default: 8, in: 1...1000)
        var metrics = arguments.values("metric").flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        if metrics == ["all"] {
            metrics = Quantity.all.map(\.id)
        } else {
            for metric in metrics where Quantity.named(metric) == nil {
                let known = Quantity.all.map(\.id)
                throw UsageError.invalidValue(option: "metric", value: metric, expected: "one of \(known.joined(separator: ", ")) or 'all'")
            }
        }
        let strategies = arguments.values("strategy").flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        let tolerances = try CompareCommand.tolerances(arguments.value("tolerances") ?? arguments.value("thresholds"))
        let store = try HistoryCLI.open(arguments.value("store") ?? StoreLocation.defaultURL, create: false)
        let history: History
        do {
            history = try History(store: store, scenario: arguments.value("scenario"), metrics: metrics, strategies: strategies,
                                  thresholds: tolerances, detector: ChangePointDetector(alpha: alpha, window: window))
        } catch let error as HistoryError {
            throw HistoryCLI.toolError(error, path: nil)
        }
        if history.scenarios.isEmpty {
            let which = arguments.value("scenario").map { " of scenario '\($0)'" } ?? ""
            throw ToolError("\(store.location): no runs\(which) stored yet; add some with 'typestorm store add RUN_DIR --store \(store.location)'",
                            exitCode: ExitCode.dataError)
        }
        // With --json, --csv or --markdown the output is the data on stdout: the page only when
        // --out asks for it.
        if !arguments.flag("no-html"), formats.isEmpty || arguments.value("out") != nil {
            let out = arguments.value("out") ?? "history.html"
            try ReportingCLI.write(HistoryReport(history: history).render(), to: out)
            invocation.console.err("history: \(out)\n")
        }
        return try ReportingCLI.print(history, invocation, csv: history.csv)
    }
}

extension History: Verdict {}
