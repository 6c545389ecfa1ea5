import Foundation
import TypestormMetrics
import SearchServer
import TestBackends
import Testing
import Typists
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
            // The worker process's own figures are measured, not 0.
            #expect(metrics.counter(MetricName.cpuNs) > 0)
            #expect((metrics.maxima[MetricName.peakRSS] ?? 0) > 1_000_000)
            let scenario = try ScenarioReader.read(bytes: Array(Data(contentsOf: URL(fileURLWithPath: directory.file("run/scenario.json")))))
            #expect(scenario.population.typists == 50)
            #expect(scenario.durationNanos == 3_000_000_000)
            #expect(Set(scenario.population.mix.map(\.language)) == [.en, .ko])
            // No --count: the count's place was found in the first answers (the server answers {"total": …}).
            guard case let .httpURL(template, request)? = scenario.runners.first else { Issue.record("\(scenario.runners)"); return }
            #expect(template == "\(server.baseURL)/search?q={query}")
            #expect(request.countPath == "total")
            #expect(scenario.population.repeatsSessions)
            #expect(record.metadata.scenarioHash == scenario.hash)
        }
    }

    @Test(.timeLimit(.minutes(5))) func loadTakesTheCountPathHeadersAndTheStrategysKnobs() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await EmbeddedServerFactory.withServer(backend: SubstringBackend.synthetic(count: 2_000), threads: 2) { server in
            let url = "\(server.baseURL)/search?q={query}"
            let (status, summary) = try typestorm(
                ["load", url, "--typists", "10", "--duration", "2s", "--strategy", "naive", "--debounce", "120ms", "--min-length", "2",
                 "--count", "total", "--header", "X-Trace: load-test", "--out", directory.file("right"), "--quiet"], in: directory)
            #expect(status == .exited(0), "\(summary)")
            let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("right/record.json"))))
            let metrics = try #require(record.group(named: "naive", labels: ["runner": "http-url"])).metrics
            #expect(metrics.counter("requests_completed") > 0)
            #expect(metrics.counter(MetricName.errorCausePrefix + ErrorCause.countMissing.key) == 0)
            let scenario = try ScenarioReader.read(bytes: Array(Data(contentsOf: URL(fileURLWithPath: directory.file("right/scenario.json")))))
            let text = try String(contentsOfFile: directory.file("right/scenario.json"), encoding: .utf8)
            #expect(text.contains(#""count""#) && text.contains("X-Trace") && text.contains("120ms") && text.contains(#""minLength""#), "\(text)")
            #expect(scenario.durationNanos == 2_000_000_000)

            // A path the server's JSON does not have fails every answer as count_missing.
            let (wrong, _) = try typestorm(
                ["load", url, "--typists", "6", "--duration", "2s", "--strategy", "naive", "--count", "hits.total.value", "--out", directory.file("wrong"), "--quiet"],
                in: directory)
            #expect(wrong == .exited(1))
            let missing = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("wrong/record.json"))))
            let group = try #require(missing.groups.first).metrics
            #expect(group.counter(MetricName.errorCausePrefix + ErrorCause.countMissing.key) > 0)
            #expect(group.counter("requests_completed") == 0)

            let (bad, _) = try typestorm(["load", url, "--count", "a..b", "--out", directory.file("bad"), "--quiet"], in: directory)
            #expect(bad == .exited(64))
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

extension CommandLineTests {
    /// `load` against a server Typestorm did not write, answering as Python's `json.dumps` does.
    @Test(.timeLimit(.minutes(5)), .enabled(if: PythonTestServer.python != nil))
    func loadReadsPrettyPrintedCountsAndDetectsTheirPlace() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await PythonTestServer.with(shape: "pretty-total") { server in
            let url = "\(server.baseURL)/search?q={query}"
            let (given, givenOutput) = try typestorm(
                ["load", url, "--typists", "8", "--duration", "2s", "--strategy", "naive", "--count", "total", "--out", directory.file("given")],
                in: directory)
            #expect(given == .exited(0), "\(givenOutput)")
            let metrics = try #require(RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("given/record.json")))).groups.first).metrics
            #expect(metrics.counter("requests_completed") > 0)
            #expect(metrics.counter(MetricName.errorCausePrefix + ErrorCause.countMissing.key) == 0)
            #expect(metrics.counters[MetricName.falseEmpties] != nil)

            let (detected, _) = try typestorm(
                ["load", url, "--typists", "8", "--duration", "2s", "--strategy", "naive", "--out", directory.file("detected")], in: directory)
            #expect(detected == .exited(0))
            let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
            #expect(stderr.contains("count: read at 'total'"), "\(stderr)")
            let text = try String(contentsOfFile: directory.file("detected/scenario.json"), encoding: .utf8)
            #expect(text.contains(#""count": "total""#), "\(text)")
        }
    }

    /// Without a count in the answers, false empties are absent (with the reason), never 0.
    @Test(.timeLimit(.minutes(5)), .enabled(if: PythonTestServer.python != nil))
    func answersWithoutACountGiveNoFalseEmptyFigure() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await PythonTestServer.with(shape: "no-count") { server in
            let (status, table) = try typestorm(
                ["load", "\(server.baseURL)/search?q={query}", "--typists", "8", "--duration", "2s", "--strategy", "naive",
                 "--out", directory.file("run")], in: directory)
            #expect(status == .exited(0), "\(table)")
            let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
            #expect(stderr.contains("count: unknown, none of total, count"), "\(stderr)")
            let metrics = try #require(RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("run/record.json")))).groups.first).metrics
            #expect(metrics.counter("requests_completed") > 0)
            #expect(metrics.counters[MetricName.falseEmpties] == nil)
            #expect(metrics.counter(MetricName.answersWithoutCount) == metrics.counter("requests_completed"))
            #expect(table.contains("no false-empty figure"), "\(table)")
        }
        // An array answer's length is its count.
        try await PythonTestServer.with(shape: "array") { server in
            let (status, _) = try typestorm(
                ["load", "\(server.baseURL)/search?q={query}", "--typists", "4", "--duration", "1s", "--strategy", "naive",
                 "--out", directory.file("array")], in: directory)
            #expect(status == .exited(0))
            let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
            #expect(stderr.contains("count: read at '#'"), "\(stderr)")
        }
    }

    /// `load`'s typists keep typing, session after session, until the duration ends.
    @Test(.timeLimit(.minutes(5))) func repeatingSessionsKeepATypistTypingPastItsFirstSession() throws {
        let once = try ScenarioReader.read(bytes: Array(LoadCommandScenario.json(repeats: false).utf8))
        let repeating = try ScenarioReader.read(bytes: Array(LoadCommandScenario.json(repeats: true).utf8))
        #expect(!once.population.repeatsSessions && repeating.population.repeatsSessions)
        #expect(repeating.hash != once.hash)
        let directory = FileManager.default.currentDirectoryPath
        let single = try ScenarioTypists(scenario: once, baseDirectory: directory)
        let repeated = try ScenarioTypists(scenario: repeating, baseDirectory: directory)
        let tenMinutes: Int64 = 600_000_000_000
        var endedEarly = 0
        for typist in 0..<20 {
            func lastKey(_ typists: ScenarioTypists) -> Int64 {
                var session = DeadlineSession(base: typists.typing(forTypist: typist), limit: tenMinutes)
                var last: Int64 = 0
                while let event = session.next() {
                    if case .end = event.action { break }
                    last = event.at
                }
                return last
            }
            if lastKey(single) < tenMinutes / 2 { endedEarly += 1 }
            #expect(lastKey(repeated) > tenMinutes - 60_000_000_000, "typist \(typist) stopped typing")
        }
        // Without repeating, sessions end after a few queries: this is what left the field empty.
        #expect(endedEarly == 20)
    }
}

enum LoadCommandScenario {
    static func json(repeats: Bool) -> String {
        """
        {"name": "r", "seed": 3, "duration": "10m", "catalog": {"generate": {"items": 100}},
         "population": {"typists": 20, "session": {"queries": 1000\(repeats ? ", \"repeat\": true" : "")}},
         "strategies": [{"preset": "naive"}], "runners": [{"kind": "in-process"}]}
        """
    }
}


extension CommandLineTests {
    static func httpURLScenario(url: String) -> String {
        """
        {
          "name": "run-count-detection", "seed": 5, "duration": "2s",
          "catalog": { "generate": { "items": 100 } },
          "population": { "typists": 6, "session": { "queries": 1, "maxLength": "2s" } },
          "strategies": [ { "preset": "naive" } ],
          "runners": [ { "kind": "http-url", "url": "\(url)" } ]
        }
        """
    }

    /// `run` of a scenario whose http-url runner names no count path finds it as `load` does,
    /// says which, and runs with it; answers without one leave false empties absent, with why.
    @Test(.timeLimit(.minutes(5)), .enabled(if: PythonTestServer.python != nil))
    func runDetectsTheCountOfAnHTTPURLRunnerWithoutACountPath() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await PythonTestServer.with(shape: "pretty-total") { server in
            try Self.httpURLScenario(url: "\(server.baseURL)/search?q={query}").write(toFile: directory.file("pretty.json"), atomically: true, encoding: .utf8)
            let (status, output) = try typestorm(["run", directory.file("pretty.json"), "--out", directory.file("pretty")], in: directory)
            #expect(status == .exited(0), "\(output)")
            let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
            #expect(stderr.contains("run: runners[0] (http-url): count: read at 'total'"), "\(stderr)")
            let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("pretty/record.json"))))
            let metrics = try #require(record.groups.first).metrics
            #expect(metrics.counter("requests_completed") > 0)
            #expect(metrics.counters[MetricName.falseEmpties] != nil)
            #expect(metrics.counter(MetricName.answersWithoutCount) == 0)
            let scenario = try ScenarioReader.read(bytes: Array(Data(contentsOf: URL(fileURLWithPath: directory.file("pretty/scenario.json")))))
            guard case let .httpURL(_, request)? = scenario.runners.first else { Issue.record("\(scenario.runners)"); return }
            #expect(request.countPath == "total")
            #expect(record.metadata.scenarioHash == scenario.hash)
        }
        try await PythonTestServer.with(shape: "no-count") { server in
            try Self.httpURLScenario(url: "\(server.baseURL)/search?q={query}").write(toFile: directory.file("none.json"), atomically: true, encoding: .utf8)
            let (status, output) = try typestorm(["run", directory.file("none.json"), "--out", directory.file("none")], in: directory)
            #expect(status == .exited(0), "\(output)")
            let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
            #expect(stderr.contains("run: runners[0] (http-url): count: unknown, none of total, count"), "\(stderr)")
            #expect(stderr.contains("the runner's \"count\" sets it"), "\(stderr)")
            let metrics = try #require(RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("none/record.json")))).groups.first).metrics
            #expect(metrics.counter("requests_completed") > 0)
            #expect(metrics.counters[MetricName.falseEmpties] == nil)
        }
    }
}
