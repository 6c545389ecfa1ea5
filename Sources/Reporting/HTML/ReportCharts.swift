import TypestormMetrics

/// The charts of the run report, built from the strategy summaries. Curves are small multiples
/// (one panel per runner, one legend beside them); everything else is one row per group, so
/// every chart stays readable from 1 to 30 groups.
struct ReportCharts {
    struct Chart {
        var name: String
        var svg: String
        var caption: String
        /// Whether the chart spans the page's full width (it has panels or many categories).
        var wide: Bool
    }

    var layout: ReportLayout

    var all: [Chart] {
        var charts = [ttfrCDF, latencyPercentiles, fanOut, staleness, mismatch, waste, cancelSignal, cancelStop, flicker]
        if let throughput { charts.append(throughput) }
        if let inFlight { charts.append(inFlight) }
        return charts
    }

    private var columns: [ReportLayout.Column] { layout.columns }

    /// CDF of time to fresh results over all searches: the curve tops out below 100 % by the
    /// share that never got fresh results, so a strategy that sometimes never recovers shows it.
    var ttfrCDF: Chart {
        let maxNanos = columns.compactMap { $0.summary.ttfr.map { Double($0.max) } }.max() ?? 1e6
        let unit = ValueFormat.durationAxisUnit(maxNanos: maxNanos)
        let series = columns.map { column -> LineChart.Series in
            let s = column.summary
            guard let histogram = s.ttfr else { return LineChart.Series(name: column.seriesName, points: [], style: .step, styleIndex: column.style) }
            let total = Double(histogram.totalCount + s.neverFresh)
            var seen: Int64 = 0
            var points: [LineChart.Point] = []
            for bucket in histogram.buckets {
                seen += bucket.count
                points.append(.init(x: Swift.max(Double(bucket.value), Double(histogram.min)) / unit.divisor, y: Double(seen) / total * 100))
            }
            if let first = points.first { points.insert(.init(x: first.x, y: 0), at: 0) }
            return LineChart.Series(name: column.seriesName, points: points, style: .step, styleIndex: column.style)
        }
        return lines(name: "ttfr-cdf", title: "Time to fresh results", xTitle: "time after the last keystroke (\(unit.symbol), log scale)",
                     yTitle: "searches (%)", series: series, xLog: true, yDomain: 0...100,
                     caption: "Share of searches that showed fresh results within a given time after the last keystroke. Higher and further left is better; a curve ends below 100 % by the share that never got fresh results (see Wrong final screen).")
    }

    var latencyPercentiles: Chart {
        let labels = ["p50", "p90", "p99", "p99.9", "max"]
        let values: [[Double?]] = columns.map { column in
            guard let h = column.summary.requestLatency else { return labels.map { _ in nil } }
            return [50.0, 90, 99, 99.9].map { h.percentile($0).map(Double.init) } + [Double(h.max)]
        }
        return durationRows(name: "request-latency", title: "Request latency", what: "latency", categories: labels, values: values,
                            caption: "Request latency from the intended send to completion (coordinated omission avoided).")
    }

    var fanOut: Chart {
        let values = columns.map { column in
            let s = column.summary
            return [s.fanOutMean] + [50.0, 90, 99].map { p in s.fanOut?.percentile(p).map(Double.init) }
        }
        return rows(name: "fan-out", title: "Requests per search (fan-out)", axisTitle: "requests per settle", categories: ["mean", "p50", "p90", "p99"],
                    values: values, caption: "Requests sent to the backend per search (settle). Lower costs less.")
    }

    var staleness: Chart {
        let shares = columns.map { [$0.summary.staleShare, $0.summary.neverFreshShare] }
        return percentRows(name: "stale-final", title: "Wrong final screen", of: "searches", categories: ["wrong final results", "never fresh"],
                           shares: shares,
                           caption: "Searches whose screen, once everything settled, did not show the results of the final query; and searches that never showed fresh results.")
    }

    var mismatch: Chart {
        let values = columns.map { [$0.summary.mismatchPerSettleNanos] }
        // Naming only the groups that broke the rule keeps the caption short at 30 groups.
        let offenders = columns.filter { $0.summary.outOfOrderApplies > 0 }.map { "\($0.title): \($0.summary.outOfOrderApplies)" }
        let counts = offenders.isEmpty ? "0 in every group" : offenders.joined(separator: ", ") + (offenders.count < columns.count ? "; 0 in the others" : "")
        return durationRows(name: "mismatch", title: "Stale results on screen", what: "mismatch time per search",
                            categories: ["results shown for another query"], values: values,
                            caption: "Mean time per search that the screen showed results for a query other than the one in the field. Out-of-order applies (must be 0): \(counts).")
    }

    /// Signal latency is code running on the client (microseconds); stop latency includes the
    /// backend noticing (milliseconds): separate charts so neither flattens the other.
    var cancelSignal: Chart {
        let labels = ["p50", "p90", "p99", "max"]
        let values: [[Double?]] = columns.map { column in
            guard let h = column.summary.cancelSignal else { return labels.map { _ in nil } }
            return [50.0, 90, 99].map { h.percentile($0).map(Double.init) } + [Double(h.max)]
        }
        return durationRows(name: "cancel-signal", title: "Cancellation signal latency", what: "latency", categories: labels, values: values,
                            caption: "From the keystroke that made a request or debounce wait obsolete to the cancel request. Strategies that never cancel show n/a.")
    }

    var cancelStop: Chart {
        let specs: [(String, KeyPath<StrategySummary, Histogram?>, Double)] = [
            ("client p50", \.cancelStopClient, 50), ("client p99", \.cancelStopClient, 99),
            ("backend p50", \.cancelStopBackend, 50), ("backend p99", \.cancelStopBackend, 99),
        ]
        let used = specs.filter { spec in columns.contains { $0.summary[keyPath: spec.1] != nil } }
        let chosen = used.isEmpty ? Array(specs.prefix(2)) : used
        let values = columns.map { column in chosen.map { spec in column.summary[keyPath: spec.1]?.percentile(spec.2).map(Double.init) } }
        return durationRows(name: "cancel-stop", title: "Cancellation stop latency", what: "latency", categories: chosen.map(\.0), values: values,
                            caption: "From the cancel request until the work stopped: on the client, and on the backend where it reports its own stop time.")
    }

    var waste: Chart {
        let shares = columns.map { [$0.summary.clientWastedShare, $0.summary.backendWastedShare] }
        return percentRows(name: "wasted-work", title: "Wasted work", of: "share of service time", categories: ["client view", "backend view"],
                           shares: shares,
                           caption: "Service time spent on requests whose results were never applied or no longer matched the input. A backend that ignores disconnects wastes the whole request.")
    }

    var flicker: Chart {
        let values = columns.map { [$0.summary.displayChangesPerSettle, $0.summary.blinksPerSettle, $0.summary.falseEmptiesPerSettle] }
        return rows(name: "flicker", title: "Flicker", axisTitle: "per search", categories: ["display changes", "blinks (< 200 ms)", "false empties"],
                    values: values,
                    caption: "Display changes per search; blinks are states visible for less than 200 ms; false empties are empty or error screens not caused by the backend's answer.")
    }

    var throughput: Chart? {
        timeChart(name: "throughput", title: "Throughput over time", yTitle: "requests completed per second", value: \.throughputPerSecond,
                  caption: "Requests completed per second, per time bucket.")
    }

    var inFlight: Chart? {
        timeChart(name: "in-flight", title: "Requests in flight over time", yTitle: "mean requests in flight", value: \.meanInFlight,
                  caption: "Mean number of requests in flight, per time bucket.")
    }

    private func timeChart(name: String, title: String, yTitle: String, value: KeyPath<Timeline, [Double]?>, caption: String) -> Chart? {
        let series: [LineChart.Series?] = columns.map { column in
            guard let timeline = column.summary.timeline, let values = timeline[keyPath: value] else { return nil }
            let points = zip(timeline.bucketStartsSeconds, values).map { LineChart.Point(x: $0, y: $1) }
            return LineChart.Series(name: column.seriesName, points: points, styleIndex: column.style)
        }
        guard series.contains(where: { $0 != nil }) else { return nil }
        return lines(name: name, title: title, xTitle: "time since start (s)", yTitle: yTitle, series: series, xLog: false, yDomain: nil, caption: caption)
    }

    /// Curves, one per column (`nil` for a column without this data), in the layout's panels.
    private func lines(name: String, title: String, xTitle: String, yTitle: String, series: [LineChart.Series?],
                       xLog: Bool, yDomain: ClosedRange<Double>?, caption: String) -> Chart {
        let panels = layout.panels.map { panel in
            SmallMultiples.Panel(title: panel.title, series: panel.members.compactMap { series[$0] })
        }
        let styles = Set(series.compactMap { $0?.styleIndex })
        let legend = layout.legend.filter { styles.contains($0.style) }.map {
            LegendEntry(label: $0.name, color: ChartPalette.color($0.style), swatch: .line(dash: ChartPalette.dash($0.style)))
        }
        let chart = SmallMultiples(title: title, xTitle: xTitle, yTitle: yTitle, panels: panels, legend: legend, xLog: xLog, yDomain: yDomain)
        return Chart(name: name, svg: chart.svg(), caption: caption, wide: true)
    }

    /// One row per column, one panel per category; sections per panel of the layout.
    private func rows(name: String, title: String, axisTitle: String, categories: [String], values: [[Double?]],
                      valueLabel: @escaping @Sendable (Double) -> String = { ValueFormat.significant($0) }, caption: String) -> Chart {
        let sections = layout.panels.map { panel in
            RowChart.Section(heading: panel.title, rows: panel.members.map { index in
                RowChart.Row(label: columns[index].seriesName, style: columns[index].style, values: values[index])
            })
        }
        let wide = categories.count > 2
        let chart = RowChart(title: title, axisTitle: axisTitle, categories: categories, sections: sections, valueLabel: valueLabel,
                             width: wide ? 1120 : 550)
        return Chart(name: name, svg: chart.svg(), caption: caption, wide: wide)
    }

    /// Rows of shares (0 to 1), drawn as percentages; the axis is titled `what` (%).
    private func percentRows(name: String, title: String, of what: String, categories: [String], shares: [[Double?]], caption: String) -> Chart {
        rows(name: name, title: title, axisTitle: "\(what) (%)", categories: categories,
             values: shares.map { row in row.map { $0.map { $0 * 100 } } }, valueLabel: { ValueFormat.significant($0) + "%" }, caption: caption)
    }

    /// Rows of durations in nanoseconds, drawn in the unit that suits the largest value.
    private func durationRows(name: String, title: String, what: String, categories: [String], values: [[Double?]], caption: String) -> Chart {
        let maxNanos = values.flatMap { $0 }.compactMap { $0 }.max() ?? 1e6
        let unit = ValueFormat.durationAxisUnit(maxNanos: maxNanos)
        return rows(name: name, title: title, axisTitle: "\(what) (\(unit.symbol))", categories: categories,
                    values: values.map { row in row.map { $0.map { $0 / unit.divisor } } }, caption: caption)
    }
}
