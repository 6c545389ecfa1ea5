import FieldHarness
import Foundation
import TypestormSystem
import TypestormMetrics
import Simulation

/// Runs a `SweepPlan` in virtual time and returns one record with a group per (population,
/// replicate, setting), the format `typestorm sweep --record` reads back.
///
/// Group name: the strategy's name. Labels: `runner=virtual`, `population`, `share` (the
/// population's share of the scenario's mix), `replicate`, `seed`, `debounceMs`, `minLength`.
package enum SweepGrid {
    /// Histograms a sweep keeps: the analysis needs only these, and a dense latency histogram
    /// is a few hundred kilobytes in memory, times thousands of grid runs.
    package static let keptHistograms: Set<String> = [MetricName.timeToFresh, MetricName.fanOutPerSettle]

    /// Runs the grid: in this process on every core (`workers` 1), or over `workers` worker
    /// processes started by the driver (`executable` is `typestorm`). Both give the same record.
    package static func run(
        _ plan: SweepPlan, workers: Int, executable: String, toolVersion: String, progress: @escaping @Sendable (String) -> Void
    ) async throws(SweepFailure) -> RunRecord {
        let populations = plan.populations
        let settings = plan.settings
        var record = RunRecord(metadata: RunMetadata(
            toolVersion: toolVersion, scenarioName: plan.scenario.name, scenarioHash: plan.scenario.hash, seed: plan.baseSeed,
            runner: "virtual", segments: [Segment(index: 0, count: 1)]))
        let runs = settings.count * populations.count * plan.replicates
        progress("sweeping \(settings.count) settings × \(populations.count) populations × \(plan.replicates) replicates (\(runs) virtual-time runs)\(workers > 1 ? " on \(workers) worker processes" : "")…\n")
        do {
            let groups = plan.sharesCapacity
                ? try await inProcessShared(plan, populations: populations, settings: settings, workers: workers, progress: progress)
                : workers > 1
                ? try await overWorkers(plan, populations: populations, settings: settings, workers: workers, executable: executable,
                                        toolVersion: toolVersion, progress: progress)
                : try await inProcess(plan, populations: populations, settings: settings, progress: progress)
            for group in groups { try record.add(group) }
        } catch let failure as SweepFailure {
            throw failure
        } catch {
            throw SweepFailure("\(error)", kind: .failed)
        }
        return record
    }

    static func labels(_ population: SweepPlan.PopulationPlan, replicate: Int, seed: UInt64, setting: SweepPlan.Setting) -> [String: String] {
        [
            "runner": "virtual", SweepLabel.population: population.label, SweepLabel.share: String(population.share),
            SweepLabel.replicate: String(replicate), SweepLabel.seed: String(seed),
            SweepLabel.debounce: String(setting.debounceMs), SweepLabel.minLength: String(setting.minLength),
        ]
    }

    /// The population's scenario for one replicate: its seed, and the typists drawn from it.
    static func replicate(_ population: SweepPlan.PopulationPlan, seed: UInt64, baseDirectory: String) throws(SweepFailure) -> (Scenario, ScenarioTypists) {
        var scenario = population.scenario
        scenario.seed = seed
        do {
            return (scenario, try ScenarioTypists(scenario: scenario, baseDirectory: baseDirectory))
        } catch {
            throw SweepFailure("\(error) (give --queries DIR)", kind: .unreadable)
        }
    }

    /// `metrics` with only the histograms the analysis reads.
    static func kept(_ metrics: MetricSet) -> MetricSet {
        var metrics = metrics
        metrics.histograms = metrics.histograms.filter { keptHistograms.contains($0.key) }
        return metrics
    }

    /// The setting as the strategy to simulate: the strategy's knobs, the grid's interval and length.
    static func strategy(_ setting: SweepPlan.Setting, name: String? = nil) -> ScenarioStrategy {
        var strategy = setting.strategy
        strategy.name = name ?? strategy.name
        strategy.debounceNanos = Int64(setting.debounceMs) * 1_000_000
        strategy.minimumLength = setting.minLength
        return strategy
    }

    /// One task per (population, replicate, setting), at most one per core; results are
    /// collected by index, so the record does not depend on the scheduling.
    static func inProcess(
        _ plan: SweepPlan, populations: [SweepPlan.PopulationPlan], settings: [SweepPlan.Setting], progress: @escaping @Sendable (String) -> Void
    ) async throws -> [MetricGroup] {
        struct Job: Sendable {
            var population: Int, replicate: Int, setting: Int
        }
        var prepared: [[(scenario: SimulationPlan, seed: UInt64, typists: ScenarioTypists)]] = []
        for population in populations {
            var replicates: [(SimulationPlan, UInt64, ScenarioTypists)] = []
            for index in 0..<plan.replicates {
                let seed = SweepPlan.replicateSeed(base: plan.baseSeed, replicate: index)
                let (scenario, typists) = try replicate(population, seed: seed, baseDirectory: plan.baseDirectory)
                replicates.append((VirtualWorkload.simulationPlan(scenario), seed, typists))
            }
            prepared.append(replicates)
        }
        let jobs = populations.indices.flatMap { p in (0..<plan.replicates).flatMap { r in settings.indices.map { Job(population: p, replicate: r, setting: $0) } } }
        let parallelism = Processors.active
        var results = [MetricSet?](repeating: nil, count: jobs.count)
        var finished = 0
        try await withThrowingTaskGroup(of: (Int, MetricSet).self) { group in
            var next = 0
            func launch() throws {
                let index = next, job = jobs[index]
                let (scenario, _, typists) = prepared[job.population][job.replicate]
                let setting = strategy(settings[job.setting])
                if setting.isPreset {
                    let spec = VirtualWorkload.simulationStrategy(setting)
                    group.addTask {
                        let recorder = Simulation.runStrategyCounting(spec, scenario: scenario, typists: 0..<scenario.typists) { range in
                            range.map(typists.session(forTypist:))
                        }.recorder
                        return (index, kept(recorder.metrics()))
                    }
                } else {
                    // A field of yours: its runs take turns on the virtual executors' one thread.
                    let field = try setting.field()
                    group.addTask {
                        let range = 0..<scenario.typists
                        let recorder = try await VirtualFieldRunner.run(
                            field, name: setting.name, typists: range, sessions: range.map(typists.session(forTypist:)),
                            backend: scenario.backend, seed: scenario.seed, parameters: setting.fieldParameters,
                            settleInterval: scenario.settleInterval)
                        return (index, kept(recorder.metrics()))
                    }
                }
                next += 1
            }
            while next < min(parallelism, jobs.count) { try launch() }
            while let (index, metrics) = try await group.next() {
                results[index] = metrics
                finished += 1
                if finished % max(1, jobs.count / 10) == 0 || finished == jobs.count {
                    progress("  \(finished)/\(jobs.count) grid runs done\n")
                }
                if next < jobs.count { try launch() }
            }
        }
        return jobs.enumerated().map { index, job in
            let seed = prepared[job.population][job.replicate].seed
            let setting = settings[job.setting]
            return MetricGroup(name: setting.strategy.name, labels: labels(populations[job.population], replicate: job.replicate, seed: seed, setting: setting),
                               metrics: results[index]!)
        }
    }

    /// The populations of a scenario that shares its backend (`backend.sharedAcrossStrategies`),
    /// typed together on the same modelled server cells: per replicate and setting one run of
    /// every population's typists, interleaved so each cell holds the mix's proportions, each
    /// population recorded on its own. Typist `j` of a population types what it types in the
    /// separate grid; the backend's draws follow the typist's place in the mixed run. In this
    /// process on every core, whatever `workers` says (the record is the same either way).
    static func inProcessShared(
        _ plan: SweepPlan, populations: [SweepPlan.PopulationPlan], settings: [SweepPlan.Setting], workers: Int,
        progress: @escaping @Sendable (String) -> Void
    ) async throws -> [MetricGroup] {
        if let field = settings.first(where: { !$0.strategy.isPreset }) {
            throw SweepFailure("strategy '\(field.strategy.name)': a sweep whose populations share the backend (backend.sharedAcrossStrategies) "
                + "runs presets only; sweep the field with sharedAcrossStrategies false", kind: .usage)
        }
        if workers > 1 { progress("the populations share the backend: the sweep runs in this process (--workers is not used)\n") }
        let order = SweepPlan.interleaved(populations.map { $0.scenario.population.typists })
        let groups = order.map { Int32($0.population) }
        var replicates: [(scenario: SimulationPlan, seed: UInt64, typists: [ScenarioTypists])] = []
        for index in 0..<plan.replicates {
            let seed = SweepPlan.replicateSeed(base: plan.baseSeed, replicate: index)
            var typists: [ScenarioTypists] = []
            var simulation: SimulationPlan?
            for population in populations {
                let (scenario, made) = try replicate(population, seed: seed, baseDirectory: plan.baseDirectory)
                typists.append(made)
                if simulation == nil { simulation = VirtualWorkload.simulationPlan(scenario) }
            }
            guard var mixed = simulation else { return [] }
            mixed.typists = order.count
            replicates.append((mixed, seed, typists))
        }
        let jobs = (0..<plan.replicates).flatMap { r in settings.indices.map { (replicate: r, setting: $0) } }
        var results = [[MetricSet]?](repeating: nil, count: jobs.count)
        var finished = 0
        await withTaskGroup(of: (Int, [MetricSet]).self) { group in
            var next = 0
            func launch() {
                let index = next, job = jobs[index]
                let (scenario, _, typists) = replicates[job.replicate]
                let spec = VirtualWorkload.simulationStrategy(strategy(settings[job.setting]))
                let count = populations.count
                group.addTask {
                    let recorders = Simulation.runStrategyGrouped(spec, scenario: scenario, typists: 0..<scenario.typists, groups: groups) { range in
                        range.map { typists[order[$0].population].session(forTypist: order[$0].typist) }
                    }
                    return (index, (0..<count).map { $0 < recorders.count ? kept(recorders[$0].metrics()) : MetricSet() })
                }
                next += 1
            }
            while next < min(Processors.active, jobs.count) { launch() }
            while let (index, metrics) = await group.next() {
                results[index] = metrics
                finished += 1
                if finished % max(1, jobs.count / 10) == 0 || finished == jobs.count {
                    progress("  \(finished)/\(jobs.count) grid runs done (every population at once, on shared servers)\n")
                }
                if next < jobs.count { launch() }
            }
        }
        var byJob: [String: MetricSet] = [:]
        for (index, job) in jobs.enumerated() {
            for p in populations.indices { byJob["\(p)/\(job.replicate)/\(job.setting)"] = results[index]![p] }
        }
        // The separate grid's order: population, replicate, setting.
        return populations.indices.flatMap { p in
            (0..<plan.replicates).flatMap { r in
                settings.indices.map { s in
                    MetricGroup(name: settings[s].strategy.name,
                                labels: labels(populations[p], replicate: r, seed: replicates[r].seed, setting: settings[s]),
                                metrics: byJob["\(p)/\(r)/\(s)"]!)
                }
            }
        }
    }

    /// Per population and replicate, one driver run whose strategies are the grid's settings,
    /// each worker taking a segment of the typists (so `typestorm worker` and `merge` can spread
    /// it over machines too). Typist i types the same keys as in the in-process grid.
    static func overWorkers(
        _ plan: SweepPlan, populations: [SweepPlan.PopulationPlan], settings: [SweepPlan.Setting], workers: Int,
        executable: String, toolVersion: String, progress: @escaping @Sendable (String) -> Void
    ) async throws -> [MetricGroup] {
        let fm = FileManager.default
        let directory = fm.temporaryDirectory.appendingPathComponent("typestorm-sweep-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: directory) }
        let pointName = { (index: Int) in "setting-\(index)" }
        var groups: [MetricGroup] = []
        var done = 0
        for population in populations {
            for replicateIndex in 0..<plan.replicates {
                let seed = SweepPlan.replicateSeed(base: plan.baseSeed, replicate: replicateIndex)
                var (derived, _) = try replicate(population, seed: seed, baseDirectory: plan.baseDirectory)
                derived.strategies = settings.indices.map { strategy(settings[$0], name: pointName($0)) }
                let file = directory.appendingPathComponent("\(derived.name)-\(replicateIndex).json").path
                try Data(derived.canonicalJSON.prettyCanonical.utf8).write(to: URL(fileURLWithPath: file))
                let outcome = await Driver(DriverConfiguration(
                    scenario: derived, scenarioFile: file, baseDirectory: directory.path, workers: min(workers, derived.population.typists),
                    executable: executable, toolVersion: toolVersion, handleSignals: false)).run()
                if outcome.isPartial {
                    throw SweepFailure("sweep of \(population.label) (replicate \(replicateIndex)) did not complete: \(outcome.record.problems.joined(separator: "; "))", kind: .failed)
                }
                for (index, setting) in settings.enumerated() {
                    guard let group = outcome.record.groups.first(where: { $0.name == pointName(index) }) else {
                        throw SweepFailure("sweep of \(population.label): no result for grid point \(pointName(index))", kind: .failed)
                    }
                    var metrics = group.metrics
                    metrics.histograms = metrics.histograms.filter { keptHistograms.contains($0.key) }
                    groups.append(MetricGroup(name: setting.strategy.name, labels: labels(population, replicate: replicateIndex, seed: seed, setting: setting),
                                              metrics: metrics))
                }
                done += 1
                progress("  \(done)/\(populations.count * plan.replicates) population replicates done\n")
            }
        }
        return groups
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
