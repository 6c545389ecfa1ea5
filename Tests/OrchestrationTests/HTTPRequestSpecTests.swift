import Foundation
import Testing
@testable import Orchestration

@Suite("http-url request settings", .timeLimit(.minutes(5)))
struct HTTPRequestSpecTests {
    func runner(_ keys: String) throws(ScenarioError) -> RunnerSpec {
        let runners = #"[{"kind": "http-url", "url": "https://search.example.com/q?q={query}", \#(keys)}]"#
        let json = probeScenarioJSON(runners: runners)
        return try ScenarioReader.read(json: json).runners[0]
    }

    func issues(_ keys: String) -> [ScenarioError.Issue] {
        do {
            _ = try runner(keys)
            return []
        } catch {
            return error.issues
        }
    }

    @Test func presetsCountPathsHeadersCAAndCompressionAreRead() throws {
        let spec = try runner(#""preset": "elasticsearch", "headers": {"X-Api-Key": {"env": "TS_TEST_KEY"}, "Accept": "application/json"}, "caFile": "ca.pem", "compressed": true"#)
        guard case let .httpURL(_, request) = spec else { Issue.record("not http-url"); return }
        #expect(request.preset == .elasticsearch)
        #expect(request.effectiveCountPath == "hits.total.value")
        #expect(request.headers == [.init(name: "X-Api-Key", value: .environment("TS_TEST_KEY")), .init(name: "Accept", value: .literal("application/json"))])
        #expect(request.caFile == "ca.pem" && request.compressed)
        #expect(try request.headerLines(environment: ["TS_TEST_KEY": "s3cret"]) == ["X-Api-Key: s3cret", "Accept: application/json"])
        #expect(throws: HTTPRequestSpec.MissingEnvironment.self) { try request.headerLines(environment: [:]) }
        let explicit = try runner(#""preset": "solr", "count": "response.docs.#""#)
        guard case let .httpURL(_, explicitRequest) = explicit else { return }
        #expect(explicitRequest.effectiveCountPath == "response.docs.#")
    }

    @Test func theCanonicalScenarioNamesTheVariableNeverTheSecret() throws {
        let runners = #"[{"kind": "http-url", "url": "http://127.0.0.1:7700/search?q={query}", "headers": {"Authorization": {"env": "TS_TEST_TOKEN"}}}]"#
        let scenario = try ScenarioReader.read(json: probeScenarioJSON(runners: runners))
        let canonical = scenario.canonicalJSON.canonical
        #expect(canonical.contains(#""Authorization":{"env":"TS_TEST_TOKEN"}"#))
        let reread = try ScenarioReader.read(json: canonical)
        #expect(reread == scenario && reread.hash == scenario.hash)
        #expect(SearchEnginePreset.allCases.map(\.countPath) == ["estimatedTotalHits", "found", "hits.total.value", "hits.total.value", "nbHits", "response.numFound"])
    }

    @Test func badSettingsNameTheirPath() {
        #expect(issues(#""preset": "elastic""#).first?.path == "$.runners[0].preset")
        #expect(issues(#""count": "hits..total""#).first?.path == "$.runners[0].count")
        #expect(issues(#""headers": {"Bad Name": "x"}"#).first?.path == "$.runners[0].headers.Bad Name")
        #expect(issues(#""headers": {"X-Key": {"env": "NOT-A-NAME"}}"#).first?.path == "$.runners[0].headers.X-Key.env")
        #expect(issues(#""headers": {"X-Key": 42}"#).first?.path == "$.runners[0].headers.X-Key")
        #expect(issues(#""compresed": true"#).first?.message.contains("did you mean \"compressed\"") == true)
    }
}

extension CommandLineTests {
    @Test func aHeaderFromAnUnsetVariableOrAMissingCAFileFailsBeforeLoad() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let header = probeScenarioJSON(runners: #"[{"kind": "http-url", "url": "http://127.0.0.1:9/s?q={query}", "headers": {"X-Key": {"env": "TYPESTORM_TEST_UNSET_VARIABLE"}}}]"#)
        let (status, _) = try typestorm(["run", directory.write("h.json", header), "--out", directory.file("h"), "--quiet"], in: directory)
        #expect(status == .exited(66))
        let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
        #expect(stderr.contains("$.runners[0].headers.X-Key") && stderr.contains("TYPESTORM_TEST_UNSET_VARIABLE"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("h")))
        let ca = probeScenarioJSON(runners: #"[{"kind": "http-url", "url": "https://127.0.0.1:9/s?q={query}", "caFile": "missing-ca.pem"}]"#)
        let (caStatus, _) = try typestorm(["run", directory.write("c.json", ca), "--out", directory.file("c"), "--quiet"], in: directory)
        #expect(caStatus == .exited(66))
        #expect(try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8).contains("$.runners[0].caFile"))
    }
}

extension HTTPRequestSpecTests {
    @Test func aBodyTemplateIsReadAndChecked() throws {
        let spec = try runner(#""body": "{\"q\": \"{query}\", \"limit\": {limit}}""#)
        guard case let .httpURL(_, request) = spec else { Issue.record("not http-url"); return }
        #expect(request.body == #"{"q": "{query}", "limit": {limit}}"#)
        #expect(issues(#""body": "{\"q\": \"{qeury}\"}""#).first?.path == "$.runners[0].body")
        #expect(issues(#""body": "{\"q\": {query}}""#).first?.message.contains("JSON once its placeholders are filled in") == true)
        let post = probeScenarioJSON(runners: #"[{"kind": "http-url", "url": "http://127.0.0.1:7700/indexes/p/search", "body": "{\"q\": \"{query}\"}"}]"#)
        #expect(throws: Never.self) { try ScenarioReader.read(json: post) }
        let neither = probeScenarioJSON(runners: #"[{"kind": "http-url", "url": "http://127.0.0.1:7700/indexes/p/search"}]"#)
        #expect(throws: ScenarioError.self) { try ScenarioReader.read(json: neither) }
    }
}

extension HTTPRequestSpecTests {
    @Test func theClientIsReadWrittenBackOnlyWhenChosenAndCheckedAgainstTheURL() throws {
        guard case let .httpURL(_, chosen) = try runner(#""client": "curl""#) else { Issue.record("not http-url"); return }
        #expect(chosen.client == .curl)
        guard case let .httpURL(_, defaulted) = try runner(#""count": "total""#) else { return }
        #expect(defaulted.client == .auto)
        let plain = probeScenarioJSON(runners: #"[{"kind": "http-url", "url": "http://127.0.0.1:7700/search?q={query}", "client": "plain"}]"#)
        let scenario = try ScenarioReader.read(json: plain)
        #expect(scenario.canonicalJSON.canonical.contains(#""client":"plain""#))
        let auto = probeScenarioJSON(runners: #"[{"kind": "http-url", "url": "http://127.0.0.1:7700/search?q={query}", "client": "auto"}]"#)
        #expect(!(try ScenarioReader.read(json: auto)).canonicalJSON.canonical.contains(#""client""#))
        // The runner's URL is https: the plain client cannot carry it.
        #expect(issues(#""client": "plain""#).first?.path == "$.runners[0].client")
        #expect(issues(#""client": "plain""#).first?.message.contains("http:// only") == true)
        #expect(issues(#""client": "libcurl""#).first?.path == "$.runners[0].client")
        let compressed = probeScenarioJSON(runners: #"[{"kind": "http-url", "url": "http://127.0.0.1:7700/search?q={query}", "client": "plain", "compressed": true}]"#)
        do {
            _ = try ScenarioReader.read(json: compressed)
            Issue.record("plain with compressed was accepted")
        } catch {
            #expect(error.issues.first?.path == "$.runners[0].client")
        }
    }
}

extension ScenarioOverrideTests {
    @Test func httpClientSetsEveryHTTPURLRunner() throws {
        let scenario = try read([.url("http://127.0.0.1:7700/search?q={query}"), .httpClient("curl")])
        guard case let .httpURL(_, request) = scenario.runners.first else { Issue.record("no http-url runner"); return }
        #expect(request.client == .curl)
        do {
            _ = try read([.httpClient("plain")])
            Issue.record("--http-client on a scenario without http-url runners was accepted")
        } catch {
            #expect(error.issues.first?.message.contains("--http-client plain: the scenario has no http-url runner") == true)
        }
    }
}
