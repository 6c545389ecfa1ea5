/// Parses TSV (tab-separated, no quoting) and CSV (comma-separated, RFC 4180 quoting) catalogs.
struct DelimitedParser {
    let file: String
    let separator: UInt8
    /// CSV: fields may be quoted, quotes doubled inside, newlines allowed inside quotes.
    let quoting: Bool

    private static let quote: UInt8 = 0x22
    private static let bar: UInt8 = 0x7C

    func parse(_ reader: inout LineReader, into sink: inout RowSink) throws(CatalogError) {
        var columns: [CatalogColumn?]? = nil
        var fields: [[UInt8]] = []
        var row = RawRow()
        while true {
            var recordLine = 0
            let gotRecord = try readRecord(&reader, fields: &fields, startLine: &recordLine, sink: &sink)
            guard let gotRecord else { break }
            if !gotRecord { continue }
            guard let header = columns else {
                columns = try parseHeader(fields, line: recordLine)
                continue
            }
            guard fields.count == header.count else {
                let missing = fields.count < header.count ? header[fields.count]?.rawValue : nil
                try sink.fail(CatalogError(file: file, line: recordLine, field: missing, kind: .malformedRow("expected \(header.count) fields, found \(fields.count)")))
                continue
            }
            row.reset(line: recordLine)
            for (column, value) in zip(header, fields) {
                switch column {
                case .id: row.id = value
                case .name: row.name = value
                case .scope: row.scope = value
                case .popularity: row.popularity = value
                case .tokens: row.tokens = value.split(separator: Self.bar, omittingEmptySubsequences: true).map { Array($0) }
                case nil: break
                }
            }
            try sink.accept(row)
        }
        if columns == nil {
            throw CatalogError(file: file, line: 1, kind: .badHeader("the file is empty; the first line must name the columns (id, name, scope, tokens, popularity)"))
        }
    }

    private func parseHeader(_ fields: [[UInt8]], line: Int) throws(CatalogError) -> [CatalogColumn?] {
        var seen = Set<CatalogColumn>()
        var columns: [CatalogColumn?] = []
        for field in fields {
            let name = String(decoding: field, as: UTF8.self).trimmingASCIIWhitespace().lowercased()
            let column = CatalogColumn(rawValue: name)
            if let column {
                guard seen.insert(column).inserted else {
                    throw CatalogError(file: file, line: line, field: name, kind: .badHeader("column '\(name)' appears twice"))
                }
            }
            columns.append(column)
        }
        for required in [CatalogColumn.id, .name] where !seen.contains(required) {
            throw CatalogError(file: file, line: line, field: required.rawValue, kind: .badHeader("no '\(required.rawValue)' column; the first line must name the columns"))
        }
        return columns
    }

    /// Reads the next record into `fields`. Returns nil at the end, false for a blank line.
    private func readRecord(_ reader: inout LineReader, fields: inout [[UInt8]], startLine: inout Int, sink: inout RowSink) throws(CatalogError) -> Bool? {
        fields.removeAll(keepingCapacity: true)
        var current: [UInt8] = []
        var inQuotes = false
        var fieldWasQuoted = false
        var afterQuote = false
        var first = true
        var malformed: String? = nil
        while true {
            let separator = separator, quoting = quoting
            let got: Bool? = try reader.nextLine { (line: UnsafeBufferPointer<UInt8>) throws(CatalogError) -> Bool in
                if first {
                    if line.isEmpty { return false }
                } else {
                    current.append(0x0A)
                }
                var i = 0
                if !quoting {
                    var fieldStart = 0
                    while i < line.count {
                        if line[i] == separator {
                            fields.append(Array(line[fieldStart..<i]))
                            fieldStart = i + 1
                        }
                        i += 1
                    }
                    fields.append(Array(line[fieldStart..<line.count]))
                    return true
                }
                while i < line.count {
                    let byte = line[i]
                    if inQuotes {
                        if byte == Self.quote {
                            if i + 1 < line.count, line[i + 1] == Self.quote {
                                current.append(Self.quote)
                                i += 1
                            } else {
                                inQuotes = false
                                afterQuote = true
                            }
                        } else {
                            current.append(byte)
                        }
                    } else if byte == separator {
                        fields.append(current)
                        current.removeAll(keepingCapacity: true)
                        fieldWasQuoted = false
                        afterQuote = false
                    } else if byte == Self.quote && current.isEmpty && !fieldWasQuoted {
                        inQuotes = true
                        fieldWasQuoted = true
                    } else if afterQuote {
                        if malformed == nil { malformed = "text after the closing quote of field \(fields.count + 1)" }
                        current.append(byte)
                    } else {
                        current.append(byte)
                    }
                    i += 1
                }
                return true
            }
            guard let got else {
                if first { return nil }
                // The file ended inside a quoted field.
                startLine = startLine == 0 ? reader.lineNumber : startLine
                try sink.fail(CatalogError(file: file, line: startLine, kind: .malformedRow("a quoted field is not closed before the end of the file")))
                return false
            }
            if first { startLine = reader.lineNumber }
            if !got { return false }
            first = false
            if !quoting { return true }
            if !inQuotes { break }
        }
        fields.append(current)
        if let malformed {
            try sink.fail(CatalogError(file: file, line: startLine, kind: .malformedRow(malformed)))
            return false
        }
        return true
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
