import Foundation
import TypestormMetrics
import Testing
import SearchServer
import TestBackends
import Typists
@testable import Orchestration

/// A virtual scenario whose typists arrive on `stages` (JSON text of the stages array).
func stagesScenarioJSON(stages: String, typists: String = "", duration: String = "60s", queries: Int = 3) -> String {
    """
    {
      "name": "stages-test",
      "seed": 11,
      "duration": "\(duration)",
      "catalog": { "generate": { "items": 100 } },
      "population": { \(typists)"arrival": { "kind": "stages", "stages": \(stages) }, "session": { "queries": \(queries) } },
      "strategies": [ { "preset": "split-state" } ],
      "runners": [ { "kind": "virtual" } ],
      "backend": { "typistsPerServer": 10 },
      "driver": { "snapshotInterval": "100ms", "hangTimeout": "60s" }
    }
    """
}

@Suite("Arrival stages", .timeLimit(.minutes(5)))
struct ArrivalStagesTests {
    static let second: Int64 = 1_000_000_000

    @Test func theFieldHoldsTheFloorOfTheTargetAtEveryInstant() {
        let population = Population(typists: 10, mix: [.init(device: .desktop, language: .en, share: 1)], arrival: .stages([
            .init(target: 10, overNanos: 10 * Self.second), .init(target: 10, overNanos: 10 * Self.second),
            .init(target: 0, overNanos: 5 * Self.second),
        ]))
        let schedule = ArrivalSchedule(population: population, seed: 1)
        #expect(schedule.offsets == (1...10).map { Int64($0) * Self.second })
        // Ramping down, the last to come leaves first, as soon as the target drops below it.
        #expect(schedule.departures[9] == 20 * Self.second)
        #expect(schedule.departures[0] == 20 * Self.second + 4_500_000_000)
        for tenth in 0..<300 {
            // Between the instants where the target crosses a whole number.
            let time = Int64(tenth) * Self.second / 10 + Self.second / 40
            let present = (0..<10).filter { schedule.isScheduled($0, at: time) }.count
            let level: Double = switch time {
            case ..<(10 * Self.second): Double(time) / 1e9
            case ..<(20 * Self.second): 10
            case ..<(25 * Self.second): 10 - Double(time - 20 * Self.second) / 5e8
            default: 0
            }
            #expect(present == Int(level.rounded(.down)), "at \(time) ns")
        }
    }

    @Test func aSecondRiseBringsNewTypistsAndExtrasNeverCome() {
        let stages: [Population.Stage] = [.init(target: 4, overNanos: 4 * Self.second), .init(target: 2, overNanos: 2 * Self.second),
                                          .init(target: 4, overNanos: 0)]
        #expect(ArrivalSchedule.arrivalCount(stages) == 6)
        let schedule = ArrivalSchedule(population: Population(typists: 8, mix: [.init(device: .desktop, language: .en, share: 1)],
                                                              arrival: .stages(stages)), seed: 3)
        #expect(schedule.offsets == [1, 2, 3, 4].map { $0 * Self.second } + [6 * Self.second, 6 * Self.second, ArrivalSchedule.never, ArrivalSchedule.never])
        #expect(schedule.departures[3] == 4 * Self.second && schedule.departures[2] == 5 * Self.second)
        #expect(schedule.departures[0] == ArrivalSchedule.never && schedule.departures[4] == ArrivalSchedule.never)
        // The schedule depends on the stages alone: any seed, any worker, the same instants.
        let other = ArrivalSchedule(population: Population(typists: 8, mix: [.init(device: .desktop, language: .en, share: 1)],
                                                           arrival: .stages(stages)), seed: 99)
        #expect(other.offsets == schedule.offsets && other.departures == schedule.departures)
    }

    @Test func stagesAreReadCheckedAndWrittenBack() throws {
        let scenario = try ScenarioReader.read(json: stagesScenarioJSON(stages: #"[{"to": 20, "over": "30s"}, {"to": 20, "over": "1m"}, {"to": 0, "over": "10s"}]"#))
        #expect(scenario.population.arrival == .stages([
            .init(target: 20, overNanos: 30 * Self.second), .init(target: 20, overNanos: 60 * Self.second), .init(target: 0, overNanos: 10 * Self.second),
        ]))
        #expect(scenario.population.typists == 20, "without typists, the stages say how many come")
        let canonical = scenario.canonicalJSON.canonical
        #expect(canonical.contains(#""arrival":{"kind":"stages","stages":[{"over":"30s","to":20},{"over":"1m","to":20},{"over":"10s","to":0}]}"#)
                || canonical.contains(#""arrival":{"kind":"stages","stages":[{"to":20,"over":"30s"},{"to":20,"over":"1m"},{"to":0,"over":"10s"}]}"#),
                "\(canonical)")
        let again = try ScenarioReader.read(json: canonical)
        #expect(again == scenario && again.hash == scenario.hash)
        // k6's shape without "kind" means the same.
        let bare = try ScenarioReader.read(json: stagesScenarioJSON(stages: #"[{"to": 20, "over": "30s"}, {"to": 20, "over": "1m"}, {"to": 0, "over": "10s"}]"#)
            .replacingOccurrences(of: #""kind": "stages", "#, with: ""))
        #expect(bare == scenario)
        // --set changes a stage, and the hash with it.
        let changed = try ScenarioReader.read(bytes: Array(canonical.utf8), file: "s.json", overrides: [
            try .assignment("population.arrival.stages[1].to=30"), try .assignment("population.typists=30"),
        ])
        #expect(changed.population.arrival == .stages([
            .init(target: 20, overNanos: 30 * Self.second), .init(target: 30, overNanos: 60 * Self.second), .init(target: 0, overNanos: 10 * Self.second),
        ]))
        #expect(changed.hash != scenario.hash)
    }

    @Test func badStagesAreNamedByTheirJSONPath() {
        func issues(_ json: String) -> String {
            do {
                _ = try ScenarioReader.read(json: json, file: "s.json")
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(issues(stagesScenarioJSON(stages: #"[{"to": 5, "over": "1s"}, {"to": -1, "over": "1s"}]"#)).contains("$.population.arrival.stages[1].to"))
        #expect(issues(stagesScenarioJSON(stages: #"[{"to": 5, "over": "soon"}]"#)).contains("$.population.arrival.stages[0].over"))
        #expect(issues(stagesScenarioJSON(stages: #"[{"to": 5, "ovr": "1s"}]"#)).contains(#"$.population.arrival.stages[0].ovr: unknown key; did you mean "over"?"#))
        #expect(issues(stagesScenarioJSON(stages: "[]")).contains("$.population.arrival.stages: expected at least one entry"))
        #expect(issues(stagesScenarioJSON(stages: #"[{"to": 0, "over": "1s"}]"#)).contains("$.population.arrival.stages: every stage's \"to\" is 0"))
        let tooFew = issues(stagesScenarioJSON(stages: #"[{"to": 5, "over": "1s"}, {"to": 0, "over": "1s"}, {"to": 5, "over": "1s"}]"#, typists: #""typists": 6, "#))
        #expect(tooFew.contains("$.population.typists: the arrival stages bring 10 typists into the field"), "\(tooFew)")
    }

    /// A virtual run on stages: its typists type only while the schedule has them in the field,
    /// so the typists active in each second follow the stages, and requests stop with them.
    @Test func aVirtualRunFollowsTheStages() async throws {
        let scenario = try ScenarioReader.read(json: stagesScenarioJSON(
            stages: #"[{"to": 10, "over": "10s"}, {"to": 10, "over": "10s"}, {"to": 0, "over": "5s"}]"#, duration: "60s"))
        let typists = try ScenarioTypists(scenario: scenario, baseDirectory: "/")
        let schedule = try #require(VirtualWorkload.schedule(scenario))
        // What the virtual runner types: each typist's events on the phase clock.
        let spans = (0..<scenario.population.typists).map { index -> ClosedRange<Int64>? in
            var session = ScheduledSession(typists.typing(forTypist: index), typist: index, schedule: schedule, end: scenario.durationNanos)
            var first: Int64?, last: Int64 = 0
            while let event = session.next() {
                if first == nil { first = event.at }
                last = event.at
            }
            return first.map { $0...last }
        }
        for second in 0..<40 {
            let time = Int64(second) * Self.second + Self.second / 2
            let active = spans.filter { $0?.contains(time) == true }.count
            let level: Double = switch time {
            case ..<(10 * Self.second): Double(time) / 1e9
            case ..<(20 * Self.second): 10
            case ..<(25 * Self.second): 10 - Double(time - 20 * Self.second) / 5e8
            default: 0
            }
            if second < 14 {
                // A typist arriving starts with its first key a moment later.
                #expect(active <= Int(level), "second \(second): \(active) typing")
            } else {
                #expect(active == Int(level), "second \(second): \(active) typing, the stages say \(Int(level))")
            }
        }
        let context = PhaseContext(
            scenario: scenario, baseDirectory: "/", segment: Segment(index: 0, count: 1), typists: Array(0..<scenario.population.typists),
            runner: .virtual, phase: 0, startWallClockNanos: 0, progress: ProgressSink())
        let groups = try await VirtualWorkload().run(context)
        let metrics = try #require(groups.first).metrics
        func started(inSecond second: Int) -> Int64 { metrics.counter("\(MetricName.timelineStarted).\(second)") }
        #expect((10..<20).allSatisfy { started(inSecond: $0) > 0 }, "requests while ten typists type")
        #expect((26..<60).allSatisfy { started(inSecond: $0) == 0 }, "no request after the last stage")
        #expect(started(inSecond: 0) == 0, "nobody types in the first second (the first typist arrives at 1 s)")
    }
}

extension CommandLineTests {
    /// `load --stages` against the embedded server: typists ramp up, hold and leave on the
    /// stages (a live phase), the built scenario records them, and nobody types after the last
    /// stage although the phase goes on.
    @Test func loadRampsTypistsUpAndDownOnStages() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await EmbeddedServerFactory.withServer(backend: SubstringBackend.synthetic(count: 2_000), threads: 2) { server in
            let (status, summary) = try typestorm(
                ["load", "\(server.baseURL)/search?q={query}", "--stages", "1s:6,1s:6,1s:0", "--duration", "5s",
                 "--out", directory.file("run"), "--quiet"], in: directory)
            #expect(status == .exited(0), "\(summary)")
            let scenario = try ScenarioReader.read(bytes: Array(Data(contentsOf: URL(fileURLWithPath: directory.file("run/scenario.json")))))
            #expect(scenario.population.typists == 6, "the stages say how many typists come")
            #expect(scenario.population.arrival == .stages([
                .init(target: 6, overNanos: 1_000_000_000), .init(target: 6, overNanos: 1_000_000_000), .init(target: 0, overNanos: 1_000_000_000),
            ]))
            let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("run/record.json"))))
            let metrics = try #require(record.group(named: "split-state", labels: ["runner": "http-url"])).metrics
            #expect(metrics.counter("requests_completed") > 0)
            #expect(metrics.counter("\(MetricName.timelineStarted).4") == 0, "a request started after every typist left")
        }
        let (usage, _) = try typestorm(["load", "http://127.0.0.1:9/search?q={query}", "--stages", "1s:6,soon:0"], in: directory)
        #expect(usage == .exited(64))
    }
}
