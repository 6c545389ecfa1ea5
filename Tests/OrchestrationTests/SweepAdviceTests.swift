import FieldRuntime
import Foundation
import TypestormMetrics
@testable import Orchestration
import Reporting
import SearchField
import Simulation
import Testing
import Typists

@Suite("Sweep advice", .timeLimit(.minutes(5)))
struct SweepAdviceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The shipped scenario's sweep on a reduced grid (the real method: replicates, paired
    /// good range, conservative rule), in this process.
    static func shippedRecommendation(baseSeed: UInt64) async throws -> SweepSetting? {
        let scenario = try ScenarioReader.read(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: root + "/Datasets/scenarios/default.json"))))
        let plan = SweepPlan(
            scenario: scenario, strategies: try SweepPlan.strategies(named: nil, in: scenario), debounceMs: [0, 200, 400], minLengths: [2, 3],
            replicates: 3, baseSeed: baseSeed, typistsPerPopulation: 16, queriesDirectory: root + "/Datasets/queries", baseDirectory: root)
        let record = try await SweepGrid.run(plan, workers: 1, executable: "", toolVersion: "test") { _ in }
        let analysis = SweepAnalysis(points: record.sweepPoints)
        return analysis.recommendation(scope: "all")?.result?.setting
    }

    /// The overall answer (strategy, interval, minimum length) is the same for five base seeds.
    @Test func theShippedScenarioGetsTheSameOverallAnswerForFiveBaseSeeds() async throws {
        var answers: [SweepSetting?] = []
        for seed: UInt64 in [1, 2, 3, 20261129, 987_654_321] {
            answers.append(try await Self.shippedRecommendation(baseSeed: seed))
        }
        let first = try #require(answers[0])
        #expect(first.strategy == "split-state")
        #expect(answers.allSatisfy { $0 == first }, "answers by seed: \(answers.map { $0?.description ?? "none" })")
    }

    /// Typists with a fixed gap `gap` between keys, one word of `letters` letters per query, and
    /// a backend that answers after exactly `service`: with split-state at minimum length 1, an
    /// interval below the gap sends one request per keystroke (`letters` per search), one at or
    /// above it a single request; time to fresh results is interval + service. The objective
    /// (interval + service + cost × requests) is lowest at 0 when cost × (letters − 1) < gap and
    /// at the gap otherwise.
    static func analyticOptimum(costMs: Double, gapMs: Double, letters: Int) -> Int {
        costMs * Double(letters - 1) < gapMs ? 0 : Int(gapMs)
    }

    /// Typist `index` of the analytic population: after a start drawn from U(0, 2 s), three
    /// times "lantern" typed with exactly `gapMs` between keys, each followed by 3 s of rest and
    /// a clear (the last by the end of the session).
    static func constantGapSession(typist index: Int, seed: UInt64, gapMs: Int64) -> TraceSession {
        var rng = SeededGenerator(seed: seed, stream: UInt64(index))
        var clock = Int64(rng.next() % 2_000_000_000)
        var events: [TypingEvent] = []
        for query in 0..<3 {
            if query > 0 { events.append(TypingEvent(at: clock, action: .edit(key: "⎋", text: ""))) }
            var text = ""
            for letter in "lantern" {
                clock += gapMs * 1_000_000
                text.append(letter)
                events.append(TypingEvent(at: clock, action: .edit(key: String(letter), text: text)))
            }
            clock += 3_000_000_000
        }
        events.append(TypingEvent(at: clock, action: .end))
        return TraceSession(events: events)
    }

    static func validationRecommendation(costMs: Double, gapMs: Int64, grid: [Int]) throws -> SweepSetting? {
        let backend = BackendModel.scripted([:], default: 20_000_000)
        var record = RunRecord(metadata: RunMetadata(toolVersion: "test", scenarioName: "analytic", scenarioHash: "", seed: 1, runner: "virtual",
                                                     segments: [Segment(index: 0, count: 1)]))
        for replicate in 0..<3 {
            let seed = SweepPlan.replicateSeed(base: 7, replicate: replicate)
            for debounce in grid {
                var configuration = Preset.splitState.defaultConfiguration
                configuration.debounceNanos = Int64(debounce) * 1_000_000
                configuration.normalizer.minimumLength = 1
                let spec = StrategySpec(name: "split-state", preset: .splitState, configuration: configuration)
                let scenario = SimulationPlan(typists: 20, seed: seed, strategies: [spec], backend: backend)
                let metrics = Simulation.runStrategyCounting(spec, scenario: scenario, typists: 0..<20) { range in
                    range.map { Self.constantGapSession(typist: $0, seed: seed, gapMs: gapMs) }
                }.recorder.metrics()
                try record.add(MetricGroup(name: "split-state", labels: [
                    SweepLabel.debounce: String(debounce), SweepLabel.minLength: "1", SweepLabel.replicate: String(replicate),
                ], metrics: metrics))
            }
        }
        let analysis = SweepAnalysis(points: record.sweepPoints, objective: SweepObjective(goal: .requestCost(nanos: costMs * 1e6)))
        return analysis.recommendation(scope: "all")?.result?.setting
    }

    /// The recommendation lies within one grid step of the optimum computed by hand, on both
    /// sides of the point where the optimum jumps from 0 to the gap.
    @Test(arguments: [10.0, 25.0, 40.0, 80.0])
    func theRecommendationMatchesAnAnalyticOptimum(costMs: Double) throws {
        let grid = Array(stride(from: 0, through: 400, by: 50))
        let optimum = Self.analyticOptimum(costMs: costMs, gapMs: 180, letters: "lantern".count)
        let recommended = try #require(try Self.validationRecommendation(costMs: costMs, gapMs: 180, grid: grid))
        #expect(abs(recommended.debounceMs - optimum) <= 50, "cost \(costMs) ms: recommended \(recommended.debounceMs) ms, optimum \(optimum) ms")
    }

    @Test func aBackendFileIsReadWithTheScenarioReadersChecks() throws {
        let backend = try ScenarioReader.readBackend(bytes: Array(#"{"workers": 2, "serviceTime": {"median": "20ms", "p99": "90ms"}, "networkRTT": "45ms", "cancellation": "honoured"}"#.utf8))
        #expect(backend.workers == 2)
        #expect(backend.serviceMedianNanos == 20_000_000)
        #expect(backend.serviceP99Nanos == 90_000_000)
        #expect(backend.networkRoundTripNanos == 45_000_000)
        #expect(backend.cancellation == .honoured)
        #expect(throws: ScenarioError.self) { try ScenarioReader.readBackend(bytes: Array(#"{"serviceTime": {"median": "9ms", "p99": "2ms"}}"#.utf8), file: "api.json") }
        do {
            _ = try ScenarioReader.readBackend(bytes: Array(#"{"workers": 0, "colour": "blue"}"#.utf8), file: "api.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("api.json"))
            #expect(error.description.contains("$.workers"))
            #expect(error.description.contains("$.colour"))
        }
    }

    @Test func replicatesHaveDistinctSeedsAndTheFirstIsTheBase() {
        let seeds = (0..<100).map { SweepPlan.replicateSeed(base: 42, replicate: $0) }
        #expect(seeds[0] == 42)
        #expect(Set(seeds).count == 100)
    }

    @Test func strategiesByNameOrPreset() throws {
        let scenario = try ScenarioReader.read(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: Self.root + "/Datasets/scenarios/default.json"))))
        let defaults = try SweepPlan.strategies(named: nil, in: scenario)
        #expect(defaults.map(\.name) == ["split-state"])
        #expect(defaults[0].minimumLength == 2)
        let chosen = try SweepPlan.strategies(named: ["split-state", "throttle", "debounce-switch"], in: scenario)
        #expect(chosen.map(\.preset) == ["split-state", "throttle", "debounce-switch"])
        #expect(throws: SweepFailure.self) { try SweepPlan.strategies(named: ["split-stat"], in: scenario) }
    }
}

extension SweepAdviceTests {
    /// Three populations near one API's capacity: typed apart, each has the whole API to itself
    /// and hardly queues; typed together (`sharedAcrossStrategies`), they share its workers and
    /// the queue shows in time to fresh results. What each typist types is the same both ways.
    @Test func populationsThatShareTheBackendQueueOnTheSameServers() async throws {
        func plan(shared: Bool) throws -> SweepPlan {
            let json = """
            {
              "name": "shared-mix", "seed": 3, "duration": "60s", "catalog": { "generate": { "items": 200 } },
              "population": { "typists": 180, "session": { "queries": 1, "maxLength": "4s" },
                              "mix": [ { "device": "desktop", "language": "en", "share": 0.5 },
                                       { "device": "mobile", "language": "en", "share": 0.3 },
                                       { "device": "desktop", "language": "ko", "share": 0.2 } ] },
              "strategies": [ { "preset": "debounce-switch" } ], "runners": [ { "kind": "virtual" } ],
              "backend": { "workers": 2, "typistsPerServer": 1000, "serviceTime": { "median": "11ms", "p99": "50ms" },
                           "networkRTT": "30ms", "cancellation": "client-only", "sharedAcrossStrategies": \(shared) }
            }
            """
            let scenario = try ScenarioReader.read(json: json)
            return SweepPlan(scenario: scenario, strategies: try SweepPlan.strategies(named: ["debounce-switch"], in: scenario),
                             debounceMs: [0, 200], minLengths: nil, replicates: 1, baseSeed: 3, typistsPerPopulation: nil,
                             queriesDirectory: Self.root + "/Datasets/queries", baseDirectory: Self.root)
        }
        let apart = try await SweepGrid.run(try plan(shared: false), workers: 1, executable: "", toolVersion: "test") { _ in }
        let together = try await SweepGrid.run(try plan(shared: true), workers: 1, executable: "", toolVersion: "test") { _ in }
        #expect(apart.groups.count == 6 && together.groups.count == 6)
        for (a, b) in zip(apart.groups, together.groups) {
            #expect(a.labels == b.labels)
            // The same keystrokes and requests; only the servers' load differs.
            #expect(a.metrics.counter(MetricName.keystrokes) == b.metrics.counter(MetricName.keystrokes))
            #expect(a.metrics.counter(MetricName.requestsStarted) == b.metrics.counter(MetricName.requestsStarted))
            let p95 = { (group: MetricGroup) in group.metrics.histograms[MetricName.timeToFresh]?.percentile(95) ?? 0 }
            #expect(p95(b) > 2 * p95(a), "\(a.labels): TTFR p95 \(p95(a)) apart, \(p95(b)) together")
        }
        // The interleaving puts the mix's proportions in every stretch of the mixed run.
        let order = SweepPlan.interleaved([90, 54, 36])
        #expect(order.count == 180 && Set(order.map { "\($0.population)/\($0.typist)" }).count == 180)
        #expect(order.prefix(10).filter { $0.population == 0 }.count == 5)
    }
}
