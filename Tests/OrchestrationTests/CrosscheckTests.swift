import FieldRuntime
import Foundation
import TypestormMetrics
import Testing
@testable import Orchestration

/// Virtual time against live runs on the model-driven backend, at fast sizes.
///
/// The live side runs in real time (each strategy as long as its typists type, a few seconds
/// here); the tolerances are the command's own (`Crosscheck.Tolerance`), so a pass here is what
/// `typestorm crosscheck` would call agreement.
@Suite("Crosscheck", .timeLimit(.minutes(5)), .serialized)
struct CrosscheckTests {
    static func scenario(typists: Int, backend: String) -> String {
        """
        {
          "name": "crosscheck-test", "seed": 17, "duration": "60s",
          "catalog": { "generate": { "items": 200 } },
          "population": { "typists": \(typists), "session": { "queries": 1, "maxLength": "5s" } },
          "strategies": [
            { "preset": "naive" },
            { "preset": "sequence-guard" },
            { "preset": "debounce-switch", "debounce": "250ms" },
            { "preset": "split-state", "debounce": "250ms", "minLength": 2, "stalledDelay": "200ms" }
          ],
          "runners": [ { "kind": "virtual" }, { "kind": "in-process", "backend": "model" },
                       { "kind": "http-embedded", "serverThreads": 2, "backend": "model" } ],
          "backend": \(backend)
        }
        """
    }

    static let light = #"{ "workers": 4, "typistsPerServer": 20, "serviceTime": { "median": "8ms", "p99": "40ms" }, "networkRTT": "30ms", "cancellation": "client-only" }"#
    /// One worker per 40 typists and a 38 ms median service: naive keeps it above 80 % busy.
    static let heavy = #"{ "workers": 1, "typistsPerServer": 40, "serviceTime": { "median": "38ms", "p99": "90ms" }, "networkRTT": "30ms", "cancellation": "client-only" }"#

    static func crosscheck(_ json: String) async throws -> Crosscheck.Result {
        let scenario = try ScenarioReader.read(json: json)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try await Crosscheck.run(scenario, baseDirectory: root.appendingPathComponent("Datasets/scenarios").path)
    }

    static func failures(_ result: Crosscheck.Result) -> String {
        result.strategies.filter { !$0.agrees }.map { strategy in
            strategy.strategy + ": " + strategy.checks.filter { !$0.agrees }
                .map { "\($0.metric) virtual \($0.virtual ?? -1) live \($0.live ?? -1)" }.joined(separator: "; ")
        }.joined(separator: "\n")
    }

    @Test func lightLoadAgrees() async throws {
        let result = try await Self.crosscheck(Self.scenario(typists: 20, backend: Self.light))
        #expect(result.strategies.count == 8)
        #expect(Set(result.strategies.map(\.runner)) == ["in-process", "http-embedded"])
        for strategy in result.strategies {
            #expect(strategy.checks.first { $0.metric == "keystrokes" }?.agrees == true)
        }
        #expect(result.agrees, "\(Self.failures(result))")
    }

    @Test func heavyLoadAgrees() async throws {
        let result = try await Self.crosscheck(Self.scenario(typists: 40, backend: Self.heavy))
        let naive = try #require(result.strategies.first { $0.strategy == "naive" })
        #expect((naive.utilization ?? 0) >= 0.8, "naive's modelled server utilization \(naive.utilization ?? 0)")
        #expect(result.agrees, "\(Self.failures(result))")
    }

    @Test func aScenarioWithoutAModelledLiveRunnerIsRefused() throws {
        let json = Self.scenario(typists: 4, backend: Self.light)
            .replacingOccurrences(of: #"{ "kind": "in-process", "backend": "model" },"#, with: #"{ "kind": "http-url", "url": "http://127.0.0.1:9/s?q={query}" }"#)
            .replacingOccurrences(of: #"{ "kind": "http-embedded", "serverThreads": 2, "backend": "model" }"#, with: "")
        let scenario = try ScenarioReader.read(json: json)
        #expect(throws: Crosscheck.Unsuitable.self) { try Crosscheck.liveRunners(scenario) }
    }

    @Test func tolerancesRejectRealDifferences() {
        #expect(Crosscheck.Tolerance.sharesAgree(0.30, 1_000, 0.45, 1_000) == false)
        #expect(Crosscheck.Tolerance.sharesAgree(0.300, 1_000, 0.305, 1_000))
        #expect(Crosscheck.Tolerance.countsAgree(17, 346) == false)
        #expect(Crosscheck.Tolerance.countsAgree(100, 110))
        #expect(Crosscheck.Tolerance.durationsAgree(1.17e9, 0.55e9, slack: 25e6, share: 0.15) == false)
        #expect(Crosscheck.Tolerance.requestsAgree(1000, 1000))
        #expect(Crosscheck.Tolerance.requestsAgree(1000, 1040))
        #expect(Crosscheck.Tolerance.requestsAgree(1000, 1060) == false)
    }
}
