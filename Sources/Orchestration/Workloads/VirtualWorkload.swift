import FieldHarness
import FieldRuntime
import TypestormMetrics
import SearchField
import Simulation

/// The `virtual` runner: Simulation's discrete-event runner over the modelled backend.
///
/// Runs strategy after strategy over the typists of the segment. The segment is split on whole
/// server cells (`Simulation.typistRange`), not round-robin: typists of one cell share a modelled
/// server, and only whole cells make the merged segments equal the unsharded run. For the same
/// reason each strategy runs in chunks of whole cells, merged as they finish: the result is the
/// same as one pass, and progress and stop requests come every chunk instead of every strategy.
///
/// Typists come from the Typists module (`ScenarioTypists`: the scenario's device and language
/// mix, `queries` per session, sessions cut at `maxLength`). Arrival `stages` apply here as in the
/// live runners (typists arrive and leave on the schedule, typing stops at the phase duration);
/// the other arrival processes apply to the live runners only, every virtual typist starting at 0.
public struct VirtualWorkload: PhaseWorkload {
    /// The smallest chunk (see `chunks`); tests lower it to run many chunks on few typists.
    var minimumChunkTypists = 2_000
    /// Built before the phase by `prepared` (else at the start of `run`).
    var typists: ScenarioTypists?

    /// The virtual runner, ready for any scenario.
    public init() {}

    init(minimumChunkTypists: Int) {
        self.minimumChunkTypists = minimumChunkTypists
    }

    package func run(_ context: PhaseContext) async throws -> [MetricGroup] {
        let simulation = Self.simulationPlan(context.scenario)
        let range = Simulation.typistRange(of: context.segment, typists: simulation.typists,
                                           typistsPerServer: simulation.backend.typistsPerServer)
        let chunks = Self.chunks(of: range, typistsPerServer: simulation.backend.typistsPerServer, minimumTypists: minimumChunkTypists)
        let typists = try self.typists ?? ScenarioTypists(scenario: context.scenario, baseDirectory: context.baseDirectory)
        let schedule = Self.schedule(context.scenario)
        let end = context.scenario.durationNanos
        var groups: [MetricGroup] = []
        for strategy in context.scenario.strategies {
            var group = MetricGroup(name: strategy.name, labels: context.labels)
            let field = strategy.isPreset ? nil : try strategy.field()
            let spec = strategy.isPreset ? Self.simulationStrategy(strategy) : nil
            for chunk in chunks {
                if context.progress.isStopRequested { return groups }
                let recorder: Recorder
                if let field {
                    // A field of yours: the same typists, backend and cells, on the virtual executors.
                    recorder = if let schedule {
                        try await VirtualFieldRunner.run(
                            field, name: strategy.name, typists: chunk,
                            sessions: chunk.map { ScheduledSession(typists.typing(forTypist: $0), typist: $0, schedule: schedule, end: end) },
                            backend: simulation.backend, seed: simulation.seed, parameters: strategy.fieldParameters,
                            settleInterval: simulation.settleInterval)
                    } else {
                        try await VirtualFieldRunner.run(
                            field, name: strategy.name, typists: chunk, sessions: chunk.map(typists.session(forTypist:)),
                            backend: simulation.backend, seed: simulation.seed, parameters: strategy.fieldParameters,
                            settleInterval: simulation.settleInterval)
                    }
                } else if let spec {
                    // Without a schedule every typist types its one session from 0, uncut by the
                    // phase: the sessions as drawn, on Simulation's specialised path for them.
                    recorder = if let schedule {
                        Simulation.runStrategyCounting(spec, scenario: simulation, typists: chunk) { range in
                            range.map { ScheduledSession(typists.typing(forTypist: $0), typist: $0, schedule: schedule, end: end) }
                        }.recorder
                    } else {
                        Simulation.runStrategyCounting(spec, scenario: simulation, typists: chunk) { range in
                            range.map(typists.session(forTypist:))
                        }.recorder
                    }
                } else {
                    continue
                }
                // A field of yours is recorded by slot (from 0 in the chunk); examples name the
                // population's typists. Simulation's recorder knows them already (VirtualRunner
                // gives it the global indices), so its examples are left as they are.
                var metrics = recorder.metrics()
                if field != nil { metrics.renumberExampleTypists { chunk.lowerBound + $0 } }
                try group.metrics.merge(metrics)
                context.progress.publish(groups: groups + [group], typistsActive: 0)
            }
            groups.append(group)
        }
        return groups
    }

    /// The arrivals virtual time follows: those of `stages`, else none (every typist at 0).
    static func schedule(_ scenario: Scenario) -> ArrivalSchedule? {
        guard case .stages = scenario.population.arrival else { return nil }
        return ArrivalSchedule(population: scenario.population, seed: scenario.seed)
    }

    package func prepared(_ resources: WorkloadResources) throws -> any PhaseWorkload {
        var workload = self
        workload.typists = try resources.typists()
        return workload
    }

    /// Up to 16 pieces of `range`, each a run of whole server cells of at least
    /// `minimumTypists` typists: every chunk costs a runner and a recorder (with its histograms),
    /// so small ones would make sharded runs spend more CPU than one pass.
    static func chunks(of range: Range<Int>, typistsPerServer: Int, minimumTypists: Int = 2_000) -> [Range<Int>] {
        let perCell = max(1, typistsPerServer)
        let cells = (range.count + perCell - 1) / perCell
        let cellsPerChunk = max(1, (cells + 15) / 16, (minimumTypists + perCell - 1) / perCell)
        return stride(from: range.lowerBound, to: range.upperBound, by: cellsPerChunk * perCell).map {
            $0..<min(range.upperBound, $0 + cellsPerChunk * perCell)
        }
    }

    /// The scenario in Simulation's terms: the one mapping of a scenario's backend and
    /// strategies to the simulator's, shared by the driver and `typestorm sweep`.
    public static func simulationPlan(_ scenario: Scenario) -> SimulationPlan {
        let backend = scenario.backend.model(for: scenario.population)
        return SimulationPlan(
            name: scenario.name, typists: scenario.population.typists, seed: scenario.seed,
            strategies: scenario.strategies.filter(\.isPreset).map(simulationStrategy), backend: backend,
            typing: typing(scenario.population))
    }

    /// The population as `SimulationPlan.typing` describes it: its canonical JSON.
    public static func typing(_ population: Population) -> String {
        population.json.canonical
    }

    /// The simulator's ``StrategySpec`` for a scenario strategy of a preset: the preset's default
    /// configuration with the scenario's knobs applied.
    public static func simulationStrategy(_ spec: ScenarioStrategy) -> StrategySpec {
        // The reader only accepts preset names that SearchField defines (and fields of yours,
        // which never come here).
        let preset = Preset(rawValue: spec.preset)!
        var configuration = preset.defaultConfiguration
        if let debounce = spec.debounceNanos { configuration.debounceNanos = debounce }
        if let minimum = spec.minimumLength { configuration.normalizer.minimumLength = minimum }
        if let trim = spec.trim { configuration.normalizer.trims = trim }
        if let stalled = spec.stalledDelayNanos { configuration.stalledDelayNanos = stalled }
        if let cache = spec.cacheSize { configuration.cacheCapacity = cache }
        if let writeBack = spec.writeBack { configuration.writeBack = writeBack }
        return StrategySpec(name: spec.name, preset: preset, configuration: configuration)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ScenarioBackend {
    /// The scenario's backend in the simulator's terms: the one mapping, used by the virtual
    /// runner, the live modelled backend, `typestorm simulate` and `typestorm sweep`.
    ///
    /// The service time is log-normal through the median and the p99 (p99 = median · e^(2.326 σ)),
    /// constant when they are equal; the round trip log-normal with σ `networkRTTSpread`.
    public var model: BackendModel {
        let sigma = serviceP99Nanos > serviceMedianNanos && serviceMedianNanos > 0
            ? log(Double(serviceP99Nanos) / Double(serviceMedianNanos)) / 2.326 : 0
        let cancellation: CancellationMode = switch self.cancellation {
        case .honoured: .honoured(delay: cancelDelayNanos)
        case .clientOnly: .clientOnly
        case .ignored: .ignored
        }
        return BackendModel(
            roundTrip: networkRTTSpread > 0 ? .logNormal(median: networkRoundTripNanos, sigma: networkRTTSpread) : .constant(networkRoundTripNanos),
            workers: workers, typistsPerServer: typistsPerServer,
            service: .distribution(sigma > 0 ? .logNormal(median: serviceMedianNanos, sigma: sigma) : .constant(serviceMedianNanos)),
            slowTailProbability: slowTailProbability, slowTailFactor: slowTailFactor,
            errorRate: errorRate, transportErrorRate: transportErrorRate, timeoutNanos: timeoutNanos, cancellation: cancellation,
            localCatalogItems: localItems, localNanosPerItem: localNanosPerItem)
    }
}

extension ScenarioStrategy {
    /// The field of yours this strategy names, with the scenario's minimum length (what
    /// staleness is measured against) when it gives one.
    func field() throws -> FieldDefinition {
        guard var definition = FieldRegistry.field(named: preset) else {
            throw FieldRunError(description: """
            strategy '\(name)': '\(preset)' is neither a preset nor a field of this executable (fields: \
            \(FieldRegistry.names.isEmpty ? "none" : FieldRegistry.names.joined(separator: ", ")))
            """)
        }
        if let minimumLength { definition.minimumLength = minimumLength }
        return definition
    }

    /// What a field's factory reads: `parameters`, and `debounce` and `minLength` as the
    /// parameters `debounce` and `min-length`.
    var fieldParameters: FieldParameters {
        var values = parameters
        if let debounceNanos { values["debounce"] = "\(debounceNanos)ns" }
        if let minimumLength { values["min-length"] = "\(minimumLength)" }
        return FieldParameters(values)
    }
}
