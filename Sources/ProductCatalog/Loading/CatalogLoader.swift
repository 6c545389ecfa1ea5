#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file formats a catalog can be loaded from.
///
/// - `tsv`: a header line naming the columns (`id`, `name`, `scope`, `tokens`, `popularity`; any
///   order, unknown columns ignored), then one product per line, fields separated by tabs.
/// - `csv`: the same columns, RFC 4180 quoting (`"a, ""b"""`, quoted newlines allowed).
/// - `jsonl`: one JSON object per line with the same keys; `tokens` is an array of strings, `id`
///   a string or a number.
///
/// In TSV and CSV, `tokens` holds the tokens separated by `|`. `id` and `name` are required;
/// `scope` defaults to none, `tokens` to none, `popularity` to 0.
public enum CatalogFormat: String, Sendable, CaseIterable {
    case tsv, csv, jsonl

    /// The format a file name implies, from its extension.
    public init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".tsv") || lower.hasSuffix(".tab") { self = .tsv }
        else if lower.hasSuffix(".csv") { self = .csv }
        else if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") { self = .jsonl }
        else { return nil }
    }
}

/// How ``CatalogLoader`` reads a file: its format, and whether bad rows stop the load.
public struct CatalogLoadOptions: Sendable {
    /// `nil`: from the file name.
    public var format: CatalogFormat?
    /// Skip rows with errors (counting them) instead of stopping at the first.
    public var skipBadRows: Bool
    /// How many skipped-row errors to keep for display.
    public var keptErrors: Int

    /// Options; by default the format comes from the file name and the first bad row stops the load.
    public init(format: CatalogFormat? = nil, skipBadRows: Bool = false, keptErrors: Int = 10) {
        self.format = format
        self.skipBadRows = skipBadRows
        self.keptErrors = keptErrors
    }
}

/// A loaded catalog and what was skipped on the way.
public struct CatalogLoadResult: Sendable {
    /// The products read.
    public var catalog: Catalog
    /// The format the file was read as.
    public var format: CatalogFormat
    /// Rows skipped because of errors (only with `skipBadRows`).
    public var skippedRows: Int
    /// Skipped rows by `CatalogError.Kind.name`.
    public var skippedByKind: [String: Int]
    /// The first few errors of skipped rows, for display.
    public var skippedErrors: [CatalogError]
}

/// Loads catalogs from TSV, CSV and JSON Lines, streaming.
///
/// Rows are parsed straight from a 1 MiB read buffer into the catalog's columns, so loading a
/// file of 1M rows holds the catalog plus one chunk, never the file as a whole or a `String` per
/// field.
public enum CatalogLoader {
    /// Loads the catalog at `path`. Throws ``CatalogError`` naming the file, line and field of the
    /// first problem (with `skipBadRows`, only for whole-file problems).
    public static func load(path: String, options: CatalogLoadOptions = CatalogLoadOptions()) throws(CatalogError) -> CatalogLoadResult {
        guard let format = options.format ?? CatalogFormat(path: path) else {
            throw CatalogError(file: path, kind: .unknownFormat)
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw CatalogError(file: path, kind: .cannotRead(String(cString: strerror(errno)))) }
        defer { close(fd) }
        var sizeHint = 0
        var info = stat()
        if fstat(fd, &info) == 0 { sizeHint = Int(info.st_size) }
        do {
            return try load(source: .file(fd), name: path, format: format, options: options, sizeHint: sizeHint)
        } catch {
            var error = error
            if error.file.isEmpty { error.file = path }
            throw error
        }
    }

    /// Loads from bytes in memory; `name` stands for the file name in errors.
    public static func load(bytes: [UInt8], name: String, format: CatalogFormat, options: CatalogLoadOptions = CatalogLoadOptions()) throws(CatalogError) -> CatalogLoadResult {
        try load(source: .memory(bytes), name: name, format: format, options: options, sizeHint: bytes.count)
    }

    static func load(source: ByteSource, name: String, format: CatalogFormat, options: CatalogLoadOptions, sizeHint: Int) throws(CatalogError) -> CatalogLoadResult {
        var sink = RowSink(file: name, options: options)
        // About 60 % of a typical row is the name; reserving avoids regrowing large arrays.
        if sizeHint > 0 { sink.builder.reserveCapacity(products: sizeHint / 64, nameBytes: sizeHint * 6 / 10) }
        var reader = LineReader(source: source)
        switch format {
        case .tsv: try DelimitedParser(file: name, separator: 0x09, quoting: false).parse(&reader, into: &sink)
        case .csv: try DelimitedParser(file: name, separator: 0x2C, quoting: true).parse(&reader, into: &sink)
        case .jsonl: try JSONLinesParser(file: name).parse(&reader, into: &sink)
        }
        return CatalogLoadResult(
            catalog: sink.builder.build(), format: format, skippedRows: sink.skipped,
            skippedByKind: sink.skippedByKind, skippedErrors: sink.keptErrors
        )
    }
}

/// The columns a catalog row has.
enum CatalogColumn: String, CaseIterable {
    case id, name, scope, tokens, popularity
}

/// One parsed row: the bytes of each field, as the parser decoded them.
struct RawRow {
    var line = 0
    var id: [UInt8]? = nil
    var name: [UInt8]? = nil
    var scope: [UInt8]? = nil
    /// Each token's bytes.
    var tokens: [[UInt8]] = []
    /// The popularity's text (TSV, CSV) or number literal (JSON).
    var popularity: [UInt8]? = nil

    mutating func reset(line: Int) {
        self.line = line
        id = nil; name = nil; scope = nil; tokens.removeAll(keepingCapacity: true); popularity = nil
    }
}

/// Checks a parsed row and appends it to the catalog, or reports or counts its error.
struct RowSink {
    let file: String
    let options: CatalogLoadOptions
    var builder = CatalogBuilder()
    var skipped = 0
    var skippedByKind: [String: Int] = [:]
    var keptErrors: [CatalogError] = []
    /// Line of each row, to name the first line of a duplicate id (rows are not lines in CSV).
    private var rowLines: [Int32] = []

    init(file: String, options: CatalogLoadOptions) {
        self.file = file
        self.options = options
    }

    /// Handles an error of the row starting on `line`: throws it, or counts it when skipping.
    mutating func fail(_ error: CatalogError) throws(CatalogError) {
        guard options.skipBadRows else { throw error }
        skipped += 1
        skippedByKind[error.kind.name, default: 0] += 1
        if keptErrors.count < options.keptErrors { keptErrors.append(error) }
    }

    mutating func accept(_ row: RawRow) throws(CatalogError) {
        do throws(CatalogError) {
            try append(row)
        } catch {
            try fail(error)
        }
    }

    private mutating func append(_ row: RawRow) throws(CatalogError) {
        let line = row.line
        guard let id = row.id, !id.isEmpty else { throw CatalogError(file: file, line: line, field: "id", kind: .missingField) }
        guard let name = row.name, !name.isEmpty else { throw CatalogError(file: file, line: line, field: "name", kind: .missingField) }
        try validate(id, field: "id", line: line)
        try validate(name, field: "name", line: line)
        var scope = ""
        if let bytes = row.scope {
            try validate(bytes, field: "scope", line: line)
            scope = String(decoding: bytes, as: UTF8.self)
        }
        var tokens: [String] = []
        for token in row.tokens where !token.isEmpty {
            try validate(token, field: "tokens", line: line)
            tokens.append(String(decoding: token, as: UTF8.self))
        }
        var popularity: UInt32 = 0
        if let text = row.popularity, !text.isEmpty {
            guard let value = Self.parsePopularity(text) else {
                let shown = String(decoding: text.prefix(40), as: UTF8.self)
                throw CatalogError(file: file, line: line, field: "popularity", kind: .invalidValue("'\(shown)' is not an integer in 0...\(UInt32.max)"))
            }
            popularity = value
        }
        let earlier = id.withUnsafeBufferPointer { idBytes in
            name.withUnsafeBufferPointer { nameBytes in
                builder.append(id: idBytes, name: nameBytes, scope: scope, tokens: tokens, popularity: popularity)
            }
        }
        if let earlier {
            throw CatalogError(file: file, line: line, field: "id", kind: .duplicateID(id: String(decoding: id, as: UTF8.self), firstLine: Int(rowLines[earlier])))
        }
        rowLines.append(Int32(clamping: line))
    }

    private func validate(_ bytes: [UInt8], field: String, line: Int) throws(CatalogError) {
        let bad = bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidByte($0) }
        if let bad { throw CatalogError(file: file, line: line, field: field, kind: .invalidUTF8(byteOffset: bad)) }
    }

    /// A decimal integer (JSON may write it as `12.0` or `1e3`; those are accepted when whole).
    static func parsePopularity(_ text: [UInt8]) -> UInt32? {
        var value: UInt64 = 0
        var allDigits = true
        for byte in text {
            guard byte >= 0x30 && byte <= 0x39 else { allDigits = false; break }
            value = value * 10 + UInt64(byte - 0x30)
            if value > UInt64(UInt32.max) { return nil }
        }
        if allDigits { return UInt32(value) }
        guard let double = Double(String(decoding: text, as: UTF8.self)), double >= 0,
              double <= Double(UInt32.max), double.rounded() == double else { return nil }
        return UInt32(double)
    }
}
