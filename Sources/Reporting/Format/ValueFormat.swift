import Foundation

/// The unit a number is in, which decides how it is printed and which tolerances apply.
public enum ValueUnit: String, Sendable, Codable, CaseIterable {
    /// A duration in nanoseconds.
    case nanoseconds
    /// A fraction 0...1, printed as a percentage.
    case share
    /// A mean per settle (requests, display changes): a small real number.
    case ratio
    /// A plain count of events.
    case count
}

/// Deterministic number formatting (POSIX, no locale) for tables, charts and sentences.
public enum ValueFormat {
    /// `value` with exactly `decimals` decimals.
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "n/a" : (value > 0 ? "∞" : "-∞") }
        let text = String(format: "%.\(max(0, decimals))f", value)
        return text == "-0" || text.hasPrefix("-0.") && Double(text) == 0 ? String(text.dropFirst()) : text
    }

    /// Three significant digits, no exponent: 0.0123, 1.23, 12.3, 123, 1234.
    public static func significant(_ value: Double) -> String {
        guard value.isFinite else { return fixed(value, 0) }
        let magnitude = abs(value)
        if magnitude == 0 { return "0" }
        if magnitude >= 100 { return fixed(value, 0) }
        if magnitude >= 10 { return fixed(value, 1) }
        if magnitude >= 1 { return fixed(value, 2) }
        let decimals = min(9, 2 - Int(floor(log10(magnitude))))
        return fixed(value, decimals)
    }

    /// A duration in nanoseconds in the largest unit that keeps it ≥ 1: `850 ns`, `12.3 µs`,
    /// `412 ms`, `1.23 s`.
    public static func duration(nanos: Double) -> String {
        let magnitude = abs(nanos)
        if magnitude < 1_000 { return significant(nanos) + " ns" }
        if magnitude < 1_000_000 { return significant(nanos / 1e3) + " µs" }
        if magnitude < 1_000_000_000 { return significant(nanos / 1e6) + " ms" }
        return significant(nanos / 1e9) + " s"
    }

    /// A share 0...1 as a percentage with one decimal (two below 1 %): `3.1 %`, `0.25 %`.
    public static func percent(_ share: Double) -> String {
        let percent = share * 100
        if percent != 0 && abs(percent) < 1 { return fixed(percent, 2) + " %" }
        return fixed(percent, 1) + " %"
    }

    /// `value` as the reports print a quantity of `unit` (``ValueUnit``): a duration with its unit,
    /// a percentage, a ratio to three significant digits, or a count.
    public static func format(_ value: Double, unit: ValueUnit) -> String {
        switch unit {
        case .nanoseconds: return duration(nanos: value)
        case .share: return percent(value)
        case .ratio: return significant(value)
        case .count: return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : significant(value)
        }
    }

    /// A relative change as a signed percentage with `decimals` decimals: `+25.0 %`, `-3.1 %`.
    package static func relativeChange(_ fraction: Double, _ decimals: Int = 1) -> String {
        (fraction >= 0 ? "+" : "") + fixed(fraction * 100, decimals) + " %"
    }

    /// A signed difference in `unit`: `+12.3 ms`, `-0.4 %` (percentage points for shares).
    public static func delta(_ value: Double, unit: ValueUnit) -> String {
        let sign = value > 0 ? "+" : (value < 0 ? "-" : "±")
        switch unit {
        case .share:
            return sign + fixed(abs(value) * 100, abs(value) < 0.01 && value != 0 ? 2 : 1) + " pp"
        default:
            return sign + format(abs(value), unit: unit)
        }
    }

    /// A duration axis unit for values up to `maxNanos`: its divisor and symbol.
    public static func durationAxisUnit(maxNanos: Double) -> (divisor: Double, symbol: String) {
        if maxNanos < 10_000 { return (1, "ns") }
        if maxNanos < 10_000_000 { return (1e3, "µs") }
        if maxNanos < 20_000_000_000 { return (1e6, "ms") }
        return (1e9, "s")
    }

    /// Milliseconds since 1970 as an ISO 8601 UTC timestamp, computed without locale or time zone.
    public static func timestamp(millis: Int64) -> String {
        let seconds = Int64((Double(millis) / 1000).rounded(.down))
        var days = seconds / 86_400
        var rest = seconds - days * 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        // Civil-from-days (proleptic Gregorian), after Howard Hinnant's algorithm.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)) UTC"
    }

    /// Bytes in binary units: `7.8 GiB`.
    public static func bytes(_ value: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var amount = Double(value), index = 0
        while amount >= 1024 && index < units.count - 1 {
            amount /= 1024
            index += 1
        }
        return (index == 0 ? String(value) : significant(amount)) + " " + units[index]
    }
}
