import FieldRuntime
import JSONReading
import TypestormMetrics
import SearchField
import Typists

/// Everything one virtual-time run depends on: what the tool makes of a ``Scenario``'s
/// population, strategies and backend for the simulator (or what you give it to run sessions of
/// your own, such as recorded traces). Same plan, same seed: same bytes out.
public struct SimulationPlan: Sendable {
    /// The run's name in the record.
    public var name: String
    /// Typists simulated (global indices `0..<typists`).
    public var typists: Int
    /// The seed every random draw derives from.
    public var seed: UInt64
    /// The strategies to run, each over every typist, each in its own group.
    public var strategies: [StrategySpec]
    /// The modelled network and server.
    public var backend: BackendModel
    /// What types: a canonical text of the inputs of the typists' sessions (population mix,
    /// queries per session, query lists). The sessions themselves are given to `run`; this text
    /// puts their inputs into the hash.
    public var typing: String
    /// S in docs/metrics.md: a burst ends once the input stays unchanged this long (1 s).
    public var settleInterval: Duration { .nanoseconds(settleIntervalNanos) }
    /// ``settleInterval`` in nanoseconds, as the runner keeps time.
    package var settleIntervalNanos: Int64 = 1_000_000_000

    /// A plan; by default every preset with its default knobs and the default ``BackendModel``.
    public init(
        name: String = "simulate", typists: Int, seed: UInt64, strategies: [StrategySpec] = Preset.allCases.map { StrategySpec(preset: $0) },
        backend: BackendModel = BackendModel(), typing: String = ""
    ) {
        self.name = name
        self.typists = typists
        self.seed = seed
        self.strategies = strategies
        self.backend = backend
        self.typing = typing
    }

    /// Every input as canonical JSON (members sorted, no whitespace), hashed into the run record
    /// so that records of different scenarios never merge.
    public var canonicalJSON: String {
        let b = backend
        let scripted = b.scriptedNanos.keys.sorted().map { "\($0)=\(b.scriptedNanos[$0]!)" }.joined(separator: ",")
        let strategies: [JSONValue] = strategies.map {
            .object([("name", .string($0.name)), ("preset", .string($0.preset.rawValue)), ("configuration", .string($0.configuration.canonicalDescription))])
        }
        let backendJSON: JSONValue = .object([
            ("rtt", .string("\(b.roundTrip)")), ("workers", .number("\(b.workers)")), ("cell", .number("\(b.typistsPerServer)")),
            ("service", .string("\(b.service)")), ("tail", .string("\(b.slowTailProbability)x\(b.slowTailFactor)")),
            ("errors", .string("\(b.errorRate),\(b.transportErrorRate)")), ("timeout", .string(String(describing: b.timeoutNanos))),
            ("cancel", .string("\(b.cancellation)")), ("local", .string("\(b.localCatalogItems)x\(b.localNanosPerItem)")),
            ("scripted", .string("\(scripted);\(String(describing: b.scriptedDefaultNanos))")),
        ])
        return JSONValue.object([
            ("name", .string(name)), ("typists", .number("\(typists)")), ("seed", .number("\(seed)")), ("strategies", .array(strategies)),
            ("backend", backendJSON), ("typing", .string(typing)), ("settle", .number("\(settleIntervalNanos)")),
        ]).canonical
    }

    /// The record's scenario hash: the first 16 hex digits of the SHA-256 of ``canonicalJSON``,
    /// as for a scenario read from a file.
    public var hash: String {
        SHA256.scenarioHash(canonicalJSON: canonicalJSON)
    }
}

/// Runs scenarios in virtual time.
public enum Simulation {
    /// The global typist indices of segment `index`/`count`: whole server cells, split as evenly
    /// as cells allow, so that the segments' records merge into exactly the unsharded record.
    public static func typistRange(of segment: Segment, typists: Int, typistsPerServer: Int) -> Range<Int> {
        let perCell = max(1, typistsPerServer)
        let cellCount = (typists + perCell - 1) / perCell
        let firstCell = cellCount * segment.index / segment.count
        let endCell = cellCount * (segment.index + 1) / segment.count
        return min(typists, firstCell * perCell)..<min(typists, endCell * perCell)
    }

    /// Runs every strategy of the scenario over typists made by `sessions` (given global indices
    /// of the segment, one server cell at a time as the run reaches it; each session must derive
    /// only from the scenario seed and its index): the Typists module's population, or traces.
    public static func run<Session: TypistSession>(
        _ scenario: SimulationPlan, segment: Segment = Segment(index: 0, count: 1), toolVersion: String,
        sessions: (Range<Int>) -> [Session], progress: ((String) -> Void)? = nil
    ) -> RunRecord {
        record(scenario, segment: segment, toolVersion: toolVersion, sessions: sessions, progress: progress)
    }

    /// `run` for the Typists population's sessions: the same run, its hot loop specialised here
    /// for `DeadlineSession<GeneratedSession>` (a generic call from another module runs
    /// unspecialised, looking up generic metadata per event).
    public static func run(
        _ scenario: SimulationPlan, segment: Segment = Segment(index: 0, count: 1), toolVersion: String,
        sessions: (Range<Int>) -> [DeadlineSession<GeneratedSession>], progress: ((String) -> Void)? = nil
    ) -> RunRecord {
        record(scenario, segment: segment, toolVersion: toolVersion, sessions: sessions, progress: progress)
    }

    static func record<Session: TypistSession>(
        _ scenario: SimulationPlan, segment: Segment, toolVersion: String,
        sessions: (Range<Int>) -> [Session], progress: ((String) -> Void)?
    ) -> RunRecord {
        let range = typistRange(of: segment, typists: scenario.typists, typistsPerServer: scenario.backend.typistsPerServer)
        var record = RunRecord(metadata: RunMetadata(
            toolVersion: toolVersion, scenarioName: scenario.name, scenarioHash: scenario.hash,
            seed: scenario.seed, runner: "virtual", segments: [segment]))
        for spec in scenario.strategies {
            progress?(spec.name)
            let recorder = strategyCounting(spec, scenario: scenario, typists: range, sessions: sessions).recorder
            try? record.add(MetricGroup(name: spec.name, labels: ["runner": "virtual"], metrics: recorder.metrics()))
        }
        return record
    }

    /// Runs one strategy over the typists `typists` (global indices) that `sessions` makes (called
    /// once per server cell, with that cell's global indices); also returns how many events the
    /// runner processed.
    ///
    /// Dispatches on the preset to concrete strategy types, so the runner's hot loop is
    /// specialized for each one instead of going through witness tables per event.
    package static func runStrategyCounting<Session: TypistSession>(
        _ spec: StrategySpec, scenario: SimulationPlan, typists: Range<Int>, sessions: (Range<Int>) -> [Session]
    ) -> (recorder: Recorder, events: Int) {
        strategyCounting(spec, scenario: scenario, typists: typists, sessions: sessions)
    }

    /// `runStrategyCounting` for the Typists population's sessions (`simulate`, `sweep`, the
    /// virtual runner, the benchmark): the same run, its hot loop specialised here for
    /// `DeadlineSession<GeneratedSession>`.
    package static func runStrategyCounting(
        _ spec: StrategySpec, scenario: SimulationPlan, typists: Range<Int>,
        sessions: (Range<Int>) -> [DeadlineSession<GeneratedSession>]
    ) -> (recorder: Recorder, events: Int) {
        strategyCounting(spec, scenario: scenario, typists: typists, sessions: sessions)
    }

    static func strategyCounting<Session: TypistSession>(
        _ spec: StrategySpec, scenario: SimulationPlan, typists: Range<Int>, sessions: (Range<Int>) -> [Session]
    ) -> (recorder: Recorder, events: Int) {
        withoutActuallyEscaping(sessions) { sessions in
            spec.preset.visit(spec.configuration, Counting(scenario: scenario, sessions: sessions, typists: typists))
        }
    }

    /// `runStrategyCounting` with the typists in groups that share the server cells but are
    /// recorded apart: `groups[i]` is the group of typist `typists.lowerBound + i`; returns one
    /// recorder per group (0 up to the largest group given). A mixed population on one API,
    /// each part measured on its own (`typestorm sweep` of a scenario whose populations share).
    package static func runStrategyGrouped(
        _ spec: StrategySpec, scenario: SimulationPlan, typists: Range<Int>, groups: [Int32],
        sessions: (Range<Int>) -> [DeadlineSession<GeneratedSession>]
    ) -> [Recorder] {
        withoutActuallyEscaping(sessions) { sessions in
            spec.preset.visit(spec.configuration, Grouped(scenario: scenario, sessions: sessions, typists: typists, groups: groups))
        }
    }

    struct Grouped<Session: TypistSession>: PresetVisitor {
        let scenario: SimulationPlan
        let sessions: (Range<Int>) -> [Session]
        let typists: Range<Int>
        let groups: [Int32]

        func visit<Strategy: SearchFieldStrategy>(_ prototype: Strategy) -> [Recorder] {
            let first = typists.lowerBound
            var runner = VirtualRunner(strategy: prototype, globalIndices: Array(typists), backend: scenario.backend, seed: scenario.seed,
                                       settleIntervalNanos: scenario.settleIntervalNanos, groups: groups) { local in
                sessions((first + local.lowerBound)..<(first + local.upperBound))
            }
            _ = runner.run()
            return runner.recorders
        }
    }

    /// Runs the preset's strategy at its concrete type (the hot loop specialised for it).
    struct Counting<Session: TypistSession>: PresetVisitor {
        let scenario: SimulationPlan
        let sessions: (Range<Int>) -> [Session]
        let typists: Range<Int>

        func visit<Strategy: SearchFieldStrategy>(_ strategy: Strategy) -> (recorder: Recorder, events: Int) {
            runCounting(strategy, scenario: scenario, sessions: sessions, typists: typists)
        }
    }

    /// Runs one strategy value over the typists `typists` (global indices) that `sessions` makes.
    /// An `any SearchFieldStrategy` is opened here and runs unspecialised; the presets' own path
    /// is `runStrategy(_: StrategySpec, …)`, which switches on the preset once.
    public static func runStrategy<Strategy: SearchFieldStrategy, Session: TypistSession>(
        _ prototype: Strategy, scenario: SimulationPlan, typists: Range<Int>, sessions: (Range<Int>) -> [Session]
    ) -> Recorder {
        withoutActuallyEscaping(sessions) { sessions in
            runCounting(prototype, scenario: scenario, sessions: sessions, typists: typists).recorder
        }
    }

    /// Makes the sessions cell by cell as the runner reaches each server cell (`sessions` gets
    /// global indices), so a run holds one cell's sessions at a time, not every typist's.
    static func runCounting<Strategy: SearchFieldStrategy, Session: TypistSession>(
        _ prototype: Strategy, scenario: SimulationPlan, sessions: @escaping (Range<Int>) -> [Session], typists: Range<Int>
    ) -> (recorder: Recorder, events: Int) {
        let first = typists.lowerBound
        var runner = VirtualRunner(strategy: prototype, globalIndices: Array(typists), backend: scenario.backend, seed: scenario.seed,
                                   settleIntervalNanos: scenario.settleIntervalNanos) { local in
            sessions((first + local.lowerBound)..<(first + local.upperBound))
        }
        let recorder = runner.run()
        return (recorder, runner.eventsProcessed)
    }

    /// Replays one trace through one strategy; `observer` sees the timeline.
    public static func replay<Strategy: SearchFieldStrategy>(
        _ events: [TypingEvent], strategy: Strategy, backend: BackendModel, seed: UInt64,
        observer: ((Int64, TimelineEntry) -> Void)? = nil
    ) -> Recorder {
        let sessions = [TraceSession(events: events)]
        var runner = VirtualRunner(strategy: strategy, globalIndices: [0], backend: backend, seed: seed,
                                   settleIntervalNanos: 1_000_000_000) { _ in sessions }
        return runner.run(observer: observer.map { observe in { time, _, entry in observe(time, entry) } })
    }
}
