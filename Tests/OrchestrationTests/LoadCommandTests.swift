import Foundation
import TypestormMetrics
import SearchServer
import TestBackends
import Testing
@testable import Orchestration

extension CommandLineTests {
    @Test(.timeLimit(.minutes(5))) func loadHitsAURLWithHumanTypistsAndWritesARunDirectory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await EmbeddedServerFactory.withServer(backend: SubstringBackend.synthetic(count: 2_000), threads: 2) { server in
            let (status, summary) = try typestorm(
                ["load", "\(server.baseURL)/search?q={query}", "--typists", "50", "--duration", "3s", "--strategy", "debounce-switch",
                 "--language", "en,ko", "--out", directory.file("run"), "--quiet"], in: directory)
            #expect(status == .exited(0), "\(summary)")
            let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("run/record.json"))))
            let metrics = try #require(record.group(named: "debounce-switch", labels: ["runner": "http-url"])).metrics
            #expect(metrics.counter("requests_completed") > 0)
            #expect(metrics.counter("keystrokes") > 0)
            let scenario = try ScenarioReader.read(bytes: Array(Data(contentsOf: URL(fileURLWithPath: directory.file("run/scenario.json")))))
            #expect(scenario.population.typists == 50)
            #expect(scenario.durationNanos == 3_000_000_000)
            #expect(Set(scenario.population.mix.map(\.language)) == [.en, .ko])
            #expect(scenario.runners == [.httpURL(template: "\(server.baseURL)/search?q={query}")])
            #expect(record.metadata.scenarioHash == scenario.hash)
        }
    }

    @Test(.timeLimit(.minutes(5))) func runOverridesAreCheckedAndRecorded() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("s.json", probeScenarioJSON(typists: 24, duration: "1s"))
        let (status, _) = try typestorm(["run", scenario, "--typists", "7", "--set", "seed=99", "--out", directory.file("run"), "--quiet"], in: directory)
        #expect(status == .exited(0))
        let written = try ScenarioReader.read(bytes: Array(Data(contentsOf: URL(fileURLWithPath: directory.file("run/scenario.json")))))
        #expect(written.population.typists == 7 && written.seed == 99)
        let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("run/record.json"))))
        #expect(record.metadata.scenarioHash == written.hash)
        #expect(record.metadata.seed == 99)

        let (bad, _) = try typestorm(["run", scenario, "--set", "population.typists=ten", "--out", directory.file("bad"), "--quiet"], in: directory)
        #expect(bad == .exited(65))
        let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
        #expect(stderr.contains("$.population.typists") && stderr.contains("--set population.typists=ten"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("bad")))
    }

    @Test(.timeLimit(.minutes(5))) func repeatWritesOneRunDirectoryPerRepetition() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("s.json", probeScenarioJSON(typists: 6, duration: "1s"))
        let (status, output) = try typestorm(["run", scenario, "--repeat", "2", "--out", directory.file("runs"), "--quiet"], in: directory)
        #expect(status == .exited(0), "\(output)")
        for index in 1...2 {
            #expect(FileManager.default.fileExists(atPath: directory.file("runs/run-\(index)/record.json")))
        }
        #expect(output.contains("2 runs in "))
    }
}

extension CommandLineTests {
    @Test(.timeLimit(.minutes(5))) func outJSONLWritesTheGroupsWhileTheRunRuns() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("s.json", probeScenarioJSON(typists: 8, duration: "3s", runners: #"[{"kind": "probe", "pace": "realtime"}]"#))
        let (status, _) = try typestorm(["run", scenario, "--out", directory.file("run"), "--out-jsonl", directory.file("progress.jsonl"), "--quiet"], in: directory)
        #expect(status == .exited(0))
        let text = try String(contentsOfFile: directory.file("progress.jsonl"), encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.count >= 2, "one line per group per second of a 3 s phase:\n\(text)")
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["t", "phase", "runner", "group", "name", "labels", "counters", "quantiles"])
            #expect(object["name"] as? String == "probe")
        }
        let last = try #require(try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        #expect(((last["counters"] as? [String: Any])?["keystrokes"] as? Int).map { $0 > 0 } == true)
    }
}
