import Foundation
import SearchServer
import Testing
@testable import Orchestration

extension CommandLineTests {
    @Test(.timeLimit(.minutes(5))) func calibrateWritesABackendThatRunAndSweepAccept() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await CalibrationTests.withModelServer(CalibrationTests.truth) { server in
            let (status, output) = try typestorm(
                ["calibrate", "\(server.baseURL)/search?q={query}", "--concurrency", "4", "--duration", "500ms", "--trials", "1",
                 "--out", directory.file("backend.json"), "--json"], in: directory)
            #expect(status == .exited(0), "\(output)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
            for key in ["url", "steps", "latency", "errorRate", "transportErrorRate", "capacity", "model", "backend", "out"] {
                #expect(object[key] != nil, "--json lacks \(key): \(output)")
            }
            #expect((object["steps"] as? [Any])?.count == 3)
        }
        let backend = try ScenarioReader.readBackend(bytes: Array(Data(contentsOf: URL(fileURLWithPath: directory.file("backend.json")))))
        #expect(backend.serviceMedianNanos > 10_000_000 && backend.serviceMedianNanos < 40_000_000, "\(backend)")

        let scenario = directory.write("s.json", probeScenarioJSON(typists: 4, duration: "1s"))
        let (run, _) = try typestorm(["run", scenario, "--backend", directory.file("backend.json"), "--out", directory.file("run"), "--quiet"], in: directory)
        #expect(run == .exited(0))
        let written = try ScenarioReader.read(bytes: Array(Data(contentsOf: URL(fileURLWithPath: directory.file("run/scenario.json")))))
        #expect(written.backend == backend)

        let bad = directory.write("bad.json", #"{"workers": 0}"#)
        let (rejected, _) = try typestorm(["run", scenario, "--backend", bad, "--out", directory.file("bad-run"), "--quiet"], in: directory)
        #expect(rejected == .exited(65))
        let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
        #expect(stderr.contains("$.backend.workers") && stderr.contains("--backend"), "\(stderr)")
    }

    @Test(.timeLimit(.minutes(5))) func calibrateRejectsBadInputInItsOwnWords() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.file("backend.json")
        let (typo, _) = try typestorm(["calibrate", "http://127.0.0.1:7700/search?q={qeury}", "--out", out], in: directory)
        #expect(typo == .exited(64))
        #expect(try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8).contains("qeury"))

        let (noOut, _) = try typestorm(["calibrate", "http://127.0.0.1:1/search?q={query}"], in: directory)
        #expect(noOut == .exited(64))

        let (refused, _) = try typestorm(["calibrate", "http://127.0.0.1:1/search?q={query}", "--out", out], in: directory)
        #expect(refused == .exited(1))
        let message = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
        #expect(message.contains("connection refused") && message.contains("nothing to calibrate"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: out))

        let (unwritable, _) = try typestorm(["calibrate", "http://127.0.0.1:1/search?q={query}", "--out", "/nonexistent/dir/backend.json"], in: directory)
        #expect(unwritable == .exited(73))

        let badModel = directory.write("model.json", #"{"serviceTime": {"median": "9ms", "p99": "2ms"}}"#)
        let (badLatency, _) = try typestorm(["serve", "--port", "0", "--latency", badModel], in: directory)
        #expect(badLatency == .exited(65))
        let serveError = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
        #expect(serveError.contains("model.json") && serveError.contains("$.serviceTime.p99") && serveError.contains("--latency"), "\(serveError)")

        let (noQueries, _) = try typestorm(["calibrate", "http://127.0.0.1:1/search?q={query}", "--queries", directory.file("missing.txt"), "--out", out], in: directory)
        #expect(noQueries == .exited(66))
    }
}
