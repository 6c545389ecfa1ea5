import Foundation
import TypestormMetrics
import Reporting

/// The results store: every run's record and its metrics per group, in SQLite or PostgreSQL.
///
/// Opening a store brings its schema up to date (versioned migrations, serialised across
/// processes). A run is added in one transaction, so a process killed halfway adds nothing; a
/// record already stored is refused by its id. The metrics stored are `Quantity.all` of every
/// group (the numbers `compare` checks), so history and compare read the same definitions; the
/// record itself is kept too, for anything computed later.
package final class HistoryStore {
    package let location: StoreLocation
    let connection: any SQLConnection

    /// Test hook: fail after the run's row is written, before its metrics (atomicity check).
    var failAfterRunRow = false

    /// Opens (with `create`, creates) the store. Readers pass `create: false`, so a mistyped
    /// SQLite path is an error rather than a new empty store.
    package init(_ location: StoreLocation, create: Bool = true) throws(HistoryError) {
        self.location = location
        switch location {
        case let .sqlite(path):
            if !create && !FileManager.default.fileExists(atPath: path) {
                throw .unavailable("\(location): no such store (runs are stored with 'typestorm store add' or 'typestorm run --store')")
            }
            connection = try SQLiteConnection(path: path)
        case let .postgres(url): connection = try PostgresConnection(url: url)
        }
        try migrate()
    }

    /// The schema version this store is at after opening.
    package func schemaVersion() throws(HistoryError) -> Int {
        Int(try connection.query(HistorySQL.currentVersion).first?.first?.int64 ?? 0)
    }

    private func migrate() throws(HistoryError) {
        try writeTransaction { () throws(HistoryError) in
            if let lock = HistorySQL.migrationLock(connection.dialect) { try connection.query(lock) }
            try connection.query(HistorySQL.createVersionTable)
            let version = try schemaVersion()
            guard version <= HistorySQL.latestVersion else {
                throw .unusable("\(location): the store's schema is version \(version), newer than this typestorm understands (\(HistorySQL.latestVersion)); upgrade typestorm")
            }
            let now = Self.nowMillis()
            for index in version..<HistorySQL.latestVersion {
                for statement in HistorySQL.migrations[index] { try connection.query(statement) }
                try connection.query(HistorySQL.recordVersion, [.integer(Int64(index + 1)), .integer(now)])
            }
        }
    }

    /// The id a record is stored under.
    package static func runID(_ record: RunRecord) -> String {
        let bytes = (try? record.encoded()) ?? Data()
        return SHA256.digest(Array(bytes)).prefix(10).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// Adds a complete run; returns its id. Partial runs are refused: their numbers describe
    /// part of the population, and a series would show the gap as a change.
    @discardableResult
    package func add(_ record: RunRecord, tags: [String] = [], addedAtMillis: Int64? = nil) throws(HistoryError) -> StoredRun {
        guard !record.partial else {
            throw .unusable("the run is partial (\(record.problems.joined(separator: "; "))); only complete runs go into the history")
        }
        let id = Self.runID(record)
        let added = addedAtMillis ?? Self.nowMillis()
        let json = String(decoding: (try? record.encoded()) ?? Data(), as: UTF8.self)
        let meta = record.metadata
        let tagText = Array(Set(tags)).sorted().joined(separator: ",")
        let runRow: [SQLValue] = [
            .text(id), .text(meta.scenarioName), .text(meta.scenarioHash), .text(String(meta.seed)), .text(meta.runner),
            .text(meta.toolVersion), Self.optional(meta.gitCommit), Self.optional(meta.host?.hostname),
            meta.host.map { .integer(Int64($0.cores)) } ?? .null, meta.host.map { .integer($0.memoryBytes) } ?? .null,
            Self.optional(meta.host?.os), meta.startedAtMillis.map { .integer($0) } ?? .null,
            meta.endedAtMillis.map { .integer($0) } ?? .null, .integer(added), .text(tagText), .text(json),
        ]
        do {
            try writeTransaction { () throws(HistoryError) in
                if !(try connection.query(HistorySQL.runExists, [.text(id)])).isEmpty {
                    throw .duplicate(runID: id, stored: location.description)
                }
                try connection.query(HistorySQL.insertRun, runRow)
                if failAfterRunRow { throw .database("\(location): stopped on purpose after the run's row (test)") }
                for group in record.groups {
                    let summary = StrategySummary(group)
                    for quantity in Quantity.all {
                        guard let value = quantity.value(summary), value.isFinite else { continue }
                        try connection.query(HistorySQL.insertMetric, [.text(id), .text(group.key), .text(group.name), .text(quantity.id), .real(value)])
                    }
                }
            }
        } catch let error {
            // A writer that lost a race on the same id fails on the primary key: say so plainly.
            if case .database = error, (try? connection.query(HistorySQL.runExists, [.text(id)]).isEmpty) == false {
                throw .duplicate(runID: id, stored: location.description)
            }
            throw error
        }
        let rows = try connection.query(HistorySQL.run, [.text(id)])
        guard let row = rows.first else { throw .database("\(location): run \(id) is not readable after it was added") }
        return try StoredRun(row: row)
    }

    /// Runs, oldest first.
    package func runs(scenario: String? = nil) throws(HistoryError) -> [StoredRun] {
        var result: [StoredRun] = []
        for row in try connection.query(HistorySQL.runs(scenario: scenario != nil), scenario.map { [.text($0)] } ?? []) {
            result.append(try StoredRun(row: row))
        }
        return result
    }

    /// One stored metric value.
    package struct Value: Sendable, Equatable {
        package var runID: String
        package var group: String
        package var strategy: String
        package var metric: String
        package var value: Double
    }

    /// Metric values, optionally of one scenario, some metrics and some strategies.
    package func values(scenario: String? = nil, metrics: [String] = [], strategies: [String] = []) throws(HistoryError) -> [Value] {
        var parameters: [SQLValue] = []
        if let scenario { parameters.append(.text(scenario)) }
        parameters += metrics.map { .text($0) } + strategies.map { .text($0) }
        let sql = HistorySQL.metrics(scenario: scenario != nil, metricCount: metrics.count, strategyCount: strategies.count)
        var result: [Value] = []
        for row in try connection.query(sql, parameters) {
            guard row.count == 5, let run = row[0].string, let group = row[1].string, let strategy = row[2].string,
                  let metric = row[3].string, let value = row[4].double
            else { throw .unusable("\(location): a row of the metrics table is not readable: \(row)") }
            result.append(Value(runID: run, group: group, strategy: strategy, metric: metric, value: value))
        }
        return result
    }

    /// Counts of stored runs and metric values (for messages and tests).
    package func counts() throws(HistoryError) -> (runs: Int, values: Int) {
        let runs = try connection.query(HistorySQL.runCount).first?.first?.int64 ?? 0
        let values = try connection.query(HistorySQL.metricCount).first?.first?.int64 ?? 0
        return (Int(runs), Int(values))
    }

    /// Runs `body` in a write transaction: committed when it returns, rolled back when it throws.
    private func writeTransaction(_ body: () throws(HistoryError) -> Void) throws(HistoryError) {
        try connection.query(HistorySQL.beginWrite(connection.dialect))
        do {
            try body()
            try connection.query(HistorySQL.commit)
        } catch {
            _ = try? connection.query(HistorySQL.rollback)
            throw error
        }
    }

    private static func optional(_ text: String?) -> SQLValue {
        text.map { .text($0) } ?? .null
    }

    static func nowMillis() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000)
    }
}
