/// The words the synthetic catalog generator builds product names from, per language, plus the
/// weighted scopes and tokens it assigns.
///
/// Shipped as text in `Datasets/vocabularies/` (one word per line, `[section]` headers, `#`
/// comments; scopes and tokens as `word<TAB>weight`) and compiled into the module as
/// `Vocabulary.builtin`, so `catalog generate` works from any directory; a test keeps the two
/// identical.
public struct Vocabulary: Sendable {
    /// The words of one language's product names.
    public struct Language: Sendable {
        /// `en`, `ko`, `zh`.
        public var code: String
        /// Brand names, UTF-8.
        public var brands: [[UInt8]]
        /// Adjectives, UTF-8.
        public var adjectives: [[UInt8]]
        /// Nouns (what the product is), UTF-8.
        public var nouns: [[UInt8]]
        /// Specifications appended after the noun (`500ml`, `1kg`), UTF-8.
        public var specs: [[UInt8]]
        /// Whether adjectives and the noun are joined with spaces (not in Chinese names).
        public var spacesBetweenWords: Bool
    }

    /// The languages names are generated in, in the order ``CatalogGenerator/languageWeights`` uses.
    public var languages: [Language]
    /// Scopes with their relative weights.
    public var scopes: [(name: String, weight: Int)]
    /// Tokens with their relative weights.
    public var tokens: [(name: String, weight: Int)]

    /// A problem in a vocabulary file, with its file and line.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        /// The vocabulary file's path.
        public var file: String
        /// The 1-based line at fault.
        public var line: Int
        /// What is wrong, in words.
        public var message: String
        public var description: String { "\(file):\(line): \(message)" }
    }

    /// Parses one language file (sections `brands`, `adjectives`, `nouns`, `specs`).
    public static func parseLanguage(code: String, text: String, file: String) throws(ParseError) -> Language {
        var sections: [String: [[UInt8]]] = [:]
        var current: String? = nil
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: " \t\r")
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast())
                continue
            }
            guard let section = current else { throw ParseError(file: file, line: number + 1, message: "a word before the first [section]") }
            sections[section, default: []].append(Array(line.utf8))
        }
        for required in ["brands", "adjectives", "nouns", "specs"] where (sections[required] ?? []).isEmpty {
            throw ParseError(file: file, line: 1, message: "section [\(required)] is missing or empty")
        }
        return Language(
            code: code, brands: sections["brands"]!, adjectives: sections["adjectives"]!,
            nouns: sections["nouns"]!, specs: sections["specs"]!, spacesBetweenWords: code != "zh"
        )
    }

    /// Parses a `word<TAB>weight` list.
    public static func parseWeighted(text: String, file: String) throws(ParseError) -> [(name: String, weight: Int)] {
        var result: [(name: String, weight: Int)] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: " \r")
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: "\t")
            guard parts.count == 2, let weight = Int(parts[1]), weight > 0 else {
                throw ParseError(file: file, line: number + 1, message: "expected 'word<TAB>weight' with a positive weight")
            }
            result.append((String(parts[0]), weight))
        }
        if result.isEmpty { throw ParseError(file: file, line: 1, message: "no entries") }
        return result
    }

    /// The file names in a vocabulary directory.
    public static let fileNames = ["en.txt", "ko.txt", "zh.txt", "scopes.txt", "tokens.txt"]

    /// Builds a vocabulary from the texts of `fileNames`, keyed by file name.
    public static func parse(files: [String: String]) throws(ParseError) -> Vocabulary {
        func text(_ name: String) throws(ParseError) -> String {
            guard let text = files[name] else { throw ParseError(file: name, line: 0, message: "file missing") }
            return text
        }
        return Vocabulary(
            languages: [
                try parseLanguage(code: "en", text: try text("en.txt"), file: "en.txt"),
                try parseLanguage(code: "ko", text: try text("ko.txt"), file: "ko.txt"),
                try parseLanguage(code: "zh", text: try text("zh.txt"), file: "zh.txt"),
            ],
            scopes: try parseWeighted(text: try text("scopes.txt"), file: "scopes.txt"),
            tokens: try parseWeighted(text: try text("tokens.txt"), file: "tokens.txt")
        )
    }

    /// The vocabulary shipped in `Datasets/vocabularies/`, compiled in.
    public static let builtin: Vocabulary = {
        do {
            return try parse(files: BuiltinVocabularyText.files)
        } catch {
            preconditionFailure("the built-in vocabulary does not parse: \(error)")
        }
    }()
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let first = s.first, set.contains(first) { s.removeFirst() }
        while let last = s.last, set.contains(last) { s.removeLast() }
        return String(s)
    }
}
