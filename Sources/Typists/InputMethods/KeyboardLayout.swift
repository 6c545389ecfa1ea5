/// The physical QWERTY keyboard: which hand types a key and which keys are its neighbours.
///
/// Korean Dubeolsik and pinyin are typed on the same physical keys, so one table serves all
/// three input methods: a slip is a neighbouring *physical* key, whatever it means in the
/// current input method.
enum KeyboardLayout {
    /// Physical key number meaning "no key on the layout" (characters such as `é` or `&`).
    static let none: UInt8 = 0xFF
    static let space: UInt8 = 0xFE

    enum Hand: UInt8 { case left, right, neutral }

    /// Rows of unshifted characters, and how far each row is shifted to the right in key widths.
    static let rows: [(keys: [UInt8], offset: Double)] = [
        (Array("1234567890-=".utf8), 0),
        (Array("qwertyuiop[]".utf8), 0.5),
        (Array("asdfghjkl;'".utf8), 0.75),
        (Array("zxcvbnm,./".utf8), 1.25),
    ]

    /// The ASCII character of each physical key.
    static let characters: [UInt8] = rows.flatMap(\.keys)

    /// Physical key number of each ASCII byte (lower-cased), or `none`.
    static let physicalOfASCII: [UInt8] = {
        var table = [UInt8](repeating: none, count: 128)
        for (index, character) in characters.enumerated() {
            table[Int(character)] = UInt8(index)
            if character >= UInt8(ascii: "a") && character <= UInt8(ascii: "z") {
                table[Int(character - 32)] = UInt8(index)
            }
        }
        table[Int(UInt8(ascii: " "))] = space
        return table
    }()

    /// Hand of each physical key: touch-typing split between 5/6, T/Y, G/H and B/N.
    static let hands: [Hand] = {
        var result: [Hand] = []
        for (rowIndex, row) in rows.enumerated() {
            let split = [5, 5, 5, 5][rowIndex]
            for column in row.keys.indices {
                result.append(column < split ? .left : .right)
            }
        }
        return result
    }()

    /// Neighbours of each physical key: keys whose centres lie within 1.3 key widths. Only
    /// letter keys are kept as neighbours of letters, so a slip stays a plausible letter.
    static let neighbours: [[UInt8]] = {
        var centres: [(x: Double, y: Double, isLetter: Bool)] = []
        for (rowIndex, row) in rows.enumerated() {
            for (column, key) in row.keys.enumerated() {
                let isLetter = key >= UInt8(ascii: "a") && key <= UInt8(ascii: "z")
                centres.append((Double(column) + row.offset, Double(rowIndex), isLetter))
            }
        }
        return centres.indices.map { i in
            centres.indices.compactMap { j -> UInt8? in
                guard i != j else { return nil }
                let dx = centres[i].x - centres[j].x, dy = centres[i].y - centres[j].y
                guard (dx * dx + dy * dy).squareRoot() <= 1.3 else { return nil }
                if centres[i].isLetter && !centres[j].isLetter { return nil }
                return UInt8(j)
            }
        }
    }()

    static func hand(_ physical: UInt8) -> Hand {
        Int(physical) < hands.count ? hands[Int(physical)] : .neutral
    }

    static func physical(ofASCII byte: UInt8) -> UInt8 {
        byte < 128 ? physicalOfASCII[Int(byte)] : none
    }

    static func isSlippable(_ physical: UInt8) -> Bool {
        Int(physical) < neighbours.count && !neighbours[Int(physical)].isEmpty
    }
}
