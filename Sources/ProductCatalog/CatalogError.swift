/// What is wrong with a catalog file, and where: file, line and field.
public struct CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong with the file or the row.
    public enum Kind: Sendable, Equatable {
        /// The file could not be opened or read (the system's reason).
        case cannotRead(String)
        /// The format could not be told from the file name.
        case unknownFormat
        /// The header is missing a required column or names one twice.
        case badHeader(String)
        /// The row does not parse (wrong field count, unbalanced quote, bad JSON).
        case malformedRow(String)
        /// A required field is absent or empty.
        case missingField
        /// The field is not valid UTF-8.
        case invalidUTF8(byteOffset: Int)
        /// The field's value has the wrong form (e.g. a popularity that is not a number).
        case invalidValue(String)
        /// The id was already used on an earlier line.
        case duplicateID(id: String, firstLine: Int)

        /// A short stable name, used to count skipped rows by reason.
        public var name: String {
            switch self {
            case .cannotRead: "cannot-read"
            case .unknownFormat: "unknown-format"
            case .badHeader: "bad-header"
            case .malformedRow: "malformed-row"
            case .missingField: "missing-field"
            case .invalidUTF8: "invalid-utf8"
            case .invalidValue: "invalid-value"
            case .duplicateID: "duplicate-id"
            }
        }
    }

    /// The catalog file's path.
    public var file: String
    /// 1-based line number where the row starts; `nil` for whole-file problems.
    public var line: Int?
    /// The field of the row at fault (`id`, `name`, ...); `nil` when the row or file as a whole is.
    public var field: String?
    /// What is wrong.
    public var kind: Kind

    /// An error in `file`, at `line` and `field` when known.
    public init(file: String, line: Int? = nil, field: String? = nil, kind: Kind) {
        self.file = file
        self.line = line
        self.field = field
        self.kind = kind
    }

    public var description: String {
        var location = file
        if let line { location += ":\(line)" }
        let subject = field.map { "field '\($0)': " } ?? ""
        let problem: String = switch kind {
        case let .cannotRead(reason): "cannot read the file: \(reason)"
        case .unknownFormat: "cannot tell the format from the file name; use a .tsv, .csv or .jsonl name or give the format"
        case let .badHeader(reason): "bad header: \(reason)"
        case let .malformedRow(reason): "malformed row: \(reason)"
        case .missingField: "missing value"
        case let .invalidUTF8(offset): "invalid UTF-8 at byte \(offset) of the field"
        case let .invalidValue(reason): "invalid value: \(reason)"
        case let .duplicateID(id, firstLine): "duplicate id '\(id)' (first used on line \(firstLine))"
        }
        return "\(location): \(subject)\(problem)"
    }
}
