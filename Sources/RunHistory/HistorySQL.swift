/// Every SQL statement of the results store, in one place, for both dialects.
///
/// The schema is versioned: `migrations[i]` takes a store from version i to i + 1, and
/// `typestorm_schema` holds one row per applied version. Types are spelled so that SQLite and
/// PostgreSQL read them alike (`BIGINT`, `DOUBLE PRECISION`, `TEXT`).
enum HistorySQL {
    static let migrations: [[String]] = [
        // Version 1: runs and their metrics.
        [
            """
            CREATE TABLE runs (
                id TEXT PRIMARY KEY,
                scenario_name TEXT NOT NULL,
                scenario_hash TEXT NOT NULL,
                seed TEXT NOT NULL,
                runner TEXT NOT NULL,
                tool_version TEXT NOT NULL,
                git_commit TEXT,
                hostname TEXT,
                cores INTEGER,
                memory_bytes BIGINT,
                os TEXT,
                started_at_ms BIGINT,
                ended_at_ms BIGINT,
                added_at_ms BIGINT NOT NULL,
                tags TEXT NOT NULL,
                record_json TEXT NOT NULL
            )
            """,
            "CREATE INDEX runs_by_scenario ON runs (scenario_name, started_at_ms)",
            """
            CREATE TABLE metrics (
                run_id TEXT NOT NULL REFERENCES runs (id),
                group_key TEXT NOT NULL,
                strategy TEXT NOT NULL,
                metric TEXT NOT NULL,
                value DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (run_id, group_key, metric)
            )
            """,
        ],
    ]

    static var latestVersion: Int { migrations.count }

    static let createVersionTable =
        "CREATE TABLE IF NOT EXISTS typestorm_schema (version INTEGER PRIMARY KEY, applied_at_ms BIGINT NOT NULL)"
    static let currentVersion = "SELECT COALESCE(MAX(version), 0) FROM typestorm_schema"
    static let recordVersion = "INSERT INTO typestorm_schema (version, applied_at_ms) VALUES (?, ?)"

    /// Starts a write transaction that excludes other writers from the start: SQLite takes its
    /// write lock now (so two writers never both read "not there yet"), PostgreSQL starts a
    /// transaction that the advisory lock below serialises where needed.
    static func beginWrite(_ dialect: SQLDialect) -> String {
        dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN"
    }

    /// Serialises schema migrations across processes (PostgreSQL; SQLite's write lock does it).
    static func migrationLock(_ dialect: SQLDialect) -> String? {
        dialect == .postgres ? "SELECT pg_advisory_xact_lock(7214707914)" : nil
    }

    static let commit = "COMMIT"
    static let rollback = "ROLLBACK"

    static let runExists = "SELECT added_at_ms FROM runs WHERE id = ?"

    static let insertRun = """
        INSERT INTO runs (id, scenario_name, scenario_hash, seed, runner, tool_version, git_commit, hostname, cores,
                          memory_bytes, os, started_at_ms, ended_at_ms, added_at_ms, tags, record_json)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static let insertMetric = "INSERT INTO metrics (run_id, group_key, strategy, metric, value) VALUES (?, ?, ?, ?, ?)"

    /// The columns `StoredRun.init(row:)` reads, in order.
    static let runColumns = """
        id, scenario_name, scenario_hash, seed, runner, tool_version, git_commit, hostname, cores, memory_bytes, os,
        started_at_ms, ended_at_ms, added_at_ms, tags
        """

    static let run = "SELECT \(runColumns) FROM runs WHERE id = ?"

    /// Runs, oldest first (start time, or the time they were added when the record has none),
    /// optionally of one scenario.
    static func runs(scenario: Bool) -> String {
        "SELECT \(runColumns) FROM runs" + (scenario ? " WHERE scenario_name = ?" : "")
            + " ORDER BY COALESCE(started_at_ms, added_at_ms), added_at_ms, id"
    }

    /// Metric values of runs, optionally only some metrics and strategies (`?` per value).
    static func metrics(scenario: Bool, metricCount: Int, strategyCount: Int) -> String {
        var sql = "SELECT m.run_id, m.group_key, m.strategy, m.metric, m.value FROM metrics m JOIN runs r ON r.id = m.run_id"
        var conditions: [String] = []
        if scenario { conditions.append("r.scenario_name = ?") }
        if metricCount > 0 { conditions.append("m.metric IN (" + Array(repeating: "?", count: metricCount).joined(separator: ", ") + ")") }
        if strategyCount > 0 { conditions.append("m.strategy IN (" + Array(repeating: "?", count: strategyCount).joined(separator: ", ") + ")") }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        return sql + " ORDER BY m.group_key, m.metric"
    }

    static let runCount = "SELECT COUNT(*) FROM runs"
    static let metricCount = "SELECT COUNT(*) FROM metrics"
}
