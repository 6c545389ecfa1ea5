import Foundation
import CSQLite

/// A connection to an SQLite database file (Debian's libsqlite3), owning the `sqlite3` handle.
///
/// Write-ahead logging lets readers run while one process writes; the busy timeout makes
/// concurrent writers (several CI jobs adding runs at once) wait for each other instead of
/// failing.
final class SQLiteConnection: SQLConnection {
    let dialect = SQLDialect.sqlite
    private let handle: OpaquePointer
    private let path: String

    /// How long a writer waits for another one to finish.
    static let busyTimeoutMillis: Int32 = 60_000

    init(path: String) throws(HistoryError) {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let reason = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let opened { sqlite3_close_v2(opened) }
            throw .unavailable("sqlite:\(path): cannot open the database: \(reason)")
        }
        handle = opened
        self.path = path
        sqlite3_busy_timeout(handle, Self.busyTimeoutMillis)
        try enableWriteAheadLogging()
        try query("PRAGMA foreign_keys=ON")
    }

    /// Switches the database to write-ahead logging (a no-op once it is).
    ///
    /// Switching a file that is still in rollback mode needs its exclusive lock. When another
    /// connection holds the write lock meanwhile (several processes opening a new store at
    /// once, each switching it), SQLite answers "busy" at once instead of waiting in the busy
    /// handler, since waiting could deadlock. So this waits here, a few milliseconds at a time,
    /// up to the same busy timeout, and tries again.
    private func enableWriteAheadLogging() throws(HistoryError) {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Self.busyTimeoutMillis)
        var pause = 1
        while true {
            let code = sqlite3_exec(handle, "PRAGMA journal_mode=WAL", nil, nil, nil)
            if code == SQLITE_OK { return }
            guard code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED, clock.now < deadline else {
                throw failure("cannot switch to write-ahead logging")
            }
            usleep(UInt32(pause * 1_000))
            pause = min(pause * 2, 50)
        }
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws(HistoryError) -> [[SQLValue]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure("cannot prepare a statement")
        }
        defer { sqlite3_finalize(statement) }
        // SQLITE_TRANSIENT: SQLite copies the bound text before the call returns. The C macro is
        // the sentinel -1 cast to a destructor pointer, which Swift cannot import; never called.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (offset, parameter) in parameters.enumerated() {
            let index = Int32(offset + 1)
            switch parameter {
            case .null: sqlite3_bind_null(statement, index)
            case let .integer(value): sqlite3_bind_int64(statement, index, value)
            case let .real(value): sqlite3_bind_double(statement, index, value)
            case let .text(value): sqlite3_bind_text(statement, index, value, -1, transient)
            }
        }
        var rows: [[SQLValue]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                if code == SQLITE_CONSTRAINT || sqlite3_extended_errcode(handle) & 0xff == SQLITE_CONSTRAINT {
                    throw .database("sqlite:\(path): constraint violated: \(String(cString: sqlite3_errmsg(handle)))")
                }
                throw failure("a statement failed")
            }
            let columns = sqlite3_column_count(statement)
            var row: [SQLValue] = []
            row.reserveCapacity(Int(columns))
            for column in 0..<columns {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_NULL: row.append(.null)
                default: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                }
            }
            rows.append(row)
        }
        return rows
    }

    private func failure(_ what: String) -> HistoryError {
        .database("sqlite:\(path): \(what): \(String(cString: sqlite3_errmsg(handle)))")
    }
}
