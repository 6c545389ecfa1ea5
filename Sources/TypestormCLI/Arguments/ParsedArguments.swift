import Diagnostics

/// The values of one command line, already checked against the command's declaration.
///
/// Typed accessors convert and validate; a value that does not convert throws a `UsageError`
/// naming the flag, so every command reports bad values the same way.
package struct ParsedArguments: Sendable, Equatable {
    /// Option values by long name, in the order given; flags hold `[""]`.
    package var options: [String: [String]]
    package var positionals: [String]

    package init(options: [String: [String]] = [:], positionals: [String] = []) {
        self.options = options
        self.positionals = positionals
    }

    package func flag(_ name: String) -> Bool {
        options[name] != nil
    }

    /// The last value given for the option, or `nil`.
    package func value(_ name: String) -> String? {
        options[name]?.last
    }

    package func values(_ name: String) -> [String] {
        options[name] ?? []
    }

    package func positional(_ index: Int) -> String? {
        positionals.indices.contains(index) ? positionals[index] : nil
    }

    package func requiredPositional(_ index: Int, name: String) throws -> String {
        guard let value = positional(index) else { throw UsageError.missingArgument(name) }
        return value
    }

    package func int(_ name: String, default defaultValue: Int? = nil, in range: ClosedRange<Int>? = nil) throws -> Int? {
        guard let text = value(name) else { return defaultValue }
        guard let parsed = Self.parseInteger(text) else {
            throw UsageError.invalidValue(option: name, value: text, expected: Self.expectation("an integer", range))
        }
        if let range, !range.contains(parsed) {
            throw UsageError.invalidValue(option: name, value: text, expected: Self.expectation("an integer", range))
        }
        return parsed
    }

    package func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>? = nil) throws -> Int {
        try int(name, default: Optional(defaultValue), in: range) ?? defaultValue
    }

    package func uint64(_ name: String, default defaultValue: UInt64) throws -> UInt64 {
        guard let text = value(name) else { return defaultValue }
        guard let parsed = UInt64(text.filter { $0 != "_" }) else {
            throw UsageError.invalidValue(option: name, value: text, expected: "a non-negative integer")
        }
        return parsed
    }

    package func double(_ name: String, default defaultValue: Double? = nil, in range: ClosedRange<Double>? = nil) throws -> Double? {
        guard let text = value(name) else { return defaultValue }
        guard let parsed = Double(text), parsed.isFinite else {
            throw UsageError.invalidValue(option: name, value: text, expected: "a number")
        }
        if let range, !range.contains(parsed) {
            throw UsageError.invalidValue(option: name, value: text, expected: "a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return parsed
    }

    package func double(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>? = nil) throws -> Double {
        try double(name, default: Optional(defaultValue), in: range) ?? defaultValue
    }

    /// A duration such as `300ms`, `1.5s`, `250us`, `2m`; a bare number is milliseconds.
    /// Returns nanoseconds.
    package func durationNanos(_ name: String, default defaultValue: Int64? = nil) throws -> Int64? {
        guard let text = value(name) else { return defaultValue }
        guard let nanos = Self.parseDurationNanos(text), nanos >= 0 else {
            throw UsageError.invalidValue(option: name, value: text, expected: "a duration such as 300ms, 1.5s or 250us")
        }
        return nanos
    }

    /// One of a fixed set of words.
    package func choice(_ name: String, among choices: [String], default defaultValue: String? = nil) throws -> String? {
        guard let text = value(name) else { return defaultValue }
        guard choices.contains(text) else {
            let hint = Suggestion.closest(to: text, among: choices).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError.invalidValue(option: name, value: text, expected: "one of \(choices.joined(separator: ", "))" + hint)
        }
        return text
    }

    /// Integers with `_` or `k`/`M` suffixes: `10_000`, `100k`, `10M`.
    static func parseInteger(_ text: String) -> Int? {
        var digits = text.filter { $0 != "_" }
        var scale = 1
        if let last = digits.last, "kKmM".contains(last) {
            scale = (last == "k" || last == "K") ? 1_000 : 1_000_000
            digits.removeLast()
        }
        guard let value = Int(digits) else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? nil : product
    }

    static func parseDurationNanos(_ text: String) -> Int64? {
        let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let number = Double(text.dropLast(suffix.count)), number.isFinite else { return nil }
            return Int64((number * scale).rounded())
        }
        guard let millis = Double(text), millis.isFinite else { return nil }
        return Int64((millis * 1e6).rounded())
    }

    private static func expectation<T>(_ what: String, _ range: ClosedRange<T>?) -> String {
        guard let range else { return what }
        return "\(what) in \(range.lowerBound)...\(range.upperBound)"
    }
}
