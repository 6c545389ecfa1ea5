import Diagnostics
import Orchestration
import SearchField
import Simulation
import TypestormMetrics

extension Simulation {
    /// Types `population` into each of `strategies` in virtual time against the modelled
    /// `backend`, and returns what the recorder measured: one ``MetricGroup`` per strategy.
    ///
    /// The same population, strategies, backend and seed give the same record, byte for byte;
    /// it is what `typestorm simulate` and the `virtual` runner of a scenario compute. Print it
    /// with ``StrategyComparison/table(_:)-(RunRecord)``; read single figures through
    /// ``DerivedMetrics`` and the histograms of ``MetricSet`` (names in ``MetricName``).
    ///
    /// The typists search for the shipped query lists unless `population.queryLists` names a
    /// directory of your own (`en.txt`, `ko.txt`, `zh.txt`, `zh-pinyin.txt`).
    ///
    /// - Throws: ``ScenarioError`` naming every problem (no typists, an empty mix, a share out
    ///   of range, no strategy, two strategies under one name, an unknown preset) before
    ///   anything runs.
    public static func run(
        _ population: Population, strategies: [ScenarioStrategy], backend: ScenarioBackend = ScenarioBackend(), seed: UInt64 = 1
    ) throws -> RunRecord {
        try validate(population, strategies)
        let typists = try ScenarioTypists(population: population, seed: seed, baseDirectory: ".")
        let scenario = SimulationPlan(
            typists: population.typists, seed: seed, strategies: strategies.map(VirtualWorkload.simulationStrategy),
            backend: backend.model(for: population), typing: VirtualWorkload.typing(population))
        return run(scenario, toolVersion: ToolVersion.current, sessions: { $0.map(typists.session(forTypist:)) })
    }

    private static func validate(_ population: Population, _ strategies: [ScenarioStrategy]) throws(ScenarioError) {
        var issues: [ScenarioError.Issue] = []
        if population.typists < 1 {
            issues.append(.init(path: "population.typists", message: "expected at least 1 typist, found \(population.typists)"))
        }
        if population.mix.isEmpty {
            issues.append(.init(path: "population.mix", message: "expected at least one device and language"))
        }
        for (index, entry) in population.mix.enumerated() where !(entry.share > 0 && entry.share <= 1) {
            issues.append(.init(path: "population.mix[\(index)].share", message: "expected a number greater than 0 and at most 1, found \(entry.share)"))
        }
        if population.queriesPerSession < 1 {
            issues.append(.init(path: "population.queriesPerSession", message: "expected at least 1, found \(population.queriesPerSession)"))
        }
        if strategies.isEmpty {
            issues.append(.init(path: "strategies", message: "expected at least one strategy"))
        }
        var names = Set<String>()
        for (index, strategy) in strategies.enumerated() {
            if !names.insert(strategy.name).inserted {
                issues.append(.init(path: "strategies[\(index)].name", message: "'\(strategy.name)' names two strategies; give one a name of its own"))
            }
            if let problem = ScenarioStrategy.unknownPreset(strategy.preset) {
                issues.append(.init(path: "strategies[\(index)].preset", message: problem))
            }
        }
        if !issues.isEmpty { throw ScenarioError(issues: issues) }
    }
}

extension ScenarioStrategy {
    /// A preset (`naive`, `split-state`, … : docs/strategies.md) with the knobs you set; the
    /// others keep the preset's defaults. It is reported under `name`, else the preset's name.
    ///
    /// - Throws: ``ScenarioError`` for an unknown preset (with the nearest name), a negative
    ///   interval or a minimum length below 0.
    public init(
        _ preset: String, name: String? = nil, debounce: Duration? = nil, minimumLength: Int? = nil,
        trims: Bool? = nil, stalledDelay: Duration? = nil
    ) throws(ScenarioError) {
        var issues: [ScenarioError.Issue] = []
        if let problem = Self.unknownPreset(preset) { issues.append(.init(path: "preset", message: problem)) }
        let debounceNanos = try debounce.map { d throws(ScenarioError) in try Int64.nanoseconds(d, "debounce") }
        let stalledNanos = try stalledDelay.map { d throws(ScenarioError) in try Int64.nanoseconds(d, "stalledDelay") }
        if let minimumLength, minimumLength < 0 {
            issues.append(.init(path: "minimumLength", message: "expected 0 or more characters, found \(minimumLength)"))
        }
        if !issues.isEmpty { throw ScenarioError(issues: issues) }
        self.init(name: name, preset: preset, debounceNanos: debounceNanos, minimumLength: minimumLength, trim: trims,
                  stalledDelayNanos: stalledNanos)
    }

    /// Why `preset` names no preset, with the nearest one; `nil` when it names one.
    static func unknownPreset(_ preset: String) -> String? {
        guard Preset(rawValue: preset) == nil else { return nil }
        let names = Preset.allCases.map(\.rawValue)
        let hint = Suggestion.closest(to: preset, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        return "no preset is called '\(preset)'\(hint); the presets: \(names.joined(separator: ", "))"
    }
}

extension ScenarioBackend {
    /// The modelled backend with its times as durations: `workers` servers per cell of
    /// `typistsPerServer` typists, a log-normal service time through `serviceMedian` and
    /// `serviceP99` (7.5 times the median when not given, the shape of the default backend), a
    /// network round trip, and what the server does with a cancelled request. `ScenarioBackend()`
    /// is the scenarios' default backend.
    ///
    /// - Throws: ``ScenarioError`` for a negative time, a p99 below the median, fewer than one
    ///   worker or an error rate outside 0...1.
    public init(
        workers: Int = 4, typistsPerServer: Int = 100, serviceMedian: Duration, serviceP99: Duration? = nil,
        networkRoundTrip: Duration,
        cancellation: Cancellation = .honoured, errorRate: Double = 0, timeout: Duration = .seconds(5)
    ) throws(ScenarioError) {
        var issues: [ScenarioError.Issue] = []
        if workers < 1 { issues.append(.init(path: "workers", message: "expected at least 1, found \(workers)")) }
        if typistsPerServer < 1 { issues.append(.init(path: "typistsPerServer", message: "expected at least 1, found \(typistsPerServer)")) }
        if !(0...1).contains(errorRate) { issues.append(.init(path: "errorRate", message: "expected a share 0...1, found \(errorRate)")) }
        let serviceP99 = serviceP99 ?? serviceMedian * 7.5
        for (field, duration) in [("serviceMedian", serviceMedian), ("serviceP99", serviceP99), ("networkRoundTrip", networkRoundTrip), ("timeout", timeout)]
        where duration < .zero {
            issues.append(.init(path: field, message: "expected a duration of 0 or more, found \(duration)"))
        }
        if issues.isEmpty, serviceP99 < serviceMedian {
            issues.append(.init(path: "serviceP99", message: "expected at least the median service time (\(serviceMedian)), found \(serviceP99)"))
        }
        if !issues.isEmpty { throw ScenarioError(issues: issues) }
        self.init(
            workers: workers, typistsPerServer: typistsPerServer,
            serviceMedianNanos: try .nanoseconds(serviceMedian, "serviceMedian"), serviceP99Nanos: try .nanoseconds(serviceP99, "serviceP99"),
            networkRoundTripNanos: try .nanoseconds(networkRoundTrip, "networkRoundTrip"), cancellation: cancellation,
            errorRate: errorRate, timeoutNanos: try .nanoseconds(timeout, "timeout"))
    }
}

extension Int64 {
    /// `duration` in whole nanoseconds; a negative or unrepresentable one is an error naming `field`.
    fileprivate static func nanoseconds(_ duration: Duration, _ field: String) throws(ScenarioError) -> Int64 {
        guard duration >= .zero, duration < .seconds(9_000_000_000) else {
            throw ScenarioError(issues: [.init(path: field, message: "expected a duration of 0 or more (below 285 years), found \(duration)")])
        }
        return duration.wholeNanoseconds
    }
}
