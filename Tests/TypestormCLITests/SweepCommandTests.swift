import Foundation
import Testing
@testable import TypestormCLI

/// `typestorm sweep`: its objective flags, its inputs, and a strategy comparison end to end.
extension CommandTests {
    static var scenario: String { root + "/Datasets/scenarios/default.json" }

    @Test func sweepRejectsTwoObjectivesAndBadSharesBeforeRunning() async {
        let both = await run(["sweep", Self.scenario, "--budget", "2", "--request-cost", "50ms"])
        #expect(both.code == 64)
        #expect(both.err.contains("give one of --request-cost, --budget and --ttfr-p95, not --request-cost and --budget"))
        let share = await run(["sweep", Self.scenario, "--max-stale", "120%"])
        #expect(share.code == 64)
        #expect(share.err.contains("--max-stale"))
        let strategy = await run(["sweep", Self.scenario, "--strategies", "split-state,split-stat"])
        #expect(strategy.code == 64)
        #expect(strategy.err.contains("'split-stat'"))
        #expect(!strategy.err.contains("sweeping"))
    }

    @Test func sweepNamesABadBackendFileAndItsJSONPath() async throws {
        let bad = try temporaryFile("api.json", #"{"workers": 4, "serviceTime": {"median": "20ms", "p99": "5ms"}}"#)
        let result = await run(["sweep", Self.scenario, "--backend", bad])
        #expect(result.code == 65)
        #expect(result.err.contains("api.json"))
        #expect(result.err.contains("$.serviceTime.p99"))
        #expect(!result.err.contains("sweeping"))
        let missing = await run(["sweep", Self.scenario, "--backend", "/nonexistent/api.json"])
        #expect(missing.code == 66)
        #expect(missing.err.contains("/nonexistent/api.json"))
    }

    /// debounce-switch keeps old results on screen when the text falls below the minimum
    /// length: the stale constraint rules it out, and split-state is the answer.
    @Test func comparingStrategiesDisqualifiesTheStaleOne() async throws {
        let result = await run(["sweep", Self.scenario, "--strategies", "debounce-switch,split-state", "--debounce", "300", "--min-length", "3",
                                "--typists", "12", "--replicates", "2", "--workers", "1", "--queries", Self.root + "/Datasets/queries", "--json"])
        #expect(result.code == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let all = try #require((json["recommendations"] as? [[String: Any]])?.first)
        #expect(all["population"] as? String == "all")
        #expect(all["strategy"] as? String == "split-state")
        let points = try #require(json["points"] as? [[String: Any]])
        let flawed = try #require(points.first { $0["population"] as? String == "all" && $0["strategy"] as? String == "debounce-switch" })
        #expect(flawed["eligible"] as? Bool == false)
        #expect((flawed["disqualifiedBy"] as? [String])?.first?.hasPrefix("wrong final screens") == true)
    }

    /// A grid of presets runs in this process by default, though the scenario names 4 worker
    /// processes (none is started: this test's executable could not be one), with the same
    /// answer as `--workers 1`.
    @Test func aGridOfPresetsRunsInThisProcessByDefault() async {
        let grid = ["sweep", Self.scenario, "--debounce", "100:300:100", "--typists", "8", "--replicates", "2",
                    "--queries", Self.root + "/Datasets/queries", "--json"]
        let byDefault = await run(grid)
        #expect(byDefault.code == 0, "\(byDefault.err)")
        #expect(!byDefault.err.contains("worker processes"))
        #expect(byDefault.err.contains("grid runs done"))
        let oneWorker = await run(grid + ["--workers", "1"])
        #expect(byDefault.out == oneWorker.out)
        #expect(byDefault.out.contains("\"debounceMs\" : 300"))
    }

    /// A calibrated backend changes the numbers the sweep measures.
    @Test func aBackendFileReplacesTheScenariosBackend() async throws {
        let slow = try temporaryFile("api.json", #"{"workers": 4, "serviceTime": {"median": "400ms", "p99": "900ms"}, "networkRTT": "30ms"}"#)
        let base = ["sweep", Self.scenario, "--debounce", "200", "--typists", "8", "--replicates", "2", "--workers", "1",
                    "--queries", Self.root + "/Datasets/queries", "--json"]
        let shipped = await run(base)
        let calibrated = await run(base + ["--backend", slow])
        func p95(_ out: String) throws -> Double {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
            let all = try #require((json["recommendations"] as? [[String: Any]])?.first)
            return try #require(((all["ttfrP95Nanos"] as? [String: Any])?["mean"] as? NSNumber)?.doubleValue)
        }
        #expect(try p95(calibrated.out) > p95(shipped.out) + 300e6)
    }
}
