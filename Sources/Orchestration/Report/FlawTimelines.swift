import FieldRuntime
import Reporting
import SearchField
import Simulation
import TypestormMetrics
import Typists

/// The timelines of the first flawed searches a record names (`MetricSet.examples`), made by
/// typing that typist again in virtual time: its whole server cell (the typists it queued
/// with), the same strategy, backend model, seed and keystrokes, so the same search goes the
/// same way. Only virtual-runner groups get one: a live run's clock cannot be typed again.
package enum FlawTimelines {
    /// How much of the typist's timeline is shown around the example: from this long before it
    /// to `after` after it.
    static let before: Int64 = 2_500_000_000
    static let after: Int64 = 1_500_000_000
    /// At most this many lines per timeline (the earliest are dropped).
    static let maximumLines = 80

    /// One timeline per (virtual group, flaw kind) with an example; empty when the typists
    /// cannot be drawn (query lists not found).
    package static func make(record: RunRecord, scenario: Scenario, baseDirectory: String) -> [FlawTimeline] {
        let groups = record.groups.filter { $0.labels[Decision.runnerLabel] == "virtual" && !($0.metrics.examples ?? [:]).isEmpty }
        guard !groups.isEmpty, let typists = try? ScenarioTypists(scenario: scenario, baseDirectory: baseDirectory) else { return [] }
        let simulation = VirtualWorkload.simulationPlan(scenario)
        let schedule = VirtualWorkload.schedule(scenario)
        var timelines: [FlawTimeline] = []
        for group in groups {
            guard let spec = simulation.strategies.first(where: { $0.name == group.name }) else { continue }
            for kind in FlawKind.allCases {
                guard let example = group.metrics.examples?[kind.rawValue], example.typist < simulation.typists else { continue }
                let perCell = max(1, simulation.backend.typistsPerServer)
                let start = example.typist / perCell * perCell
                let cell = start..<min(simulation.typists, start + perCell)
                let lines: [TimelineLine]
                if let schedule {
                    let end = scenario.durationNanos
                    lines = timeline(spec, simulation, cell: cell, typist: example.typist, around: example.timeNs,
                                     sessions: cell.map { ScheduledSession(typists.typing(forTypist: $0), typist: $0, schedule: schedule, end: end) })
                } else {
                    lines = timeline(spec, simulation, cell: cell, typist: example.typist, around: example.timeNs,
                                     sessions: cell.map(typists.session(forTypist:)))
                }
                guard !lines.isEmpty else { continue }
                let title = "\(group.name): \(describe(kind)), typist \(example.typist) at \(ValueFormat.duration(nanos: Double(example.timeNs)))"
                timelines.append(FlawTimeline(group: group.key, kind: kind, title: title, text: TimelineLine.render(lines)))
            }
        }
        return timelines
    }

    static func describe(_ kind: FlawKind) -> String {
        switch kind {
        case .olderAnswer: "the first search that ended on an older query's answer"
        case .outOfOrder: "the first late response that replaced newer results"
        case .neverFresh: "the first search that never showed fresh results"
        }
    }

    /// The typist's lines from `before` before `time` to `after` after it.
    static func timeline<Session: TypistSession>(
        _ spec: StrategySpec, _ scenario: SimulationPlan, cell: Range<Int>, typist: Int, around time: Int64, sessions: [Session]
    ) -> [TimelineLine] {
        let collected = CollectedLines()
        let slot = typist - cell.lowerBound
        let window = (time - before)...(time + after)
        func open<Strategy: SearchFieldStrategy>(_ strategy: Strategy) {
            var runner = VirtualRunner(strategy: strategy, globalIndices: Array(cell), backend: scenario.backend,
                                       seed: scenario.seed, settleIntervalNanos: scenario.settleIntervalNanos) { Array(sessions[$0]) }
            _ = runner.run { at, index, entry in
                guard index == slot, window.contains(at), let line = TimelineLine(time: at, entry: entry) else { return }
                collected.lines.append(line)
            }
        }
        open(spec.preset.make(spec.configuration))
        return Array(collected.lines.suffix(maximumLines))
    }
}

/// The lines an observer closure collects.
private final class CollectedLines {
    var lines: [TimelineLine] = []
}

extension Population {
    /// One phrase per mix entry for the report ("mobile en 15.0 % on lte (+70.0 ms round trip,
    /// 0.20 % loss)"), then the backend's round trip every request also takes.
    package func networkPhrases(backend: ScenarioBackend) -> [String] {
        mix.map { entry in
            var phrase = "\(entry.device.rawValue) \(entry.language.rawValue) \(ValueFormat.percent(entry.share))"
            if let network = entry.network {
                phrase += " on \(network.name) (+\(ValueFormat.duration(nanos: Double(network.roundTrip.median))) round trip, "
                    + "\(ValueFormat.percent(network.lossRate)) loss)"
            }
            return phrase
        } + ["every request also on the backend's \(ValueFormat.duration(nanos: Double(backend.networkRoundTripNanos))) round trip"]
    }
}

extension HTMLReport {
    /// The report of a run whose scenario is known: `forRun(_:scenarioText:)`, plus the
    /// populations' networks and the timelines of the first flawed searches.
    package static func forRun(_ record: RunRecord, scenario: Scenario?, scenarioText: String?, baseDirectory: String) -> HTMLReport {
        var report = forRun(record, scenarioText: scenarioText)
        if let scenario {
            report.populations = scenario.population.networkPhrases(backend: scenario.backend)
            report.timelines = FlawTimelines.make(record: record, scenario: scenario, baseDirectory: baseDirectory)
        }
        return report
    }
}
