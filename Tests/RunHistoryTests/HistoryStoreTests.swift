import CSQLite
import Diagnostics
import Foundation
import TypestormMetrics
import Reporting
import Testing
@testable import RunHistory

/// The store's contract on a real SQLite file; `PostgresTests` runs the same checks on a real
/// PostgreSQL server.
@Suite("History store (SQLite)", .timeLimit(.minutes(5)))
struct HistoryStoreTests {
    func freshStore() throws -> HistoryStore {
        try HistoryStore(.sqlite(path: try temporaryDirectory().appendingPathComponent("runs.db").path))
    }

    @Test func addsARunWithItsMetricsPerGroup() throws {
        try StoreChecks.addsARunWithItsMetricsPerGroup(try freshStore())
    }

    @Test func refusesTheSameRecordTwice() throws {
        try StoreChecks.refusesTheSameRecordTwice(try freshStore())
    }

    @Test func aFailedAddLeavesNothing() throws {
        try StoreChecks.aFailedAddLeavesNothing(try freshStore())
    }

    @Test func historyFlagsTheInjectedChange() throws {
        try StoreChecks.historyFlagsTheInjectedChange(try freshStore())
    }

    @Test func refusesPartialRuns() throws {
        let store = try freshStore()
        var record = sampleRecord(stale: 10, startedAtMillis: 1_000)
        record.partial = true
        record.problems = ["worker 1 exited with signal 9"]
        #expect(throws: HistoryError.self) { try store.add(record) }
        #expect(try store.counts().runs == 0)
    }

    @Test func migrationsAreVersionedAndRunOnce() throws {
        let path = try temporaryDirectory().appendingPathComponent("runs.db").path
        let first = try HistoryStore(.sqlite(path: path))
        #expect(try first.schemaVersion() == HistorySQL.latestVersion)
        try first.add(sampleRecord(stale: 10, startedAtMillis: 1_000))
        let again = try HistoryStore(.sqlite(path: path))
        #expect(try again.schemaVersion() == HistorySQL.latestVersion)
        #expect(try again.counts().runs == 1)
    }

    @Test func refusesAStoreFromANewerTypestorm() throws {
        let path = try temporaryDirectory().appendingPathComponent("runs.db").path
        let store = try HistoryStore(.sqlite(path: path))
        try store.connection.query(HistorySQL.recordVersion, [.integer(99), .integer(0)])
        #expect {
            _ = try HistoryStore(.sqlite(path: path))
        } throws: { error in
            (error as? HistoryError).map { "\($0)".contains("version 99") } == true
        }
    }

    /// A store opened while another connection holds the write lock of a file still in rollback
    /// mode (another process creating the same new store) waits for it: SQLite answers "busy"
    /// at once to the switch to write-ahead logging, without its busy handler.
    @Test func opensWhileAnotherConnectionHoldsTheWriteLock() throws {
        let path = try temporaryDirectory().appendingPathComponent("runs.db").path
        var opened: OpaquePointer?
        #expect(sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK)
        // Used by the releasing thread only after this thread has stopped touching it.
        nonisolated(unsafe) let writer = try #require(opened)
        #expect(sqlite3_exec(writer, "CREATE TABLE holder (x); BEGIN IMMEDIATE; INSERT INTO holder VALUES (1)", nil, nil, nil) == SQLITE_OK)
        let released = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            sqlite3_exec(writer, "COMMIT", nil, nil, nil)
            sqlite3_close_v2(writer)
        }
        released.start()
        let started = ContinuousClock.now
        let store = try HistoryStore(.sqlite(path: path))
        #expect(ContinuousClock.now - started >= .milliseconds(250), "the store opened while the write lock was held")
        try store.add(sampleRecord(stale: 10, startedAtMillis: 1_000))
        #expect(try store.counts().runs == 1)
        #expect(try store.connection.query("PRAGMA journal_mode").first?.first == .text("wal"))
    }

    @Test func storeLocationsAreParsedAndBadOnesNamed() throws {
        #expect(try StoreLocation("sqlite:runs.db") == .sqlite(path: "runs.db"))
        #expect(try StoreLocation("sqlite:///tmp/x.db") == .sqlite(path: "/tmp/x.db"))
        #expect(try StoreLocation("postgres://u@127.0.0.1:5432/db") == .postgres(url: "postgres://u@127.0.0.1:5432/db"))
        #expect(StoreLocation.postgres(url: "postgres://u:secret@127.0.0.1/db").description == "postgres://u:***@127.0.0.1/db")
        #expect(throws: HistoryError.badLocation("--store mysql://x: expected sqlite:PATH or postgres://USER@HOST:PORT/DATABASE")) {
            try StoreLocation("mysql://x")
        }
        #expect(throws: HistoryError.self) { try StoreLocation("sqlite:") }
    }

    @Test func anUnreachableServerIsUnavailableNotACrash() {
        #expect {
            _ = try HistoryStore(.postgres(url: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"))
        } throws: { error in
            if case .unavailable = error as? HistoryError { return true }
            return false
        }
    }
}

/// Checks that run against any store, so SQLite and PostgreSQL are held to the same contract.
enum StoreChecks {
    static func addsARunWithItsMetricsPerGroup(_ store: HistoryStore) throws {
        let record = sampleRecord(stale: 50, startedAtMillis: 1_700_000_000_000, commit: String(repeating: "a", count: 40))
        let run = try store.add(record, tags: ["nightly", "ci"])
        #expect(run.id == HistoryStore.runID(record))
        #expect(run.scenarioName == "history-test")
        #expect(run.gitCommit == String(repeating: "a", count: 40))
        #expect(run.hostname == "test-host")
        #expect(run.tags == ["ci", "nightly"])
        #expect(run.seed == 1)
        let stale = try store.values(metrics: ["stale.share"])
        #expect(stale.count == 1)
        #expect(stale.first?.value == 0.05)
        #expect(stale.first?.group == "naive|runner=virtual")
        #expect(stale.first?.strategy == "naive")
        let expected = Quantity.all.filter { $0.value(StrategySummary(record.groups[0])).map(\.isFinite) == true }.count
        #expect(try store.values(metrics: Quantity.all.map(\.id)).count == expected)
        #expect(try store.runs(scenario: "other").isEmpty)
    }

    static func refusesTheSameRecordTwice(_ store: HistoryStore) throws {
        let record = sampleRecord(stale: 50, startedAtMillis: 1_000)
        try store.add(record)
        #expect(throws: HistoryError.duplicate(runID: HistoryStore.runID(record), stored: store.location.description)) {
            try store.add(record)
        }
        // A different run (another start time) is a different record.
        try store.add(sampleRecord(stale: 50, startedAtMillis: 2_000))
        #expect(try store.counts().runs == 2)
    }

    static func aFailedAddLeavesNothing(_ store: HistoryStore) throws {
        store.failAfterRunRow = true
        #expect(throws: HistoryError.self) { try store.add(sampleRecord(stale: 50, startedAtMillis: 1_000)) }
        store.failAfterRunRow = false
        #expect(try store.counts() == (runs: 0, values: 0))
        // And the same record can then be added.
        try store.add(sampleRecord(stale: 50, startedAtMillis: 1_000))
        #expect(try store.counts().runs == 1)
    }

    /// Three runs, the third with twice the stale share: one change point, at run 3, for the
    /// worse; the unchanged time to fresh results has none.
    static func historyFlagsTheInjectedChange(_ store: HistoryStore) throws {
        try store.add(sampleRecord(stale: 50, startedAtMillis: 1_000, commit: String(repeating: "1", count: 40)))
        try store.add(sampleRecord(stale: 50, startedAtMillis: 2_000, commit: String(repeating: "2", count: 40)))
        try store.add(sampleRecord(stale: 100, startedAtMillis: 3_000, commit: String(repeating: "3", count: 40)))
        let history = try History(store: store, metrics: ["stale.share", "ttfr.p50"])
        #expect(history.scenarios.map(\.runs.count) == [3])
        let stale = try #require(history.series.first { $0.quantity.id == "stale.share" })
        #expect(stale.points.map(\.value) == [0.05, 0.05, 0.1])
        #expect(stale.changePoints.count == 1)
        #expect(stale.changePoints.first?.index == 2)
        #expect(stale.changePoints.first.map(stale.isRegression) == true)
        let ttfr = try #require(history.series.first { $0.quantity.id == "ttfr.p50" })
        #expect(ttfr.changePoints.isEmpty)
        #expect(history.exitCode == ExitCode.regression)
        #expect(history.terminalTable().contains("run 3 (3333333): +100.0 %"))
        #expect(history.markdown().contains("**run 3 (3333333): +100.0 %"))
        let junit = history.junit().render()
        #expect(junit.contains("tests=\"2\" failures=\"1\""))
        let html = HistoryReport(history: history).render()
        #expect(html.contains("<svg") && html.contains("+100 % · 100 %"))
        let csv = history.csv().split(separator: "\n")
        #expect(csv.count == 1 + 6)
        let json = try JSONSerialization.jsonObject(with: Data(try history.json().utf8)) as? [String: Any]
        #expect(json?["exitCode"] as? Int == 2)
    }
}
