/// Everything wrong with a scenario, each with the JSON path where it was found.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One problem: where in the scenario and what is wrong.
    public struct Issue: Sendable, Equatable, CustomStringConvertible {
        /// JSONPath of the offending value, e.g. `$.population.mix[1].share`.
        public var path: String
        /// What is wrong, in words.
        public var message: String

        /// A problem `message` at JSON path `path`.
        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }

        public var description: String { "\(path): \(message)" }
    }

    /// The file the scenario came from, when it came from one.
    public var file: String?
    /// Every problem found, in the order the reader found them; never empty when thrown.
    public var issues: [Issue]

    /// The problems `issues` of the scenario from `file` (`nil`: not from a file).
    public init(file: String? = nil, issues: [Issue]) {
        self.file = file
        self.issues = issues
    }

    public var description: String {
        let head = file.map { "invalid scenario \($0)" } ?? "invalid scenario"
        if issues.count == 1 { return "\(head): \(issues[0])" }
        return "\(head) (\(issues.count) problems):\n" + issues.map { "  \($0)" }.joined(separator: "\n")
    }
}

/// Parses durations as scenarios and flags write them: `300ms`, `1.5s`, `250us`, `2m`, `1h`, `10ns`.
public enum DurationText {
    /// The duration `text` means, in nanoseconds; `nil` when it is not a number with one of the
    /// units `ns`, `us`, `µs`, `ms`, `s`, `m`, `h` (or out of range).
    public static func nanos(_ text: String) -> Int64? {
        let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }), let value = Double(number), value.isFinite else { return nil }
            let nanos = value * scale
            guard nanos < 9.2e18 else { return nil }
            return Int64(nanos.rounded())
        }
        return nil
    }

    /// The shortest exact rendering: `300ms`, `2s`, `1500us`.
    public static func format(_ nanos: Int64) -> String {
        let units: [(String, Int64)] = [("h", 3_600_000_000_000), ("m", 60_000_000_000), ("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)]
        for (suffix, scale) in units where nanos != 0 && nanos % scale == 0 { return "\(nanos / scale)\(suffix)" }
        return "\(nanos)ns"
    }
}
