/// An aligned plain-text table for terminals, the one every command prints: left-aligned text
/// columns, right-aligned numbers, widths in terminal columns (a Hangul syllable or a Chinese
/// character takes two, a combining mark none), so Korean and Chinese columns line up.
public struct TextTable: Sendable {
    /// The column titles; their count is the table's column count.
    public var headers: [String]
    /// The cells, row by row; a short row is padded with empty cells.
    public var rows: [[String]]
    /// The columns that are right-aligned (numbers).
    public var rightAligned: Set<Int>
    /// Put before every line (`"  "` indents a table under a heading).
    public var indent: String

    /// A table whose columns from `firstNumericColumn` on are right-aligned.
    public init(headers: [String], rows: [[String]] = [], firstNumericColumn: Int = 1, indent: String = "") {
        self.init(headers: headers, rows: rows, rightAligned: Set(firstNumericColumn..<max(firstNumericColumn, headers.count)), indent: indent)
    }

    /// A table with the given right-aligned columns.
    public init(headers: [String], rows: [[String]] = [], rightAligned: Set<Int>, indent: String = "") {
        self.headers = headers
        self.rows = rows
        self.rightAligned = rightAligned
        self.indent = indent
    }

    /// The table as text: the header, a rule, the rows; every line ends in a newline.
    public func render() -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { Self.displayWidth($0.indices.contains(column) ? $0[column] : "") }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            indent + headers.indices.map { column in
                let cell = cells.indices.contains(column) ? cells[column] : ""
                let pad = String(repeating: " ", count: widths[column] - Self.displayWidth(cell))
                return rightAligned.contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        var out = line(headers) + "\n"
        out += indent + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for row in rows { out += line(row) + "\n" }
        return out
    }

    /// Terminal columns of `text`: East Asian wide characters (Hangul, CJK, full-width forms,
    /// emoji) take two, combining marks and zero-width characters none.
    public static func displayWidth(_ text: String) -> Int {
        var width = 0
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F, 0x1160...0x11FF: continue
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
                 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1FAFF, 0x20000...0x3FFFD:
                width += 2
            default:
                width += scalar.properties.generalCategory == .nonspacingMark ? 0 : 1
            }
        }
        return width
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
