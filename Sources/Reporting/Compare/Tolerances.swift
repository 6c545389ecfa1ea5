import Diagnostics
import Foundation
import TypestormMetrics

/// How much a number may move before `compare` calls it a change, and how sure it must be.
///
/// A difference counts only when it exceeds **both** the absolute and the relative tolerance
/// (so tiny numbers do not trip on relative noise, and large ones do not trip on a few units),
/// and, with at least two runs on each side, when Welch's test gives p < `alpha`.
package struct Tolerances: Sendable, Equatable {
    package struct Tolerance: Sendable, Equatable, Codable {
        /// Allowed change as a fraction of the baseline (0.05 = 5 %).
        package var relative: Double
        /// Allowed change in the metric's unit (nanoseconds, share 0...1, per-search ratio, count).
        package var absolute: Double

        package init(relative: Double, absolute: Double) {
            self.relative = relative
            self.absolute = absolute
        }
    }

    /// Significance level for Welch's test.
    package var alpha: Double
    /// Per unit.
    package var defaults: [ValueUnit: Tolerance]
    /// Per metric, most specific first when looked up: `group/metric`, `metric`, `prefix.*`.
    /// A value replaces only the fields it sets.
    package var overrides: [String: PartialTolerance]

    package struct PartialTolerance: Sendable, Equatable {
        package var relative: Double?
        package var absolute: Double?
        package init(relative: Double? = nil, absolute: Double? = nil) {
            self.relative = relative
            self.absolute = absolute
        }
    }

    package init(alpha: Double = 0.05, defaults: [ValueUnit: Tolerance] = Tolerances.builtInDefaults, overrides: [String: PartialTolerance] = Tolerances.builtInOverrides) {
        self.alpha = alpha
        self.defaults = defaults
        self.overrides = overrides
    }

    /// The defaults: latencies 5 % and 1 ms; shares 5 % and 0.2 percentage points; per-search
    /// ratios 5 % and 0.05; counts (out-of-order applies) any change.
    package static let builtInDefaults: [ValueUnit: Tolerance] = [
        .nanoseconds: Tolerance(relative: 0.05, absolute: 1_000_000),
        .share: Tolerance(relative: 0.05, absolute: 0.002),
        .ratio: Tolerance(relative: 0.05, absolute: 0.05),
        .count: Tolerance(relative: 0, absolute: 0),
    ]

    /// Tails are noisier than medians: p99 10 %, p99.9 20 %, max 50 %.
    package static let builtInOverrides: [String: PartialTolerance] = [
        "ttfr.p99": PartialTolerance(relative: 0.10), "ttfr.p99.9": PartialTolerance(relative: 0.20),
        "latency.p99": PartialTolerance(relative: 0.10), "latency.p99.9": PartialTolerance(relative: 0.20),
        "latency.max": PartialTolerance(relative: 0.50),
        "cancel.signal.p99": PartialTolerance(relative: 0.10), "cancel.stopClient.p99": PartialTolerance(relative: 0.10),
        "cancel.stopBackend.p99": PartialTolerance(relative: 0.10),
    ]

    /// With one run on a side, Welch's test cannot separate a change from run-to-run noise, so
    /// the tolerances are wide: relative ×4 (at least 25 %), absolute ×4, and counts may move by
    /// half (a count that was 0 must stay 0). Stated in `compare`'s output.
    package static func widenedForSingleRuns(_ tolerance: Tolerance, unit: ValueUnit) -> Tolerance {
        if unit == .count { return Tolerance(relative: max(0.5, tolerance.relative), absolute: tolerance.absolute) }
        return Tolerance(relative: max(0.25, tolerance.relative * 4), absolute: tolerance.absolute * 4)
    }

    /// The tolerance for `quantity` in group `group` (a group key or name).
    package func tolerance(for quantity: Quantity, group: String) -> Tolerance {
        var tolerance = defaults[quantity.unit] ?? Tolerance(relative: 0.05, absolute: 0)
        var candidates = ["\(group)/\(quantity.id)", quantity.id]
        var parts = quantity.id.split(separator: ".").map(String.init)
        var prefixes: [String] = []
        while parts.count > 1 {
            parts.removeLast()
            prefixes.append(parts.joined(separator: ".") + ".*")
        }
        candidates += prefixes.map { "\(group)/\($0)" } + prefixes
        // Apply from least to most specific so the most specific wins field by field.
        for key in candidates.reversed() {
            guard let override = overrides[key] else { continue }
            if let relative = override.relative { tolerance.relative = relative }
            if let absolute = override.absolute { tolerance.absolute = absolute }
        }
        return tolerance
    }
}

/// A thresholds file that could not be read, with where and why.
package struct ThresholdsError: Error, CustomStringConvertible, Equatable {
    package var description: String
}

extension Tolerances {
    /// Reads a thresholds file (format in docs/reports.md). Fields not given keep the built-in
    /// defaults; `metrics` entries are added to the built-in overrides (and win over them).
    package static func parse(_ data: Data, file: String) throws -> Tolerances {
        func fail(_ path: String, _ message: String) -> ThresholdsError {
            ThresholdsError(description: "\(file): \(path): \(message)")
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ThresholdsError(description: "\(file): not valid JSON (\((error as NSError).userInfo["NSDebugDescription"] as? String ?? "it cannot be parsed"))")
        }
        guard let object = root as? [String: Any] else { throw fail("top level", "expected an object") }
        var thresholds = Tolerances()
        for key in object.keys.sorted() where !["alpha", "defaults", "metrics", "comment"].contains(key) {
            throw fail(key, "unknown field (expected alpha, defaults, metrics)")
        }
        if let alpha = object["alpha"] {
            guard let value = (alpha as? NSNumber)?.doubleValue, value > 0, value < 1 else { throw fail("alpha", "expected a number between 0 and 1") }
            thresholds.alpha = value
        }
        if let defaults = object["defaults"] {
            guard let table = defaults as? [String: Any] else { throw fail("defaults", "expected an object keyed by unit") }
            for key in table.keys.sorted() {
                guard let unit = ValueUnit(rawValue: key) else {
                    throw fail("defaults.\(key)", "unknown unit (expected \(ValueUnit.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                let partial = try tolerance(table[key]!, path: "defaults.\(key)", unit: unit, fail: fail)
                var current = thresholds.defaults[unit]!
                if let relative = partial.relative { current.relative = relative }
                if let absolute = partial.absolute { current.absolute = absolute }
                thresholds.defaults[unit] = current
            }
        }
        if let metrics = object["metrics"] {
            guard let table = metrics as? [String: Any] else { throw fail("metrics", "expected an object keyed by metric") }
            for key in table.keys.sorted() {
                let metric = key.split(separator: "/", maxSplits: 1).last.map(String.init) ?? key
                let unit: ValueUnit?
                if metric.hasSuffix(".*") {
                    let prefix = String(metric.dropLast(1))
                    let matching = Quantity.all.filter { $0.id.hasPrefix(prefix) }
                    guard !matching.isEmpty else { throw fail("metrics.\"\(key)\"", "no metric starts with '\(prefix)'") }
                    unit = Set(matching.map(\.unit)).count == 1 ? matching[0].unit : nil
                } else {
                    guard let quantity = Quantity.named(metric) else {
                        let hint = Suggestion.nearest(to: metric, among: Quantity.all.map(\.id)).map { " (did you mean '\($0)'?)" } ?? ""
                        throw fail("metrics.\"\(key)\"", "unknown metric\(hint)")
                    }
                    unit = quantity.unit
                }
                thresholds.overrides[key] = try tolerance(table[key]!, path: "metrics.\"\(key)\"", unit: unit, fail: fail)
            }
        }
        return thresholds
    }

    private static func tolerance(_ value: Any, path: String, unit: ValueUnit?, fail: (String, String) -> ThresholdsError) throws -> PartialTolerance {
        guard let object = value as? [String: Any] else { throw fail(path, "expected an object with relative and/or absolute") }
        var result = PartialTolerance()
        for key in object.keys.sorted() {
            switch key {
            case "relative":
                guard let number = (object[key] as? NSNumber)?.doubleValue, number >= 0, number.isFinite else {
                    throw fail("\(path).relative", "expected a non-negative number (0.05 = 5 %)")
                }
                result.relative = number
            case "absolute":
                if let number = (object[key] as? NSNumber)?.doubleValue, number >= 0, number.isFinite {
                    result.absolute = number
                } else if let text = object[key] as? String, unit == .nanoseconds || unit == nil, let nanos = parseDurationNanos(text) {
                    result.absolute = nanos
                } else {
                    let expected = unit == .nanoseconds ? "nanoseconds or a duration such as \"2ms\"" : "a non-negative number in the metric's unit"
                    throw fail("\(path).absolute", "expected \(expected)")
                }
            default:
                throw fail("\(path).\(key)", "unknown field (expected relative, absolute)")
            }
        }
        return result
    }

    /// `250us`, `2ms`, `1.5s`, `800ns`.
    static func parseDurationNanos(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let number = Double(text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), number >= 0, number.isFinite else { return nil }
            return number * scale
        }
        return nil
    }
}
