import Foundation
import TypestormMetrics
import Testing
@testable import RunHistory

/// The store through the `typestorm` executable, as CI uses it: separate processes writing at
/// once, and real runs of a small virtual-time scenario with a change injected between them.
/// Each check runs on SQLite, and on PostgreSQL when it is installed (scripts/postgres-local).
@Suite("History store across processes", .timeLimit(.minutes(5)), .serialized)
struct StoreProcessTests {
    /// Four processes, each adding five records at the same time: all twenty arrive.
    static func concurrentWritersLoseNothing(store url: String) throws {
        let executable = try #require(typestormExecutable, "the typestorm executable is not built; run swift build first")
        let directory = try temporaryDirectory()
        var batches: [String] = []
        for writer in 0..<4 {
            let batch = directory.appendingPathComponent("writer-\(writer)")
            try FileManager.default.createDirectory(at: batch, withIntermediateDirectories: true)
            for index in 0..<5 {
                let record = sampleRecord(stale: Int64(10 + index), seed: UInt64(writer * 10 + index), startedAtMillis: Int64(1_000 * (writer * 5 + index + 1)))
                try record.encoded().write(to: batch.appendingPathComponent("run-\(index).json"))
            }
            batches.append(batch.path)
        }
        let processes = try batches.map { try RunningProcess(executable, ["store", "add", $0, "--store", url, "--tag", "concurrent"]) }
        let results = processes.map { $0.finish() }
        for result in results { #expect(result.code == 0, "\(result.err)") }
        let store = try HistoryStore(try StoreLocation(url))
        #expect(try store.counts().runs == 20)
        #expect(try store.runs().allSatisfy { $0.tags == ["concurrent"] })
        // Adding one of them again is refused by its id, with exit 65.
        let again = try runProcess(executable, ["store", "add", batches[0] + "/run-0.json", "--store", url])
        #expect(again.code == 65)
        #expect(again.err.contains("already in"))
    }

    /// `run --store` twice, the modelled backend made slower, a third run: `history` shows three
    /// runs and flags the change at run 3 (exit 2: the newest run regressed). The slow backend
    /// makes naive time out, so the scenario allows failed requests (else the run itself fails).
    static func runsWithAnInjectedChangeAreFlagged(store url: String) throws {
        let executable = try #require(typestormExecutable, "the typestorm executable is not built; run swift build first")
        let directory = try temporaryDirectory()
        let scenario = directory.appendingPathComponent("scenario.json")
        func write(serviceTime: String) throws {
            let text = """
            {
              "name": "history-e2e", "seed": 7, "duration": "30s", "processes": 1,
              "catalog": { "generate": { "items": 2000 } },
              "population": { "typists": 100, "session": { "queries": 2 } },
              "strategies": [ { "preset": "naive" }, { "preset": "split-state" } ],
              "runners": [ { "kind": "virtual" } ],
              "backend": { "workers": 4, "typistsPerServer": 100, "serviceTime": { "median": "\(serviceTime)", "p99": "200ms" }, "networkRTT": "20ms" },
              "thresholds": [ { "metric": "failed_share", "max": 1 } ]
            }
            """
            try Data(text.utf8).write(to: scenario)
        }
        try write(serviceTime: "20ms")
        for (index, service) in ["20ms", "20ms", "90ms"].enumerated() {
            try write(serviceTime: service)
            let result = try runProcess(executable, ["run", scenario.path, "--out", directory.appendingPathComponent("run-\(index)").path,
                                                     "--quiet", "--store", url])
            #expect(result.code == 0, "\(result.err)")
            #expect(result.err.contains("stored as run"))
        }
        let html = directory.appendingPathComponent("history.html").path
        let history = try runProcess(executable, ["history", "--store", url, "--scenario", "history-e2e", "--metric", "ttfr.p50",
                                                  "--strategy", "naive", "--out", html, "--json"])
        #expect(history.code == 2, "\(history.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(history.out.utf8)) as? [String: Any])
        let series = try #require(object["series"] as? [[String: Any]])
        #expect(series.count == 1)
        let points = try #require(series.first?["points"] as? [[String: Any]])
        #expect(points.count == 3)
        let changes = try #require(series.first?["changePoints"] as? [[String: Any]])
        #expect(changes.map { $0["run"] as? Int } == [3])
        #expect(changes.first?["direction"] as? String == "worse")
        #expect(FileManager.default.fileExists(atPath: html))
    }

    @Test func sqliteConcurrentWriters() throws {
        let url = "sqlite:" + (try temporaryDirectory().appendingPathComponent("runs.db").path)
        try Self.concurrentWritersLoseNothing(store: url)
    }

    @Test func sqliteRunsWithAnInjectedChange() throws {
        let url = "sqlite:" + (try temporaryDirectory().appendingPathComponent("runs.db").path)
        try Self.runsWithAnInjectedChangeAreFlagged(store: url)
    }

    /// Everything against one PostgreSQL server (started once: initdb is the slow part), each
    /// check in a database of its own.
    @Test(.enabled(if: LocalPostgres.isInstalled, "PostgreSQL is not installed (scripts/bootstrap installs postgresql-15)"))
    func postgres() throws {
        let server = try LocalPostgres.start()
        defer { server.stop() }
        let admin = try HistoryStore(try StoreLocation(server.url))
        var databases: [String] = []
        func fresh() throws -> String {
            let name = "check\(databases.count)"
            try admin.connection.query("CREATE DATABASE \(name)")
            databases.append(name)
            return server.url.replacingOccurrences(of: "/postgres", with: "/\(name)")
        }
        try StoreChecks.addsARunWithItsMetricsPerGroup(try HistoryStore(try StoreLocation(try fresh())))
        try StoreChecks.refusesTheSameRecordTwice(try HistoryStore(try StoreLocation(try fresh())))
        try StoreChecks.aFailedAddLeavesNothing(try HistoryStore(try StoreLocation(try fresh())))
        try StoreChecks.historyFlagsTheInjectedChange(try HistoryStore(try StoreLocation(try fresh())))
        try Self.concurrentWritersLoseNothing(store: try fresh())
        try Self.runsWithAnInjectedChangeAreFlagged(store: try fresh())
    }
}
