/// A range of grid values from the command line: `0:600:25` (start:end:step, end included),
/// `1:3` (step 1), `300` (one value) or `100,250,400` (a list).
package struct GridRange: Sendable, Equatable {
    package var values: [Int]

    /// The most grid values one range may have (a typo like `0:600000:1` should not run for hours).
    package static let limit = 2_000

    /// Parses `text`; the error message says what was expected (the caller adds the flag).
    package static func parse(_ text: String) throws(GridRangeError) -> GridRange {
        let trimmed = text.trimmingCharacters(in: " ")
        if trimmed.contains(",") {
            var values: [Int] = []
            for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
                guard let value = Int(part.trimmingCharacters(in: " ")), value >= 0 else {
                    throw GridRangeError(text: text, reason: "'\(part)' is not a non-negative integer")
                }
                values.append(value)
            }
            let unique = Array(Set(values)).sorted()
            guard unique.count <= limit else { throw GridRangeError(text: text, reason: "more than \(limit) values") }
            return GridRange(values: unique)
        }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: " ")) }
        guard (1...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else {
            throw GridRangeError(text: text, reason: "expected START:END[:STEP], a single value or a comma-separated list of non-negative integers")
        }
        let numbers = parts.map { $0! }
        if numbers.count == 1 { return GridRange(values: numbers) }
        let start = numbers[0], end = numbers[1], step = numbers.count == 3 ? numbers[2] : 1
        guard step > 0 else { throw GridRangeError(text: text, reason: "the step must be positive") }
        guard end >= start else { throw GridRangeError(text: text, reason: "the end (\(end)) is below the start (\(start))") }
        guard (end - start) / step + 1 <= limit else { throw GridRangeError(text: text, reason: "more than \(limit) values") }
        return GridRange(values: Array(stride(from: start, through: end, by: step)))
    }
}

package struct GridRangeError: Error, Equatable, CustomStringConvertible {
    package var text: String
    package var reason: String
    package var description: String { "'\(text)': \(reason)" }
}

extension Substring {
    func trimmingCharacters(in character: Character) -> String {
        String(self).trimmingCharacters(in: character)
    }
}

extension String {
    func trimmingCharacters(in character: Character) -> String {
        var copy = Substring(self)
        while copy.first == character { copy.removeFirst() }
        while copy.last == character { copy.removeLast() }
        return String(copy)
    }
}
