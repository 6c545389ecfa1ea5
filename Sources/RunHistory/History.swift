import Diagnostics
import Reporting

/// The history of a store: per scenario, its runs oldest first, and for every group and metric
/// the series of values with its change points.
package struct History: Sendable {
    package struct ScenarioRuns: Sendable {
        package var name: String
        /// Oldest first; a point's `run` indexes this.
        package var runs: [StoredRun]
    }

    package struct Point: Sendable {
        /// Index into the scenario's runs.
        package var run: Int
        package var value: Double
    }

    package struct Series: Sendable {
        package var scenario: String
        /// The group's key (strategy and labels, `naive|runner=virtual`).
        package var group: String
        package var strategy: String
        package var quantity: Quantity
        package var points: [Point]
        /// `index` of each is an index into `points`.
        package var changePoints: [ChangePoint]

        /// A change point is a regression when it moved the metric the wrong way.
        package func isRegression(_ change: ChangePoint) -> Bool {
            quantity.better == .lower ? change.delta > 0 : change.delta < 0
        }
    }

    package var scenarios: [ScenarioRuns]
    package var series: [Series]
    package var detector: ChangePointDetector
    package var thresholds: Tolerances

    /// The metrics shown when `--metric` is not given: the ones a search field is judged by.
    package static let defaultMetrics = [
        "ttfr.p50", "ttfr.p95", "ttfr.p99", "stale.share", "fanout.mean", "waste.backend", "latency.p99",
        "flicker.blinksPerSettle", "errors.share",
    ]

    /// Reads the store and finds the change points. `metrics` empty means `defaultMetrics`.
    package init(
        store: HistoryStore, scenario: String? = nil, metrics: [String] = [], strategies: [String] = [],
        thresholds: Tolerances = Tolerances(), detector: ChangePointDetector = ChangePointDetector()
    ) throws(HistoryError) {
        let runs = try store.runs(scenario: scenario)
        let values = try store.values(scenario: scenario, metrics: metrics.isEmpty ? Self.defaultMetrics : metrics, strategies: strategies)
        self.init(runs: runs, values: values, metrics: metrics.isEmpty ? Self.defaultMetrics : metrics, thresholds: thresholds, detector: detector)
    }

    /// The history of given runs and values (runs in the store's order).
    package init(runs: [StoredRun], values: [HistoryStore.Value], metrics: [String], thresholds: Tolerances = Tolerances(),
                detector: ChangePointDetector = ChangePointDetector()) {
        self.thresholds = thresholds
        self.detector = detector
        var names: [String] = []
        var byScenario: [String: [StoredRun]] = [:]
        for run in runs {
            if byScenario[run.scenarioName] == nil { names.append(run.scenarioName) }
            byScenario[run.scenarioName, default: []].append(run)
        }
        scenarios = names.sorted().map { ScenarioRuns(name: $0, runs: byScenario[$0]!) }
        var position: [String: (scenario: String, index: Int)] = [:]
        for scenario in scenarios {
            for (index, run) in scenario.runs.enumerated() { position[run.id] = (scenario.name, index) }
        }
        struct Key: Hashable { var scenario: String, group: String, metric: String }
        var collected: [Key: (strategy: String, points: [Point])] = [:]
        for value in values {
            guard let (scenario, index) = position[value.runID] else { continue }
            let key = Key(scenario: scenario, group: value.group, metric: value.metric)
            collected[key, default: (value.strategy, [])].points.append(Point(run: index, value: value.value))
        }
        let order = Dictionary(uniqueKeysWithValues: metrics.enumerated().map { ($1, $0) })
        var series: [Series] = []
        for (key, entry) in collected {
            guard let quantity = Quantity.named(key.metric) else { continue }
            let points = entry.points.sorted { $0.run < $1.run }
            let tolerance = thresholds.tolerance(for: quantity, group: key.group)
            let changes = detector.detect(points.map(\.value), tolerance: tolerance)
            series.append(Series(scenario: key.scenario, group: key.group, strategy: entry.strategy, quantity: quantity,
                                 points: points, changePoints: changes))
        }
        self.series = series.sorted {
            ($0.scenario, order[$0.quantity.id] ?? Int.max, $0.group) < ($1.scenario, order[$1.quantity.id] ?? Int.max, $1.group)
        }
    }

    /// Change points that start at the newest run of their scenario: what this commit changed.
    package var newestChanges: [(series: Series, change: ChangePoint)] {
        var result: [(Series, ChangePoint)] = []
        for series in series {
            guard let runs = scenarios.first(where: { $0.name == series.scenario })?.runs,
                  let last = series.changePoints.last, series.points[last.index].run == runs.count - 1
            else { continue }
            result.append((series, last))
        }
        return result
    }

    package var newestRegressions: [(series: Series, change: ChangePoint)] { newestChanges.filter { $0.series.isRegression($0.change) } }

    /// Exit codes like `compare`: 0 the newest run changed nothing, 2 it regressed something,
    /// 4 it only improved things.
    package var exitCode: Int32 {
        if !newestRegressions.isEmpty { return ExitCode.regression }
        if !newestChanges.isEmpty { return ExitCode.improvement }
        return ExitCode.success
    }

    package var changePointCount: Int { series.reduce(0) { $0 + $1.changePoints.count } }
}
