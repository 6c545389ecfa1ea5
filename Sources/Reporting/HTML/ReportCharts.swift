import Measurement

/// The charts of the run report, built from the strategy summaries; series keep the order (and
/// so the colours) of the columns.
struct ReportCharts {
    struct Chart {
        var name: String
        var svg: String
        var caption: String
    }

    var columns: [(summary: StrategySummary, title: String)]

    var all: [Chart] {
        var charts = [ttfrCDF, latencyPercentiles, fanOut, staleness, mismatch, waste, cancelSignal, cancelStop, flicker]
        if let throughput { charts.append(throughput) }
        if let inFlight { charts.append(inFlight) }
        return charts
    }

    private var titles: [String] { columns.map(\.title) }

    /// CDF of time to fresh results over all searches: the curve tops out below 100 % by the
    /// share that never got fresh results, so a strategy that sometimes never recovers shows it.
    var ttfrCDF: Chart {
        let maxNanos = columns.compactMap { $0.summary.ttfr.map { Double($0.max) } }.max() ?? 1e6
        let unit = ValueFormat.durationAxisUnit(maxNanos: maxNanos)
        let series = columns.map { column -> LineChart.Series in
            let s = column.summary
            guard let histogram = s.ttfr else { return LineChart.Series(name: column.title, points: [], style: .step) }
            let total = Double(histogram.totalCount + s.neverFresh)
            var seen: Int64 = 0
            var points: [LineChart.Point] = []
            for bucket in histogram.buckets {
                seen += bucket.count
                points.append(.init(x: Swift.max(Double(bucket.value), Double(histogram.min)) / unit.divisor, y: Double(seen) / total * 100))
            }
            if let first = points.first { points.insert(.init(x: first.x, y: 0), at: 0) }
            var name = column.title
            if s.neverFresh > 0 { name += " (never fresh \(ValueFormat.percent(s.neverFreshShare ?? 0)))" }
            return LineChart.Series(name: name, points: points, style: .step)
        }
        let chart = LineChart(title: "Time to fresh results", xTitle: "time after the last keystroke (\(unit.symbol), log scale)",
                              yTitle: "searches (%)", series: series, xLog: true, yDomain: 0...100)
        return Chart(name: "ttfr-cdf", svg: chart.svg(),
                     caption: "Share of searches that showed fresh results within a given time after the last keystroke. Higher and further left is better.")
    }

    var latencyPercentiles: Chart {
        let labels = ["p50", "p90", "p99", "p99.9", "max"]
        let values: [[Double?]] = columns.map { column in
            guard let h = column.summary.requestLatency else { return labels.map { _ in nil } }
            return [50.0, 90, 99, 99.9].map { h.percentile($0).map(Double.init) } + [Double(h.max)]
        }
        return durationBars(name: "request-latency", title: "Request latency", yWhat: "latency", categories: labels, values: values,
                            caption: "Request latency from the intended send to completion (coordinated omission avoided).")
    }

    var fanOut: Chart {
        let categories = ["mean", "p50", "p90", "p99"]
        let series = columns.map { column in
            let s = column.summary
            return BarChart.Series(name: column.title, values: [s.fanOutMean] + [50.0, 90, 99].map { p in s.fanOut?.percentile(p).map(Double.init) })
        }
        let chart = BarChart(title: "Requests per search (fan-out)", yTitle: "requests per settle", categories: categories, series: series)
        return Chart(name: "fan-out", svg: chart.svg(), caption: "Requests sent to the backend per search (settle). Lower costs less.")
    }

    var staleness: Chart {
        let series = columns.map { column in
            BarChart.Series(name: column.title, values: [column.summary.staleShare.map { $0 * 100 }, column.summary.neverFreshShare.map { $0 * 100 }])
        }
        let chart = BarChart(title: "Wrong final screen", yTitle: "searches (%)", categories: ["wrong final results", "never fresh"],
                             series: series, valueLabel: { ValueFormat.significant($0) + "%" })
        return Chart(name: "stale-final", svg: chart.svg(),
                     caption: "Searches whose screen, once everything settled, did not show the results of the final query; and searches that never showed fresh results.")
    }

    var mismatch: Chart {
        let values = columns.map { [$0.summary.mismatchPerSettleNanos] }
        let counts = columns.map { "\($0.title): \($0.summary.outOfOrderApplies)" }.joined(separator: ", ")
        return durationBars(name: "mismatch", title: "Stale results on screen", yWhat: "mismatch time per search",
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
        return durationBars(name: "cancel-signal", title: "Cancellation signal latency", yWhat: "latency", categories: labels, values: values,
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
        return durationBars(name: "cancel-stop", title: "Cancellation stop latency", yWhat: "latency", categories: chosen.map(\.0), values: values,
                            caption: "From the cancel request until the work stopped: on the client, and on the backend where it reports its own stop time.")
    }

    var waste: Chart {
        let series = columns.map { column in
            BarChart.Series(name: column.title, values: [column.summary.clientWastedShare.map { $0 * 100 }, column.summary.backendWastedShare.map { $0 * 100 }])
        }
        let chart = BarChart(title: "Wasted work", yTitle: "share of service time (%)", categories: ["client view", "backend view"],
                             series: series, valueLabel: { ValueFormat.significant($0) + "%" })
        return Chart(name: "wasted-work", svg: chart.svg(),
                     caption: "Service time spent on requests whose results were never applied or no longer matched the input. A backend that ignores disconnects wastes the whole request.")
    }

    var flicker: Chart {
        let series = columns.map { column in
            BarChart.Series(name: column.title, values: [column.summary.displayChangesPerSettle, column.summary.blinksPerSettle, column.summary.falseEmptiesPerSettle])
        }
        let chart = BarChart(title: "Flicker", yTitle: "per search", categories: ["display changes", "blinks (< 200 ms)", "false empties"], series: series)
        return Chart(name: "flicker", svg: chart.svg(),
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
        let series: [LineChart.Series] = columns.compactMap { column in
            guard let timeline = column.summary.timeline, let values = timeline[keyPath: value] else { return nil }
            let points = zip(timeline.bucketStartsSeconds, values).map { LineChart.Point(x: $0, y: $1) }
            return LineChart.Series(name: column.title, points: points)
        }
        guard !series.isEmpty else { return nil }
        let chart = LineChart(title: title, xTitle: "time since start (s)", yTitle: yTitle, series: series)
        return Chart(name: name, svg: chart.svg(), caption: caption)
    }

    /// Bars of durations in nanoseconds, drawn in the unit that suits the largest value.
    private func durationBars(name: String, title: String, yWhat: String, categories: [String], values: [[Double?]], caption: String) -> Chart {
        let maxNanos = values.flatMap { $0 }.compactMap { $0 }.max() ?? 1e6
        let unit = ValueFormat.durationAxisUnit(maxNanos: maxNanos)
        let series = zip(titles, values).map { title, row in BarChart.Series(name: title, values: row.map { $0.map { $0 / unit.divisor } }) }
        let chart = BarChart(title: title, yTitle: "\(yWhat) (\(unit.symbol))", categories: categories, series: series)
        return Chart(name: name, svg: chart.svg(), caption: caption)
    }
}
