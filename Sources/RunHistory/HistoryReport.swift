import Reporting

/// Writes `history.html`: one self-contained page (inline CSS and SVG, no scripts), per
/// scenario the runs and one small chart per metric with a line per group, change points
/// circled and labelled with their size and confidence.
package struct HistoryReport: Sendable {
    package var history: History

    package init(history: History) {
        self.history = history
    }

    /// The charts of one scenario, one per metric, in the history's metric order.
    package func charts(scenario: String) -> [(metric: String, svg: String)] {
        var metrics: [String] = []
        for series in history.series where series.scenario == scenario && !metrics.contains(series.quantity.id) {
            metrics.append(series.quantity.id)
        }
        return metrics.map { metric in
            let members = history.series.filter { $0.scenario == scenario && $0.quantity.id == metric }
            let quantity = members[0].quantity
            let (divisor, unitLabel) = Self.axisUnit(quantity.unit, values: members.flatMap { $0.points.map(\.value) })
            // Every change point is circled; where several start at the same run, only the largest
            // is labelled, so the labels do not pile up.
            var marks: [(run: Int, y: Double, size: Double, text: String)] = []
            let lines = members.map { series in
                for change in series.changePoints {
                    let point = series.points[change.index]
                    let size = change.relative.map { ValueFormat.relativeChange($0, 0) } ?? ValueFormat.delta(change.delta, unit: quantity.unit)
                    marks.append((point.run, point.value / divisor, abs(change.relative ?? change.delta),
                                  "\(size) · \(ValueFormat.fixed(change.confidence * 100, 0)) %"))
                }
                return LineChart.Series(name: series.group, points: series.points.map { LineChart.Point(x: Double($0.run + 1), y: $0.value / divisor) },
                                        style: .lineWithMarkers)
            }
            var labelled: Set<Int> = []
            let callouts = marks.sorted { $0.size > $1.size }.map { mark -> LineChart.Callout in
                let first = labelled.insert(mark.run).inserted
                return LineChart.Callout(point: LineChart.Point(x: Double(mark.run + 1), y: mark.y), text: first ? mark.text : "")
            }
            var chart = LineChart(title: quantity.label, xTitle: "run (oldest → newest)", yTitle: unitLabel, series: lines,
                                  callouts: callouts, emptyNote: "no values", width: 560, height: 300)
            // Runs are counted: ticks on whole runs only.
            var runs = AxisScale.linear(1, Double(max(2, history.runs(of: scenario).count)))
            runs.ticks = runs.ticks.filter { $0 == $0.rounded() }
            chart.xScale = runs
            return (metric, chart.svg())
        }
    }

    /// Divisor and axis title so that durations read in ms or s and shares in percent.
    static func axisUnit(_ unit: ValueUnit, values: [Double]) -> (Double, String) {
        switch unit {
        case .nanoseconds:
            let axis = ValueFormat.durationAxisUnit(maxNanos: values.max() ?? 0)
            return (axis.divisor, axis.symbol)
        case .share: return (0.01, "%")
        default: return (1, "")
        }
    }

    package func render() -> String {
        var html = ReportStylesheet.pageStart(title: "Typestorm history")
        html += Markup.element("h1", text: "Typestorm history") + "\n"
        html += Markup.element("p", [("class", "sub")], text: history.summaryLine) + "\n"
        html += Markup.element("p", text: "Change points: " + history.detector.method + ". Each circled point starts a new level; its label is the change and the confidence.") + "\n"
        for scenario in history.scenarios {
            html += Markup.element("h2", text: "Scenario \(scenario.name)") + "\n"
            let changed = history.series.filter { $0.scenario == scenario.name && !$0.changePoints.isEmpty }
            if !changed.isEmpty {
                html += "<ul>\n"
                for series in changed {
                    for change in series.changePoints {
                        html += Markup.element("li", text: "\(series.group) · \(series.quantity.id): " + history.describe(change, in: series)) + "\n"
                    }
                }
                html += "</ul>\n"
            }
            html += "<div class=\"charts\">\n"
            for chart in charts(scenario: scenario.name) {
                html += "<figure>\n" + chart.svg + "\n</figure>\n"
            }
            html += "</div>\n<table>\n<thead><tr><th>run</th><th>time</th><th>commit</th><th>host</th><th>scenario hash</th><th>tags</th><th>id</th></tr></thead>\n<tbody>\n"
            for (index, run) in scenario.runs.enumerated() {
                let cells = [String(index + 1), ValueFormat.timestamp(millis: run.timeMillis), run.gitCommit ?? "–", run.hostname ?? "–",
                             run.scenarioHash, run.tags.joined(separator: ", "), run.id]
                html += "<tr>" + cells.map { Markup.element("td", text: $0) }.joined() + "</tr>\n"
            }
            html += "</tbody>\n</table>\n"
        }
        return html + ReportStylesheet.pageEnd
    }
}
