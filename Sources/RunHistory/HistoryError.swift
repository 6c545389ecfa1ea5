/// What went wrong with a results store, in words a user can act on.
package enum HistoryError: Error, CustomStringConvertible, Equatable {
    /// The `--store` value is not a store URL (maps to exit 64).
    case badLocation(String)
    /// The database cannot be opened or reached (maps to exit 66).
    case unavailable(String)
    /// The same run record is already stored (maps to exit 65).
    case duplicate(runID: String, stored: String)
    /// A record the store will not take, or a store this build cannot read (maps to exit 65).
    case unusable(String)
    /// A statement failed (maps to exit 70).
    case database(String)

    package var description: String {
        switch self {
        case let .badLocation(message), let .unavailable(message), let .unusable(message), let .database(message):
            return message
        case let .duplicate(runID, stored):
            return "run \(runID) is already in \(stored); the same record is never added twice"
        }
    }
}
