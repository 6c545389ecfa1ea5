/// A value bound to or read from a SQL statement. PostgreSQL answers in text, SQLite in its own
/// types; the accessors read either, so the store's code does not care which database it talks to.
package enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    package var string: String? {
        switch self {
        case .null: return nil
        case let .integer(value): return String(value)
        case let .real(value): return String(value)
        case let .text(value): return value
        }
    }

    package var int64: Int64? {
        switch self {
        case let .integer(value): return value
        case let .real(value): return Int64(exactly: value)
        case let .text(value): return Int64(value)
        case .null: return nil
        }
    }

    package var double: Double? {
        switch self {
        case let .integer(value): return Double(value)
        case let .real(value): return value
        case let .text(value): return Double(value)
        case .null: return nil
        }
    }
}

/// The two SQL dialects the store speaks. Everything that differs between them is decided in
/// `HistorySQL`, by this value.
package enum SQLDialect: String, Sendable {
    case sqlite
    case postgres
}

/// One open database connection, owned by one store on one thread.
///
/// Statements use `?` placeholders (the PostgreSQL connection numbers them); every call either
/// returns all rows or throws a `HistoryError` naming the database and what failed.
protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs one statement and returns its rows (empty for statements without results).
    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws(HistoryError) -> [[SQLValue]]
}

extension SQLConnection {
    @discardableResult
    func query(_ sql: String) throws(HistoryError) -> [[SQLValue]] {
        try query(sql, [])
    }
}
