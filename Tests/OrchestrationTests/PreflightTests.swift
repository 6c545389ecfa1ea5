import Foundation
import Testing
@testable import Orchestration

@Suite("Checked before load starts", .timeLimit(.minutes(5)))
struct PreflightTests {
    func urlIssues(_ url: String) -> [ScenarioError.Issue] {
        let json = httpURLScenarioJSON(url: url)
        do {
            _ = try ScenarioReader.read(json: json)
            return []
        } catch {
            return error.issues
        }
    }

    @Test func urlTemplatesAreCheckedByTheReader() {
        let typo = urlIssues("http://127.0.0.1:8080/search?q={qeury}")
        #expect(typo.map(\.path) == ["$.runners[0].url"])
        #expect(typo.first?.message.contains("unknown placeholder {qeury}") == true)
        let port = urlIssues("http://127.0.0.1:99999/search?q={query}")
        #expect(port.map(\.path) == ["$.runners[0].url"])
        #expect(port.first?.message.contains("port '99999' is not a number in 1...65535") == true)
        let bracket = urlIssues("http://[::1/search?q={query}")
        #expect(bracket.first?.message.contains("without a closing ']'") == true)
        #expect(!urlIssues("http://exa mple.com/search?q={query}").isEmpty)
        #expect(!urlIssues("http://127.0.0.1:/search?q={query}").isEmpty)
        #expect(!urlIssues("http://{query}/search").isEmpty)
        for good in ["http://127.0.0.1:8080/search?q={query}", "https://search.example.com/q/{query}",
                     "http://[::1]:7700/indexes/p/search?q={query}", "http://user:secret@localhost/s?q={query}&limit={limit}"] {
            #expect(urlIssues(good).isEmpty, "\(good)")
        }
    }
}

extension CommandLineTests {
    @Test func aBadCatalogRowFailsBeforeAnyWorkerAndLeavesNoRunDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = directory.write("catalog.jsonl", "{\"id\": \"1\", \"name\": \"a lamp\"}\n{\"id\": \"2\", \"name\": \n")
        let json = probeScenarioJSON().replacingOccurrences(of: #"{ "generate": { "items": 100 } }"#, with: #"{ "file": "catalog.jsonl" }"#)
        let scenario = directory.write("s.json", json)
        let (status, _) = try typestorm(["run", scenario, "--out", directory.file("run"), "--quiet"], in: directory)
        #expect(status == .exited(65))
        let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
        #expect(stderr.contains("$.catalog.file: ") && stderr.contains("catalog.jsonl:2"), "\(stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!left.contains { $0.hasPrefix("run") || $0.hasPrefix(".run") }, "\(left)")
    }

    @Test func aStandaloneWorkerRefusesTheEmbeddedServerRunnerAtOnce() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("s.json", probeScenarioJSON(runners: #"[{"kind": "probe"}, {"kind": "http-embedded"}]"#))
        let (status, _) = try typestorm(["worker", scenario, "--out", directory.file("segment.json")], in: directory)
        #expect(status == .exited(70))
        let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
        #expect(stderr.contains("$.runners[1]") && stderr.contains("typestorm run"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("segment.json")))
    }
}
