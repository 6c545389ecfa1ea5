import Foundation
import Testing
@testable import TypestormCLI

/// `store`, `history` and `compare --junit` as a user calls them: exit codes and messages.
extension CommandTests {
    static let recordedRun = root + "/Tests/ReportingTests/Fixtures/recorded-virtual-run"
    static let strategiesRecord = root + "/Tests/ReportingTests/Fixtures/run-strategies.json"

    @Test func storeAddThenHistoryOnSQLite() async throws {
        let directory = try temporaryFile("placeholder", "")
        let store = "sqlite:" + (directory as NSString).deletingLastPathComponent + "/runs.db"
        let added = await run(["store", "add", Self.recordedRun, "--store", store, "--tag", "fixture", "--json"])
        #expect(added.code == 0, "\(added.err)")
        #expect(added.out.contains("\"scenario\" : \"default-virtual\""))
        let again = await run(["store", "add", Self.recordedRun, "--store", store])
        #expect(again.code == 65)
        #expect(again.err.contains("already in \(store)"))
        let html = (directory as NSString).deletingLastPathComponent + "/history.html"
        let history = await run(["history", "--store", store, "--out", html])
        #expect(history.code == 0, "\(history.err)")
        #expect(history.out.contains("1 run of 1 scenario"))
        #expect(FileManager.default.fileExists(atPath: html))
        try FileManager.default.removeItem(atPath: html)
        let json = await run(["history", "--store", store, "--json"])
        #expect(json.code == 0, "\(json.err)")
        #expect(!json.err.contains("history:"), "wrote a page without --out: \(json.err)")
        let jsonWithPage = await run(["history", "--store", store, "--json", "--out", html])
        #expect(jsonWithPage.err.contains("history: \(html)"))
        #expect(FileManager.default.fileExists(atPath: html))
    }

    @Test func historyRefusesAMissingStoreAndBadOptions() async throws {
        let missing = await run(["history", "--store", "sqlite:/nonexistent/runs.db", "--no-html"])
        #expect(missing.code == 66)
        #expect(missing.err.contains("no such store"))
        let badURL = await run(["store", "add", Self.recordedRun, "--store", "mysql://db/x"])
        #expect(badURL.code == 64)
        #expect(badURL.err.contains("expected sqlite:PATH or postgres://"))
        let badMetric = await run(["history", "--metric", "ttfr.p42", "--no-html"])
        #expect(badMetric.code == 64)
        #expect(badMetric.err.contains("ttfr.p42"))
        let noRun = await run(["store", "add", "/nonexistent/run", "--store", "sqlite:/tmp/unused-\(UUID().uuidString).db"])
        #expect(noRun.code == 66)
    }

    @Test func compareWritesJUnit() async throws {
        let junit = (try temporaryFile("placeholder", "") as NSString).deletingLastPathComponent + "/compare.xml"
        let result = await run(["compare", Self.strategiesRecord, Self.strategiesRecord, "--junit", junit])
        #expect(result.code == 0)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.hasPrefix("<?xml"))
        #expect(xml.contains("failures=\"0\""))
        #expect(xml.contains("<testcase classname=\"typestorm.compare.naive"))
    }
}
