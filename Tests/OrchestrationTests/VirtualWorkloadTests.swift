import Measurement
import Simulation
import Testing
@testable import Orchestration

@Suite("Virtual workload")
struct VirtualWorkloadTests {
    @Test func chunkedRunEqualsSimulationsOwnRun() async throws {
        let scenario = try ScenarioReader.read(json: virtualScenarioJSON(typists: 95))
        let sink = ProgressSink()
        let context = PhaseContext(
            scenario: scenario, baseDirectory: "/", segment: Segment(index: 0, count: 1), typists: Array(0..<95),
            runner: .virtual, phase: 0, startWallClockNanos: 0, progress: sink)
        let groups = try await VirtualWorkload().run(context)
        let reference = Simulation.run(VirtualWorkload.simulationScenario(scenario), toolVersion: "test")
        #expect(groups.map(\.name) == ["naive", "split-state"])
        for group in groups {
            #expect(group.metrics == reference.groups.first { $0.name == group.name }?.metrics)
        }
        #expect(sink.latest.groups.map(\.name) == ["naive", "split-state"])
    }

    @Test func chunksAreWholeCellsCoveringTheRange() {
        let chunks = VirtualWorkload.chunks(of: 200..<1_234, typistsPerServer: 10)
        #expect(chunks.first?.lowerBound == 200 && chunks.last?.upperBound == 1_234)
        #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(chunks.dropLast().allSatisfy { $0.count % 10 == 0 })
        #expect(chunks.count <= 16)
    }

    @Test func scenarioKnobsReachTheSimulation() throws {
        let json = virtualScenarioJSON().replacingOccurrences(of: #"{ "preset": "naive" }"#, with: #"{ "preset": "naive", "name": "naive-cached", "cacheSize": 8, "minLength": 3, "writeBack": true }"#)
        let simulation = VirtualWorkload.simulationScenario(try ScenarioReader.read(json: json))
        let naive = try #require(simulation.strategies.first)
        #expect(naive.name == "naive-cached")
        #expect(naive.configuration.cacheCapacity == 8)
        #expect(naive.configuration.normalizer.minimumLength == 3)
        #expect(naive.configuration.writeBack)
        #expect(simulation.strategies[1].configuration.debounce == 250_000_000)
        #expect(simulation.backend.typistsPerServer == 10)
        #expect(simulation.backend.cancellation == .clientOnly)
        #expect(simulation.backend.errorRate == 0.01)
    }
}
