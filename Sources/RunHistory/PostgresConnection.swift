import CLibPQ
import Foundation

/// A connection to a PostgreSQL server (Debian's libpq), owning the `PGconn` handle.
///
/// Parameters travel as text and results come back as text; `SQLValue`'s accessors convert.
final class PostgresConnection: SQLConnection {
    let dialect = SQLDialect.postgres
    private let handle: OpaquePointer
    /// The URL without its password, for messages.
    private let shownURL: String

    /// SQLSTATE of a unique-key violation.
    static let uniqueViolation = "23505"

    init(url: String) throws(HistoryError) {
        shownURL = Self.redacted(url)
        guard let connection = PQconnectdb(url) else {
            throw .unavailable("\(shownURL): libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(connection)
            throw .unavailable("\(shownURL): cannot connect: \(reason)")
        }
        handle = connection
        try query("SET client_min_messages TO warning")
    }

    deinit {
        PQfinish(handle)
    }

    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws(HistoryError) -> [[SQLValue]] {
        let numbered = Self.numberPlaceholders(sql)
        let texts: [String?] = parameters.map { $0.string }
        let pointers: [UnsafeMutablePointer<CChar>?] = texts.map { $0.flatMap { strdup($0) } }
        defer { pointers.forEach { free($0) } }
        let constPointers: [UnsafePointer<CChar>?] = pointers.map { $0.map { UnsafePointer($0) } }
        guard let result = PQexecParams(handle, numbered, Int32(parameters.count), nil, constPointers, nil, nil, 0) else {
            throw .database("\(shownURL): no answer: \(String(cString: PQerrorMessage(handle)))")
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
            if state == Self.uniqueViolation { throw .database("\(shownURL): constraint violated: \(message)") }
            throw .database("\(shownURL): a statement failed: \(message)")
        }
        let rowCount = PQntuples(result), columnCount = PQnfields(result)
        var rows: [[SQLValue]] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) != 0 {
                    values.append(.null)
                } else {
                    values.append(.text(String(cString: PQgetvalue(result, row, column))))
                }
            }
            rows.append(values)
        }
        return rows
    }

    /// `?` placeholders as `$1`, `$2`, …; the store's SQL has no `?` inside string literals.
    static func numberPlaceholders(_ sql: String) -> String {
        var out = ""
        var next = 1
        for character in sql {
            if character == "?" {
                out += "$\(next)"
                next += 1
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// `postgres://user:secret@host/db` as `postgres://user:***@host/db`.
    static func redacted(_ url: String) -> String {
        guard let components = URLComponents(string: url), components.password != nil else { return url }
        var shown = components
        shown.password = "***"
        return shown.string ?? url
    }
}
