import FieldRuntime
import Simulation
import TypestormMetrics
import Foundation
import Testing
@testable import Orchestration

@Suite("Network profiles", .timeLimit(.minutes(5)))
struct NetworkProfileTests {
    static func scenario(mix: String) -> String {
        """
        {
          "name": "t", "seed": 1, "duration": "10s",
          "catalog": { "file": "catalog.jsonl" },
          "population": { "typists": 40, "mix": \(mix) },
          "strategies": [ { "preset": "naive" } ],
          "runners": [ { "kind": "virtual" } ]
        }
        """
    }

    static let plain = scenario(mix: #"[{"device": "desktop", "share": 0.5}, {"device": "mobile", "share": 0.5}]"#)
    static let mobileLTE = scenario(mix: #"[{"device": "desktop", "share": 0.5}, {"device": "mobile", "share": 0.5, "network": "lte"}]"#)

    @Test func theProfilesFiguresFollowFromTheirSources() {
        // LTE: 70 ms, jitter 5 ms and 15 ms → sd √250 ≈ 15.8 ms, σ ≈ 0.218; RTO 70 + 4 · 15.8 = 133 ms, floored at 200 ms.
        #expect(NetworkProfile.lte.roundTrip == .logNormal(median: 70_000_000, sigma: 0.218))
        #expect(NetworkProfile.lte.retransmitNanos == 200_000_000)
        #expect(NetworkProfile.lte.lossRate == 0.002)
        // 3G: 300 ms, jitter 50 ms each way → sd 70.7 ms, σ ≈ 0.227; RTO 300 + 4 · 70.7 = 583 ms.
        #expect(NetworkProfile.threeG.roundTrip == .logNormal(median: 300_000_000, sigma: 0.227))
        #expect(NetworkProfile.threeG.retransmitNanos == 583_000_000)
        #expect(NetworkProfile.all.map(\.name) == ["wifi", "lte", "3g"])
    }

    @Test func aMixEntryNamesItsNetworkAndTheHashChangesOnlyWithIt() throws {
        let plain = try ScenarioReader.read(json: Self.plain)
        let lte = try ScenarioReader.read(json: Self.mobileLTE)
        #expect(plain.population.mix.allSatisfy { $0.network == nil })
        #expect(lte.population.mix[1].network == .lte)
        #expect(!plain.canonicalJSON.canonical.contains(#""network":"#))
        #expect(lte.canonicalJSON.canonical.contains(#""network":"lte""#))
        #expect(plain.hash != lte.hash)
        // The canonical JSON reads back to the same scenario.
        #expect(try ScenarioReader.read(json: lte.canonicalJSON.canonical) == lte)
        #expect(plain.population.clientNetworks == nil)
    }

    @Test func anUnknownProfileIsAnErrorNamingThePathAndTheProfiles() {
        let json = Self.scenario(mix: #"[{"device": "mobile", "share": 1, "network": "4g"}]"#)
        do {
            _ = try ScenarioReader.read(json: json)
            Issue.record("read a scenario with network 4g")
        } catch {
            #expect(error.issues.first?.path == "$.population.mix[0].network")
            let message = error.issues.first?.message ?? ""
            #expect(message.contains(#""wifi", "lte", "3g""#), "\(message)")
        }
    }

    @Test func onlyTheTypistsOnANetworkDrawMoreAndTheOthersDrawExactlyAsBefore() throws {
        let scenario = try ScenarioReader.read(json: Self.mobileLTE)
        let base = scenario.backend.model
        let model = scenario.backend.model(for: scenario.population)
        let networks = try #require(model.clientNetworks)
        var onLTE = 0
        for typist in 0..<scenario.population.typists {
            let entry = scenario.population.mixEntry(forTypist: typist)
            #expect(networks.profile(forTypist: UInt64(typist)) == entry.network)
            for request in UInt64(1)...20 {
                let before = base.draw(seed: 9, typist: UInt64(typist), request: request, queryLength: 4)
                let after = model.draw(seed: 9, typist: UInt64(typist), request: request, queryLength: 4)
                #expect(after.serviceNanos == before.serviceNanos && after.failure == before.failure)
                if entry.network == nil {
                    #expect(after == before)
                } else {
                    // Half of at least 70 ms · e^(−4σ) more each way.
                    #expect(after.oneWayNanos - before.oneWayNanos > 10_000_000)
                }
            }
            if entry.network != nil { onLTE += 1 }
        }
        #expect(onLTE == 20)
    }

    @Test func lossAddsTheRetransmissionTimeoutToTheRoundTrip() {
        let lossy = NetworkProfile(name: "x", roundTrip: .constant(10_000_000), lossRate: 1, retransmitNanos: 200_000_000)
        let clean = NetworkProfile(name: "y", roundTrip: .constant(10_000_000), lossRate: 0, retransmitNanos: 200_000_000)
        var model = BackendModel(roundTrip: .constant(0))
        model.clientNetworks = .all(lossy)
        #expect(model.draw(seed: 1, typist: 3, request: 1, queryLength: 3).oneWayNanos == (10_000_000 + 2 * 200_000_000) / 2)
        model.clientNetworks = .all(clean)
        #expect(model.draw(seed: 1, typist: 3, request: 1, queryLength: 3).oneWayNanos == 5_000_000)
    }
}

@Suite("Flaw timelines", .timeLimit(.minutes(5)))
struct FlawTimelineTests {
    @Test func theFirstFlawedSearchIsTypedAgainAndShowsTheSameSearch() throws {
        // Mobile typists on 3G: naive's late answers are common there.
        let json = NetworkProfileTests.scenario(mix: #"[{"device": "mobile", "share": 1, "network": "3g"}]"#)
            .replacingOccurrences(of: #""preset": "naive" }"#, with: #""preset": "naive" }, { "preset": "split-state" }"#)
        let scenario = try ScenarioReader.read(json: json)
        let typists = try ScenarioTypists(scenario: scenario, baseDirectory: repositoryRoot)
        let record = Simulation.run(VirtualWorkload.simulationPlan(scenario), toolVersion: "test", sessions: { $0.map(typists.session(forTypist:)) })
        let naive = try #require(record.group(named: "naive", labels: ["runner": "virtual"]))
        let example = try #require(naive.metrics.examples?[FlawKind.outOfOrder.rawValue])
        let timelines = FlawTimelines.make(record: record, scenario: scenario, baseDirectory: repositoryRoot)
        let timeline = try #require(timelines.first { $0.group == naive.key && $0.kind == .outOfOrder })
        #expect(timeline.title.contains("typist \(example.typist)"))
        // The late apply happens again at the same virtual time, for the same query.
        let stamp = String(format: "%.1f ms", Double(example.timeNs) / 1e6)
        let lines = timeline.text.split(separator: "\n")
        let at = try #require(lines.firstIndex { $0.hasPrefix(String(repeating: " ", count: max(0, 10 - stamp.count)) + stamp) })
        let shown = try #require(example.shown)
        #expect(lines[at...].prefix(6).contains { $0.contains("apply") && $0.contains("\"\(shown)\"") }, "\(timeline.text)")
        // Typed again twice, the same text.
        #expect(FlawTimelines.make(record: record, scenario: scenario, baseDirectory: repositoryRoot) == timelines)
    }
}
