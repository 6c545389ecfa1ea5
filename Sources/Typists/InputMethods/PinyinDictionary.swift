/// Toneless pinyin readings for the characters (and a few words) of the shipped Chinese queries.
///
/// Format, one entry a line: the characters, a tab, the syllables separated by spaces, in
/// lower-case ASCII with `v` for ü (what pinyin keyboards type). Word entries (`银行\tyin hang`)
/// settle characters with several readings; `#` starts a comment.
public struct PinyinDictionary: Sendable, Hashable {
    /// Syllables per entry, keyed by the entry's characters.
    public private(set) var entries: [String: [String]] = [:]
    /// Longest entry, in characters, for longest-match lookup.
    public private(set) var longestEntry = 1

    /// An empty dictionary, which reads nothing; add entries with ``init(entries:)``.
    public init() {}

    /// A dictionary of the given readings: syllables per entry, keyed by the entry's characters.
    public init(entries: [String: [String]]) {
        for (word, syllables) in entries { add(word, syllables) }
    }

    /// Parse the dictionary format; errors name `file` and the line.
    public init(parsing text: String, file: String) throws {
        for (lineNumber, line) in entryLines(of: text) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: true)
            guard fields.count == 2 else {
                throw QueryPoolError.malformed(file: file, line: lineNumber, reason: "expected characters, a tab, then pinyin syllables")
            }
            let word = String(fields[0]).trimmingWhitespace()
            let syllables = fields[1].split(separator: " ").map(String.init)
            guard word.count == syllables.count else {
                throw QueryPoolError.malformed(file: file, line: lineNumber, reason: "'\(word)' has \(word.count) characters but \(syllables.count) syllables")
            }
            for syllable in syllables where syllable.isEmpty || !syllable.utf8.allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) {
                throw QueryPoolError.malformed(file: file, line: lineNumber, reason: "syllable '\(syllable)' is not lower-case a–z (write ü as v)")
            }
            add(word, syllables)
        }
    }

    private mutating func add(_ word: String, _ syllables: [String]) {
        entries[word] = syllables
        longestEntry = max(longestEntry, word.count)
    }

    /// Readings of `characters` by longest match, or the first character without one.
    public func syllables(for characters: [Character]) -> Result<[String], MissingReading> {
        var result: [String] = []
        var index = 0
        while index < characters.count {
            var length = min(longestEntry, characters.count - index)
            var found: [String]?
            while length > 0 {
                if let syllables = entries[String(characters[index..<(index + length)])] {
                    found = syllables
                    break
                }
                length -= 1
            }
            guard let found else { return .failure(MissingReading(character: characters[index])) }
            result += found
            index += length
        }
        return .success(result)
    }

    /// The first character ``syllables(for:)`` found no reading for, so a query list can name what
    /// the dictionary lacks.
    public struct MissingReading: Error, Sendable {
        /// The character without a reading.
        public var character: Character
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let characters = Array(self)
        guard let start = characters.firstIndex(where: { !$0.isWhitespace }),
              let end = characters.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(characters[start...end])
    }
}

/// The lines of a Typists data file (a query list, the pinyin dictionary) that hold an entry,
/// trimmed, with their line numbers from 1: blank lines and `#` comment lines are passed over.
func entryLines(of text: String) -> [(number: Int, line: String)] {
    var lines: [(number: Int, line: String)] = []
    for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let line = rawLine.trimmingWhitespace()
        if line.isEmpty || line.hasPrefix("#") { continue }
        lines.append((index + 1, line))
    }
    return lines
}
