import FieldHarness
import Foundation
import SearchField

/// What a debounce sweep runs: the strategies, the interval × minimum-length grid, the typist
/// populations of the scenario's mix, and how many independent replicates of each.
///
/// Every replicate draws new typists and backend times from its own seed
/// (`replicateSeed(base:replicate:)`); within a replicate every grid point types the same keys
/// against the same backend draws (common random numbers), so differences between grid points
/// are measured with less noise than the points themselves.
package struct SweepPlan: Sendable {
    /// One setting an app could ship: a strategy with an interval and a minimum query length.
    package struct Setting: Sendable, Hashable {
        package var strategy: ScenarioStrategy
        package var debounceMs: Int
        package var minLength: Int

        package static func == (a: Setting, b: Setting) -> Bool {
            a.strategy.name == b.strategy.name && a.debounceMs == b.debounceMs && a.minLength == b.minLength
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(strategy.name)
            hasher.combine(debounceMs)
            hasher.combine(minLength)
        }
    }

    /// One (device, language) entry of the scenario's mix, typed on its own.
    package struct PopulationPlan: Sendable {
        /// `desktop-en`, `mobile-ko`, ...
        package var label: String
        /// The entry's share of the scenario's mix (the weight of the population in `all`).
        package var share: Double
        /// The scenario restricted to this population (one mix entry, the virtual runner).
        package var scenario: Scenario
    }

    package var scenario: Scenario
    package var strategies: [ScenarioStrategy]
    package var debounceMs: [Int]
    /// `nil`: each strategy's own minimum length.
    package var minLengths: [Int]?
    package var replicates: Int
    package var baseSeed: UInt64
    /// Typists per population and replicate; `nil`: the scenario's share of its typists, at least 50.
    package var typistsPerPopulation: Int?
    /// The query lists the typists draw from (absolute, or relative to `baseDirectory`).
    package var queriesDirectory: String
    package var baseDirectory: String

    package init(scenario: Scenario, strategies: [ScenarioStrategy], debounceMs: [Int], minLengths: [Int]?, replicates: Int,
                baseSeed: UInt64, typistsPerPopulation: Int?, queriesDirectory: String, baseDirectory: String) {
        self.scenario = scenario
        self.strategies = strategies
        self.debounceMs = debounceMs
        self.minLengths = minLengths
        self.replicates = replicates
        self.baseSeed = baseSeed
        self.typistsPerPopulation = typistsPerPopulation
        self.queriesDirectory = queriesDirectory
        self.baseDirectory = baseDirectory
    }

    /// The grid: per strategy, its minimum lengths × the intervals.
    package var settings: [Setting] {
        strategies.flatMap { strategy in
            let lengths = minLengths ?? [strategy.minimumLength ?? Self.defaultMinimumLength(strategy)]
            return lengths.flatMap { length in debounceMs.map { Setting(strategy: strategy, debounceMs: $0, minLength: length) } }
        }
    }

    /// The minimum length a strategy has when the grid does not vary it: its preset's, or the
    /// one its field of yours declares.
    static func defaultMinimumLength(_ strategy: ScenarioStrategy) -> Int {
        strategy.isPreset ? VirtualWorkload.simulationStrategy(strategy).configuration.normalizer.minimumLength
            : FieldRegistry.field(named: strategy.preset)?.minimumLength ?? 0
    }

    /// One population per mix entry, each typed by the Typists models for its device and
    /// language as the driver types it (sessions cut at the scenario's maxLength).
    package var populations: [PopulationPlan] {
        let queries = URL(fileURLWithPath: queriesDirectory, relativeTo: URL(fileURLWithPath: baseDirectory)).standardizedFileURL.path
        return scenario.population.mix.map { entry in
            let label = "\(entry.device.rawValue)-\(entry.language.rawValue)"
            let count = typistsPerPopulation ?? max(50, Int((entry.share * Double(scenario.population.typists)).rounded()))
            var derived = scenario
            derived.name = "\(scenario.name)-sweep-\(label)"
            derived.population.mix = [Population.MixEntry(device: entry.device, language: entry.language, share: 1)]
            derived.population.typists = count
            derived.population.queryLists = queries
            derived.runners = [.virtual]
            derived.thresholds = []
            return PopulationPlan(label: label, share: entry.share, scenario: derived)
        }
    }

    /// The scenario's populations share the backend's servers (`backend.sharedAcrossStrategies`:
    /// a mixed population sharing capacity), so the sweep types them together on shared cells.
    package var sharesCapacity: Bool { scenario.backend.sharedAcrossStrategies }

    /// The typists of populations of `counts` typists in one mixed run: each population's typists
    /// spread evenly through it (typist `j` of a population of `n` at `(j + ½) / n` of the way),
    /// so every server cell holds the mix's proportions. Ties go to the earlier population.
    package static func interleaved(_ counts: [Int]) -> [(population: Int, typist: Int)] {
        counts.enumerated().flatMap { population, count in (0..<count).map { (population: population, typist: $0) } }
            .sorted { a, b in
                // (j + ½)/n compared exactly: (2j + 1)·m against (2k + 1)·n.
                let left = (2 * a.typist + 1) * counts[b.population], right = (2 * b.typist + 1) * counts[a.population]
                return left != right ? left < right : a.population < b.population
            }
    }

    /// The seed of replicate `replicate`: replicate 0 runs on the base seed itself, the others on
    /// SplitMix64 steps from it, so replicates are independent and any one can be rerun alone.
    package static func replicateSeed(base: UInt64, replicate: Int) -> UInt64 {
        guard replicate > 0 else { return base }
        var z = base &+ UInt64(replicate) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The strategies named by `--strategies`: a strategy of the scenario by name (with its
    /// knobs), else a preset with its default knobs. Without names: the scenario's `split-state`
    /// strategy, else the `split-state` preset.
    package static func strategies(named names: [String]?, in scenario: Scenario) throws(SweepFailure) -> [ScenarioStrategy] {
        guard let names, !names.isEmpty else {
            return [scenario.strategies.first { $0.name == Preset.splitState.rawValue }
                ?? scenario.strategies.first { $0.preset == Preset.splitState.rawValue }
                ?? ScenarioStrategy(preset: Preset.splitState.rawValue)]
        }
        var chosen: [ScenarioStrategy] = []
        for name in names where !chosen.contains(where: { $0.name == name }) {
            if let spec = scenario.strategies.first(where: { $0.name == name }) {
                chosen.append(spec)
            } else if ScenarioStrategy.presets.contains(name) || FieldRegistry.field(named: name) != nil {
                chosen.append(ScenarioStrategy(preset: name))
            } else {
                let known = Array(Set(scenario.strategies.map(\.name) + ScenarioStrategy.presets + FieldRegistry.names)).sorted()
                throw SweepFailure("invalid value '\(name)' for option '--strategies': expected a strategy of the scenario or a preset: \(known.joined(separator: ", "))",
                                   kind: .usage)
            }
        }
        return chosen
    }
}

/// Why a sweep could not run, and which kind of problem it is (the command maps it to an exit code).
package struct SweepFailure: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable { case usage, badData, unreadable, failed }
    package var message: String
    package var kind: Kind
    package init(_ message: String, kind: Kind) {
        self.message = message
        self.kind = kind
    }
    package var description: String { message }
}
