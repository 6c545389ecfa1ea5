import Diagnostics
import Foundation
import Reporting
import TypestormMetrics

extension History {
    /// "run 3 (abc1234): +25.0 % (120 ms → 150 ms), confidence 99.0 %".
    package func describe(_ change: ChangePoint, in series: Series) -> String {
        let unit = series.quantity.unit
        let run = series.points[change.index].run
        var text = "run \(run + 1) (\(commit(series.scenario, run))): "
        text += change.relative.map { ValueFormat.relativeChange($0) } ?? ValueFormat.delta(change.delta, unit: unit)
        text += " (\(ValueFormat.format(change.before, unit: unit)) → \(ValueFormat.format(change.after, unit: unit)))"
        text += ", confidence " + ValueFormat.fixed(change.confidence * 100, 1) + " %"
        if series.isRegression(change) { text += ", worse" }
        return text
    }

    func runs(of scenario: String) -> [StoredRun] {
        scenarios.first { $0.name == scenario }?.runs ?? []
    }

    func commit(_ scenario: String, _ run: Int) -> String {
        let runs = runs(of: scenario)
        return run < runs.count ? runs[run].shortCommit : "–"
    }

    /// One sentence: what the history shows and what the newest run changed.
    package var summaryLine: String {
        let runCount = scenarios.reduce(0) { $0 + $1.runs.count }
        var text = "\(runCount) \(runCount == 1 ? "run" : "runs") of \(scenarios.count) \(scenarios.count == 1 ? "scenario" : "scenarios"), "
        text += "\(series.count) series, \(changePointCount) change \(changePointCount == 1 ? "point" : "points")"
        let newest = newestChanges, worse = newestRegressions.count
        if newest.isEmpty {
            text += "; the newest run changed nothing."
        } else {
            text += "; the newest run moved \(newest.count) \(newest.count == 1 ? "series" : "series") (\(worse) worse, \(newest.count - worse) better)."
        }
        return text
    }

    private func runTable(_ scenario: ScenarioRuns) -> TextTable {
        TextTable(headers: ["run", "time", "commit", "host", "scenario hash", "tags", "id"], rows: scenario.runs.enumerated().map { index, run in
            [String(index + 1), ValueFormat.timestamp(millis: run.timeMillis), run.shortCommit, run.hostname ?? "–",
             run.scenarioHash, run.tags.joined(separator: ","), run.id]
        }, firstNumericColumn: 7)
    }

    private func recentValues(_ series: Series, count: Int = 6) -> String {
        let shown = series.points.suffix(count).map { ValueFormat.format($0.value, unit: series.quantity.unit) }
        return (series.points.count > count ? "… " : "") + shown.joined(separator: ", ")
    }

    /// The terminal view: the runs of each scenario, then the series with change points (every
    /// series with `all`).
    package func terminalTable(all: Bool = false) -> String {
        var out = summaryLine + "\nChange points: " + detector.method + ".\n"
        for scenario in scenarios {
            out += "\nScenario \(scenario.name):\n" + runTable(scenario).render()
            let shown = series.filter { $0.scenario == scenario.name && (all || !$0.changePoints.isEmpty) }
            if shown.isEmpty {
                out += "\nNo change points in \(series.filter { $0.scenario == scenario.name }.count) series (--all lists them).\n"
                continue
            }
            out += "\n" + TextTable(headers: ["group", "metric", "runs", "values (newest last)", "change points"], rows: shown.map { series in
                [series.group, series.quantity.id, String(series.points.count), recentValues(series),
                 series.changePoints.isEmpty ? "–" : series.changePoints.map { describe($0, in: series) }.joined(separator: "; ")]
            }, firstNumericColumn: 5).render()
        }
        return out
    }

    /// One row per series point: scenario, run, id, time, commit, host, group, strategy,
    /// metric, value, and the change point starting at that run (relative change, confidence).
    package func csv() -> String {
        func field(_ text: String) -> String {
            text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        var out = "scenario,run,run_id,time_ms,commit,host,group,strategy,metric,value,change_relative,change_confidence\n"
        for series in series {
            let runs = runs(of: series.scenario)
            let changes = Dictionary(uniqueKeysWithValues: series.changePoints.map { ($0.index, $0) })
            for (index, point) in series.points.enumerated() {
                let run = runs[point.run]
                let change = changes[index]
                let cells = [
                    series.scenario, String(point.run + 1), run.id, String(run.timeMillis), run.gitCommit ?? "", run.hostname ?? "",
                    series.group, series.strategy, series.quantity.id, String(point.value),
                    change.flatMap(\.relative).map { String($0) } ?? (change.map { _ in "" } ?? ""),
                    change.map { String($0.confidence) } ?? "",
                ]
                out += cells.map(field).joined(separator: ",") + "\n"
            }
        }
        return out
    }

    /// JSON with stable keys (documented in docs/history.md).
    package func json() throws -> String {
        let document = HistoryJSON(
            summary: summaryLine, method: detector.method, alpha: detector.alpha, window: detector.window, exitCode: exitCode,
            scenarios: scenarios.map { HistoryJSON.Scenario(name: $0.name, runs: $0.runs) },
            series: series.map { series in
                let runs = runs(of: series.scenario)
                return HistoryJSON.Series(
                    scenario: series.scenario, group: series.group, strategy: series.strategy, metric: series.quantity.id,
                    label: series.quantity.label, unit: series.quantity.unit.rawValue, better: series.quantity.better.rawValue,
                    points: series.points.map { HistoryJSON.Point(run: $0.run + 1, runId: runs[$0.run].id, value: $0.value) },
                    changePoints: series.changePoints.map { change in
                        let run = series.points[change.index].run
                        return HistoryJSON.Change(
                            run: run + 1, runId: runs[run].id, before: change.before, after: change.after, delta: change.delta,
                            relative: change.relative, p: change.p, confidence: change.confidence,
                            direction: series.isRegression(change) ? "worse" : "better")
                    })
            })
        return try JSONDocument.text(document)
    }

    /// GitHub-flavoured markdown for `$GITHUB_STEP_SUMMARY`: the verdict on the newest run,
    /// every change point, and the runs in a collapsed section.
    package func markdown() -> String {
        let verdict = exitCode == ExitCode.regression ? "regression" : exitCode == ExitCode.improvement ? "improvement" : "no change"
        var out = "### Typestorm history: \(verdict) in the newest run\n\n" + summaryLine + "\n\n"
        let changed = series.filter { !$0.changePoints.isEmpty }
        if !changed.isEmpty {
            out += "| scenario | group | metric | change point |\n|---|---|---|---|\n"
            for series in changed {
                for change in series.changePoints {
                    var text = Markup.markdownCell(describe(change, in: series))
                    if series.isRegression(change) { text = "**\(text)**" }
                    out += "| \(series.scenario) | \(Markup.markdownCell(series.group)) | `\(series.quantity.id)` | \(text) |\n"
                }
            }
            out += "\n"
        }
        for scenario in scenarios {
            out += "<details><summary>\(Markup.text(scenario.name)): \(scenario.runs.count) runs</summary>\n\n| run | time | commit | host | id |\n|--:|---|---|---|---|\n"
            for (index, run) in scenario.runs.enumerated() {
                out += "| \(index + 1) | \(ValueFormat.timestamp(millis: run.timeMillis)) | `\(run.shortCommit)` | \(run.hostname ?? "–") | `\(run.id)` |\n"
            }
            out += "\n</details>\n\n"
        }
        out += "Change points: " + detector.method + ".\n"
        return out
    }

    /// JUnit XML: one test case per series, failed when the newest run starts a change for the
    /// worse; older change points are in the case's output.
    package func junit() -> JUnitXML {
        let newest = Dictionary(newestChanges.map { ("\($0.series.scenario)/\($0.series.group)/\($0.series.quantity.id)", $0.change) }, uniquingKeysWith: { a, _ in a })
        let cases = series.map { series -> JUnitXML.TestCase in
            let key = "\(series.scenario)/\(series.group)/\(series.quantity.id)"
            var output = "\(series.points.count) runs: " + recentValues(series)
            if !series.changePoints.isEmpty { output += "\nchange points: " + series.changePoints.map { describe($0, in: series) }.joined(separator: "; ") }
            var outcome = JUnitXML.TestCase.Outcome.passed
            if let change = newest[key], series.isRegression(change) {
                outcome = .failed("\(series.quantity.label) changed for the worse in the newest run: " + describe(change, in: series))
            }
            return JUnitXML.TestCase(className: "typestorm.history.\(series.scenario).\(series.group)", name: series.quantity.id,
                                     outcome: outcome, output: output)
        }
        return JUnitXML(suite: "typestorm history", cases: cases)
    }
}

struct HistoryJSON: Encodable {
    struct Scenario: Encodable {
        var name: String
        var runs: [StoredRun]
    }

    struct Point: Encodable {
        var run: Int
        var runId: String
        var value: Double
    }

    struct Change: Encodable {
        var run: Int
        var runId: String
        var before: Double
        var after: Double
        var delta: Double
        /// Always present: `null` when the level before was 0.
        @ExplicitNull var relative: Double?
        var p: Double
        var confidence: Double
        var direction: String
    }

    struct Series: Encodable {
        var scenario: String
        var group: String
        var strategy: String
        var metric: String
        var label: String
        var unit: String
        var better: String
        var points: [Point]
        var changePoints: [Change]
    }

    var summary: String
    var method: String
    var alpha: Double
    var window: Int
    var exitCode: Int32
    var scenarios: [Scenario]
    var series: [Series]
}
