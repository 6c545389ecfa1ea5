/// Where a results store lives, from `--store URL`: `sqlite:PATH` (a file, created on first
/// use) or `postgres://…` / `postgresql://…` (a libpq connection URL).
package enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(url: String)

    /// The store `--store` means when it is not given.
    package static let defaultURL = "sqlite:runs.db"

    package init(_ text: String) throws(HistoryError) {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
            return
        }
        if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            // `sqlite:///abs/path` and `sqlite://rel` read as the path after the slashes' scheme part.
            if path.hasPrefix("//") { path = String(path.dropFirst(2)) }
            guard !path.isEmpty else { throw .badLocation("--store \(text): the SQLite store needs a file path, e.g. sqlite:runs.db") }
            self = .sqlite(path: path)
            return
        }
        throw .badLocation("--store \(text): expected sqlite:PATH or postgres://USER@HOST:PORT/DATABASE")
    }

    package var description: String {
        switch self {
        case let .sqlite(path): return "sqlite:\(path)"
        case let .postgres(url): return PostgresConnection.redacted(url)
        }
    }
}
