import FieldRuntime
import Foundation
import TypestormMetrics
import Testing
@testable import Orchestration

/// The scenario is the model: every knob the simulator uses is a `backend` key, its default is
/// what runs, and the canonical scenario (so the hash) includes it.
@Suite("Scenario backend model", .timeLimit(.minutes(5)))
struct ScenarioBackendTests {
    static func scenario(backend: String = "{}", runners: String = #"[{"kind": "virtual"}]"#) throws -> Scenario {
        try ScenarioReader.read(json: """
        { "name": "m", "seed": 1, "duration": "10s", "catalog": { "generate": { "items": 10 } },
          "population": { "typists": 10 }, "strategies": [ { "preset": "naive" } ],
          "runners": \(runners), "backend": \(backend) }
        """)
    }

    @Test func theDefaultsAreWhatRuns() throws {
        let model = try Self.scenario().backend.model
        #expect(model.slowTailProbability == 0)
        #expect(model.transportErrorRate == 0)
        #expect(model.roundTrip == .logNormal(median: 30_000_000, sigma: 0.3))
        #expect(model.workers == 4 && model.typistsPerServer == 100)
        #expect(model.localCatalogItems == 10_000 && model.localNanosPerItem == 150)
        // Log-normal through the median and the p99, and nothing on top.
        guard case let .distribution(.logNormal(median, sigma)) = model.service else {
            Issue.record("expected a log-normal service time, found \(model.service)")
            return
        }
        #expect(median == 8_000_000)
        #expect(abs(Double(median) * exp(2.326 * sigma) - 60_000_000) < 1_000)
    }

    @Test func everyKnobIsAKeyAndInTheHash() throws {
        let json = """
        { "slowTail": { "probability": 0.01, "factor": 20 }, "networkRTTSpread": 0, "transportErrorRate": 0.05,
          "localFilter": { "items": 500, "nsPerItem": 20 }, "sharedAcrossStrategies": true }
        """
        let scenario = try Self.scenario(backend: json)
        let model = scenario.backend.model
        #expect(model.slowTailProbability == 0.01 && model.slowTailFactor == 20)
        #expect(model.roundTrip == .constant(30_000_000))
        #expect(model.transportErrorRate == 0.05)
        #expect(model.localCatalogItems == 500 && model.localNanosPerItem == 20)
        #expect(scenario.backend.sharedAcrossStrategies)
        #expect(scenario.hash != (try Self.scenario()).hash)
        // The canonical form spells the defaults out and reads back to the same scenario.
        let again = try ScenarioReader.read(json: scenario.canonicalJSON.canonical)
        #expect(again == scenario && again.hash == scenario.hash)
        let defaults = try Self.scenario()
        #expect(defaults.canonicalJSON.canonical.contains("\"slowTail\":{\"factor\":20,\"probability\":0}"))
    }

    @Test func badKnobsAreRefusedWithTheirPath() throws {
        #expect(throws: ScenarioError.self) { try Self.scenario(backend: #"{ "slowTail": { "probability": 2 } }"#) }
        do {
            _ = try Self.scenario(backend: #"{ "slowTail": { "chance": 0.1 } }"#)
            Issue.record("an unknown key was accepted")
        } catch {
            #expect("\(error)".contains("slowTail"))
        }
    }

    @Test func liveRunnersTakeTheModelAndEachStrategyGetsItsOwnBackend() throws {
        let scenario = try Self.scenario(runners: #"[{"kind": "in-process", "backend": "model"}, {"kind": "http-embedded", "backend": "model"}]"#)
        #expect(scenario.runners == [.inProcess(.model), .httpEmbedded(serverThreads: 2, backend: .model)])
        #expect(LiveWorkload(target: .inProcess(.model)).sharesBackend(scenario) == false)
        #expect(LiveWorkload(target: .embeddedServer(.model)).sharesBackend(scenario) == false)
        #expect(LiveWorkload(target: .embeddedServer(.engine)).sharesBackend(scenario))
        let shared = try Self.scenario(backend: #"{ "sharedAcrossStrategies": true }"#)
        #expect(LiveWorkload(target: .inProcess(.engine)).sharesBackend(shared))
        #expect(LiveWorkload(target: .inProcess(.engine)).sharesBackendByChoice(shared))
    }

    /// Served through the model, a worker process takes whole server cells, so no modelled cell
    /// is split over processes (each would get the cell's full capacity).
    @Test func modelledLivePhasesTakeWholeCells() throws {
        let scenario = try Self.scenario(backend: #"{ "typistsPerServer": 3 }"#)
        let roundRobin = Array(scenario.population.typistIndices(segment: 1, of: 2))
        let context = PhaseContext(scenario: scenario, baseDirectory: "/", segment: Segment(index: 1, count: 2), typists: roundRobin,
                                   runner: .inProcess(.model), phase: 0, startWallClockNanos: 0, progress: ProgressSink())
        #expect(LiveWorkload(target: .inProcess(.model)).segmentTypists(context) == [6, 7, 8, 9])
        #expect(LiveWorkload(target: .inProcess(.engine)).segmentTypists(context) == roundRobin)
    }
}
