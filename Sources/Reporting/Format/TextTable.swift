/// An aligned plain-text table for terminals: left-aligned first columns, right-aligned numbers.
public struct TextTable: Sendable {
    public var headers: [String]
    public var rows: [[String]]
    /// Columns from this index on are right-aligned.
    public var firstNumericColumn: Int

    public init(headers: [String], rows: [[String]] = [], firstNumericColumn: Int = 1) {
        self.headers = headers
        self.rows = rows
        self.firstNumericColumn = firstNumericColumn
    }

    public func render() -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { displayWidth($0.indices.contains(column) ? $0[column] : "") }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            headers.indices.map { column in
                let cell = cells.indices.contains(column) ? cells[column] : ""
                let pad = String(repeating: " ", count: widths[column] - displayWidth(cell))
                return column >= firstNumericColumn ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        var out = line(headers) + "\n"
        out += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for row in rows { out += line(row) + "\n" }
        return out
    }

    /// Terminal columns: wide (CJK) characters take two.
    func displayWidth(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x1100 && $1.properties.isEmojiPresentation == false && isWide($1) ? 2 : 1) }
    }

    private func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6: return true
        default: return false
        }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
