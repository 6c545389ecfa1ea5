import TypestormMetrics
import Simulation
import Testing
@testable import Orchestration

@Suite("Virtual workload", .timeLimit(.minutes(5)))
struct VirtualWorkloadTests {
    @Test func chunkedRunEqualsSimulationsOwnRun() async throws {
        let scenario = try ScenarioReader.read(json: virtualScenarioJSON(typists: 95))
        let sink = ProgressSink()
        let context = PhaseContext(
            scenario: scenario, baseDirectory: "/", segment: Segment(index: 0, count: 1), typists: Array(0..<95),
            runner: .virtual, phase: 0, startWallClockNanos: 0, progress: sink)
        // Chunks of one cell (10 typists): ten chunks per strategy, merged.
        let groups = try await VirtualWorkload(minimumChunkTypists: 1).run(context)
        let typists = try ScenarioTypists(scenario: scenario, baseDirectory: "/")
        let reference = Simulation.run(VirtualWorkload.simulationPlan(scenario), toolVersion: "test") { range in
            range.map(typists.session(forTypist:))
        }
        #expect(groups.map(\.name) == ["naive", "split-state"])
        for group in groups {
            #expect(group.metrics == reference.groups.first { $0.name == group.name }?.metrics)
        }
        #expect(sink.latest.groups.map(\.name) == ["naive", "split-state"])
    }

    /// Typists built before the barrier (`prepared`) give the same groups as typists built in
    /// the phase; a population that cannot be built is an error at preparation, naming why.
    @Test func preparedWorkloadTypesTheSameKeys() async throws {
        let scenario = try ScenarioReader.read(json: virtualScenarioJSON(typists: 60))
        func context() -> PhaseContext {
            PhaseContext(scenario: scenario, baseDirectory: "/", segment: Segment(index: 1, count: 2), typists: Array(stride(from: 1, to: 60, by: 2)),
                         runner: .virtual, phase: 0, startWallClockNanos: 0, progress: ProgressSink())
        }
        let resources = WorkloadResources(scenario: scenario, baseDirectory: "/")
        let prepared = try VirtualWorkload().prepared(resources)
        #expect((prepared as? VirtualWorkload)?.typists != nil)
        let unprepared = try await VirtualWorkload().run(context())
        #expect(try await prepared.run(context()) == unprepared)
        #expect(!unprepared.isEmpty)

        var missing = scenario
        missing.population.queryLists = "no-such-query-lists"
        #expect {
            _ = try VirtualWorkload().prepared(WorkloadResources(scenario: missing, baseDirectory: "/tmp"))
        } throws: { error in
            "\(error)".contains("$.population.queryLists") && "\(error)".contains("no-such-query-lists")
        }
        // The probe needs no typist population: preparing it builds nothing and cannot fail.
        #expect(throws: Never.self) { _ = try ProbeWorkload(realTime: false).prepared(WorkloadResources(scenario: missing, baseDirectory: "/tmp")) }
    }

    @Test func chunksAreWholeCellsCoveringTheRange() {
        let chunks = VirtualWorkload.chunks(of: 200..<1_234, typistsPerServer: 10, minimumTypists: 1)
        #expect(chunks.first?.lowerBound == 200 && chunks.last?.upperBound == 1_234)
        #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(chunks.dropLast().allSatisfy { $0.count % 10 == 0 })
        #expect(chunks.count <= 16)
        let large = VirtualWorkload.chunks(of: 0..<10_000, typistsPerServer: 100)
        #expect(large.count == 5 && large.allSatisfy { $0.count == 2_000 })
    }

    @Test func scenarioKnobsReachTheSimulation() throws {
        let json = virtualScenarioJSON().replacingOccurrences(of: #"{ "preset": "naive" }"#, with: #"{ "preset": "naive", "name": "naive-cached", "cacheSize": 8, "minLength": 3, "writeBack": true }"#)
        let simulation = VirtualWorkload.simulationPlan(try ScenarioReader.read(json: json))
        let naive = try #require(simulation.strategies.first)
        #expect(naive.name == "naive-cached")
        #expect(naive.configuration.cacheCapacity == 8)
        #expect(naive.configuration.normalizer.minimumLength == 3)
        #expect(naive.configuration.writeBack)
        #expect(simulation.strategies[1].configuration.debounceNanos == 250_000_000)
        #expect(simulation.backend.typistsPerServer == 10)
        #expect(simulation.backend.cancellation == .clientOnly)
        #expect(simulation.backend.errorRate == 0.01)
    }
}
