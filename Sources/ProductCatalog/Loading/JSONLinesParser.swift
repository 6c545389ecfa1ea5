import JSONReading

/// Parses JSON Lines catalogs: one flat JSON object per line.
///
/// Each line is read by the package's one JSON reader (`JSONParser`, strict RFC 8259, the same
/// that reads scenarios); the keys a product has are taken from the object as bytes and any
/// other member is ignored. Errors name the column where the JSON went wrong, or the key whose
/// value has the wrong type.
struct JSONLinesParser {
    let file: String

    func parse(_ reader: inout LineReader, into sink: inout RowSink) throws(CatalogError) {
        var row = RawRow()
        let file = file
        while true {
            let outcome: Result<Bool, CatalogError>? = try reader.nextLine { (line: UnsafeBufferPointer<UInt8>) throws(CatalogError) -> Result<Bool, CatalogError> in
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return .success(false) }
                row.reset(line: 0)
                let value: JSONValue
                do throws(JSONSyntaxError) {
                    value = try JSONParser.parse(Array(line))
                } catch {
                    return .failure(CatalogError(file: file, line: nil, field: nil, kind: .malformedRow("\(error.message) at column \(error.column)")))
                }
                do throws(WrongType) {
                    try Self.read(value, into: &row)
                } catch {
                    return .failure(CatalogError(file: file, line: nil, field: error.field, kind: error.field == nil
                        ? .malformedRow(error.message) : .invalidValue(error.message)))
                }
                return .success(true)
            }
            guard let outcome else { break }
            switch outcome {
            case .success(false):
                continue
            case .success(true):
                row.line = reader.lineNumber
                try sink.accept(row)
            case var .failure(error):
                error.line = reader.lineNumber
                try sink.fail(error)
            }
        }
    }

    /// A line that is JSON but not a product: not an object (`field` nil), or a key whose value
    /// has the wrong type.
    struct WrongType: Error {
        var message: String
        var field: String?
    }

    /// Takes the product's keys out of one line's object; other members are ignored.
    static func read(_ value: JSONValue, into row: inout RawRow) throws(WrongType) {
        guard case let .object(members) = value else { throw WrongType(message: "a line must be one JSON object, found \(value.kindName)") }
        for (key, member) in members {
            func wrong(_ expected: String) -> WrongType {
                WrongType(message: "'\(key)' must be \(expected), found \(member.kindName)", field: key)
            }
            switch CatalogColumn(rawValue: key) {
            case .id:
                switch member {
                case let .string(text): row.id = Array(text.utf8)
                case let .number(text): row.id = Array(text.utf8)
                default: throw wrong("a string or a number")
                }
            case .name:
                guard case let .string(text) = member else { throw wrong("a string") }
                row.name = Array(text.utf8)
            case .scope:
                switch member {
                case .null: row.scope = nil
                case let .string(text): row.scope = Array(text.utf8)
                default: throw wrong("a string")
                }
            case .tokens:
                switch member {
                case .null: break
                case let .array(items):
                    for item in items {
                        guard case let .string(token) = item else { throw wrong("an array of strings") }
                        row.tokens.append(Array(token.utf8))
                    }
                default: throw wrong("an array of strings")
                }
            case .popularity:
                switch member {
                case .null: break
                case let .number(text): row.popularity = Array(text.utf8)
                default: throw wrong("a number")
                }
            case nil:
                continue
            }
        }
    }
}
