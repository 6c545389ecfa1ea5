import Foundation

extension QueryPool {
    /// Parse a query list: one phrase a line, most popular first, optionally a tab and a
    /// positive weight; `#` starts a comment line. Errors name `file` and the line.
    public static func parseEntries(_ text: String, file: String) throws -> [Entry] {
        var entries: [Entry] = []
        for (lineNumber, line) in entryLines(of: text) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            switch fields.count {
            case 1:
                entries.append(Entry(line, origin: "\(file):\(lineNumber)"))
            case 2:
                let weightText = fields[1].trimmingWhitespace()
                guard let weight = Double(weightText), weight.isFinite, weight > 0 else {
                    throw QueryPoolError.malformed(file: file, line: lineNumber, reason: "weight '\(weightText)' is not a positive number")
                }
                entries.append(Entry(fields[0].trimmingWhitespace(), weight: weight, origin: "\(file):\(lineNumber)"))
            default:
                throw QueryPoolError.malformed(file: file, line: lineNumber, reason: "expected a phrase, optionally a tab and a weight")
            }
        }
        return entries
    }

    /// Load `<directory>/<language>.txt` for each language, and `zh-pinyin.txt` when Chinese
    /// is asked for. Missing files are errors.
    public static func load(directory: String, languages: [TypingLanguage] = TypingLanguage.allCases, zipfExponent: Double = 0.75) throws -> QueryPool {
        var phrases: [TypingLanguage: [Entry]] = [:]
        var dictionary = PinyinDictionary()
        for language in languages {
            let path = (directory as NSString).appendingPathComponent("\(language.rawValue).txt")
            phrases[language] = try parseEntries(readText(path), file: path)
            if language == .zh {
                let pinyinPath = (directory as NSString).appendingPathComponent("zh-pinyin.txt")
                dictionary = try PinyinDictionary(parsing: readText(pinyinPath), file: pinyinPath)
            }
        }
        return try QueryPool(phrases: phrases, zipfExponent: zipfExponent, pinyin: dictionary)
    }

    static func readText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw QueryPoolError.missingFile(path) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw QueryPoolError.malformed(file: path, line: 1, reason: "not UTF-8")
        }
        return text
    }
}
