import Foundation
import Testing
import Typestorm

@Suite("The library's face: a population typed into presets in virtual time", .timeLimit(.minutes(5)))
struct LibraryFaceTests {
    let population = Population(typists: 120, mix: [
        .init(device: .desktop, language: .en, share: 0.5),
        .init(device: .mobile, language: .zh, share: 0.5),
    ], queriesPerSession: 2)

    @Test func theSameInputsGiveTheSameRecordAndTheRecordHasEveryStrategy() throws {
        let strategies = try [ScenarioStrategy("naive"), ScenarioStrategy("split-state", debounce: .milliseconds(250))]
        let backend = try ScenarioBackend(serviceMedian: .milliseconds(10), networkRoundTrip: .milliseconds(40))
        let first = try Simulation.run(population, strategies: strategies, backend: backend, seed: 9)
        let second = try Simulation.run(population, strategies: strategies, backend: backend, seed: 9)
        #expect(try first.encoded() == second.encoded())
        #expect(first.groups.map(\.name) == ["naive", "split-state"])
        let naive = try #require(first.group(named: "naive", labels: ["runner": "virtual"]))
        #expect(naive.metrics.counter(MetricName.keystrokes) > 0)
        let table = StrategyComparison.table(first).render()
        #expect(table.contains("naive") && table.contains("split-state"))
        let other = try Simulation.run(population, strategies: strategies, backend: backend, seed: 10)
        #expect(try other.encoded() != first.encoded(), "the seed reaches the typists")
    }

    @Test func theKnobsReachTheStrategy() throws {
        let spec = VirtualWorkload.simulationStrategy(try ScenarioStrategy("split-state", name: "slow", debounce: .milliseconds(450), minimumLength: 3))
        #expect(spec.name == "slow")
        #expect(spec.configuration.debounce == .milliseconds(450))
        #expect(spec.configuration.normalizer.minimumLength == 3)
    }

    @Test func anUnknownPresetIsAnErrorWithTheNearestName() {
        #expect {
            try ScenarioStrategy("split-stat")
        } throws: { error in
            let text = "\(error)"
            return text.contains("'split-stat'") && text.contains("did you mean 'split-state'?")
        }
        // A value built without the checking initialiser is caught before anything runs.
        #expect(throws: ScenarioError.self) {
            try Simulation.run(population, strategies: [ScenarioStrategy(preset: "bogus")])
        }
    }

    @Test func aPopulationWithNoTypistsOrABadMixIsAnError() throws {
        let strategies = try [ScenarioStrategy("naive")]
        let empty = Population(typists: 0, mix: [.init(device: .desktop, language: .en, share: 1)])
        #expect { try Simulation.run(empty, strategies: strategies) } throws: { "\($0)".contains("population.typists: expected at least 1 typist, found 0") }
        let noMix = Population(typists: 10, mix: [])
        #expect { try Simulation.run(noMix, strategies: strategies) } throws: { "\($0)".contains("population.mix") }
        let badShare = Population(typists: 10, mix: [.init(device: .desktop, language: .en, share: -0.5)])
        #expect { try Simulation.run(badShare, strategies: strategies) } throws: { "\($0)".contains("population.mix[0].share") }
        #expect { try Simulation.run(population, strategies: []) } throws: { "\($0)".contains("strategies: expected at least one strategy") }
        #expect { try Simulation.run(population, strategies: strategies + strategies) } throws: { "\($0)".contains("names two strategies") }
    }

    @Test func aNegativeDurationIsAnError() {
        #expect { try ScenarioStrategy("split-state", debounce: .milliseconds(-5)) } throws: { "\($0)".contains("debounce: expected a duration of 0 or more") }
        #expect { try ScenarioBackend(serviceMedian: .milliseconds(-1), networkRoundTrip: .milliseconds(30)) } throws: { "\($0)".contains("serviceMedian") }
        #expect { try ScenarioBackend(serviceMedian: .milliseconds(10), networkRoundTrip: .seconds(-1)) } throws: { "\($0)".contains("networkRoundTrip") }
        #expect { try ScenarioBackend(serviceMedian: .milliseconds(10), serviceP99: .milliseconds(5), networkRoundTrip: .zero) } throws: { "\($0)".contains("serviceP99") }
        #expect { try ScenarioBackend(workers: 0, serviceMedian: .milliseconds(10), networkRoundTrip: .zero) } throws: { "\($0)".contains("workers") }
    }

    @Test func runnersAndTheRecorderTakeDurationsAndRefuseNegativeOnes() throws {
        let options = try LiveRunOptions(drainTimeout: .seconds(3), settleInterval: .milliseconds(800))
        #expect(options.drainTimeout == .seconds(3) && options.settleInterval == .milliseconds(800))
        #expect { try LiveRunOptions(drainTimeout: .seconds(-1)) } throws: { "\($0)" == "drainTimeout: expected a duration of 0 or more, found -1.0 seconds" }
        #expect { try LiveRunOptions(fieldThreads: 0) } throws: { "\($0)".contains("fieldThreads: expected at least 1 thread") }
        let recorder = try Recorder(typists: 3, settleInterval: .milliseconds(500))
        #expect(recorder.settleInterval == .milliseconds(500) && recorder.blinkThreshold == .milliseconds(200))
        #expect { try Recorder(typists: 1, blinkThreshold: .milliseconds(-1)) } throws: { "\($0)".contains("blinkThreshold: expected a duration of 0 or more") }
        #expect { try Recorder(typists: -1) } throws: { "\($0)".contains("typists: expected 0 or more, found -1") }
        let typist = LiveTypist(arrival: .milliseconds(250), session: TraceSession(events: []))
        #expect(typist.arrival == .milliseconds(250))
        #expect {
            try VirtualRunner(strategy: NaiveField(), sessions: [TraceSession(events: [])], globalIndices: [0, 1], backend: BackendModel(), seed: 1)
        } throws: { "\($0)".contains("globalIndices: expected one index per session (1), found 2") }
        var runner = try VirtualRunner(strategy: NaiveField(), sessions: [TraceSession(events: [])], backend: BackendModel(), seed: 1,
                                       settleInterval: .milliseconds(700))
        #expect(runner.run().settleInterval == .milliseconds(700))
        #expect(runner.lastEventTime >= .zero)
        let configuration = try SearchFieldConfiguration(debounce: .milliseconds(150), stalledDelay: .milliseconds(200))
        #expect(configuration.debounce == .milliseconds(150) && configuration.stalledDelay == .milliseconds(200))
        #expect { try SearchFieldConfiguration(debounce: .milliseconds(-1)) } throws: { "\($0)".contains("debounce: expected a duration of 0 or more") }
    }
}
