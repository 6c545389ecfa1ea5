import Foundation

/// A mapping from data values to pixels along one axis, with "nice" tick values.
package struct AxisScale: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case linear
        /// Base-10 logarithmic; the domain must be positive.
        case log
    }

    package var kind: Kind
    package var domain: ClosedRange<Double>
    package var ticks: [Double]

    /// A linear scale covering `lower...upper` extended to nice tick boundaries, with about
    /// `targetTicks` ticks at steps of 1, 2 or 5 × 10ⁿ.
    package static func linear(_ lower: Double, _ upper: Double, targetTicks: Int = 5) -> AxisScale {
        var low = lower.isFinite ? lower : 0, high = upper.isFinite ? upper : 1
        if low > high { swap(&low, &high) }
        if high - low < 1e-12 {
            // A flat series: open a window around it so it sits inside the plot.
            let pad = abs(high) > 0 ? abs(high) * 0.5 : 1
            high += pad
            if low != 0 { low -= pad }
        }
        let step = niceStep((high - low) / Double(max(1, targetTicks)))
        let first = (low / step).rounded(.down) * step
        let last = (high / step).rounded(.up) * step
        var ticks: [Double] = []
        var index = 0.0
        while true {
            let value = first + index * step
            if value > last + step * 1e-9 { break }
            ticks.append(abs(value) < step * 1e-9 ? 0 : value)
            index += 1
        }
        return AxisScale(kind: .linear, domain: first...last, ticks: ticks)
    }

    /// A log scale from the power of ten at or below `lower` to the one at or above `upper`;
    /// ticks at each decade, plus 2× and 5× when it spans at most two decades.
    package static func log(_ lower: Double, _ upper: Double) -> AxisScale {
        let low = max(lower, 1e-12), high = max(upper, low)
        var lowExponent = floor(log10(low)), highExponent = ceil(log10(high))
        if highExponent <= lowExponent { highExponent = lowExponent + 1 }
        if highExponent - lowExponent > 12 { lowExponent = highExponent - 12 }
        var ticks: [Double] = []
        let dense = highExponent - lowExponent <= 2
        var exponent = lowExponent
        while exponent <= highExponent {
            let decade = pow(10, exponent)
            ticks.append(decade)
            if dense && exponent < highExponent {
                ticks.append(2 * decade)
                ticks.append(5 * decade)
            }
            exponent += 1
        }
        return AxisScale(kind: .log, domain: pow(10, lowExponent)...pow(10, highExponent), ticks: ticks)
    }

    /// A step of 1, 2, 2.5 or 5 × 10ⁿ at or above `rough`.
    static func niceStep(_ rough: Double) -> Double {
        guard rough > 0, rough.isFinite else { return 1 }
        let exponent = floor(log10(rough))
        let base = pow(10, exponent)
        let fraction = rough / base
        let nice: Double
        if fraction <= 1 { nice = 1 } else if fraction <= 2 { nice = 2 } else if fraction <= 2.5 { nice = 2.5 } else if fraction <= 5 { nice = 5 } else { nice = 10 }
        return nice * base
    }

    /// Position 0...1 of `value` within the domain (clamped).
    package func position(_ value: Double) -> Double {
        let t: Double
        switch kind {
        case .linear:
            t = (value - domain.lowerBound) / (domain.upperBound - domain.lowerBound)
        case .log:
            let v = max(value, domain.lowerBound)
            t = (log10(v) - log10(domain.lowerBound)) / (log10(domain.upperBound) - log10(domain.lowerBound))
        }
        return t.isFinite ? min(max(t, 0), 1) : 0
    }

    /// A tick label with as many decimals as the ticks need (so 0.5 and 1.0 print as 0.5, 1).
    package func label(_ value: Double) -> String {
        switch kind {
        case .log:
            return Self.compact(value, decimals: max(0, -Int(floor(log10(value)))))
        case .linear:
            guard ticks.count >= 2 else { return Self.compact(value, decimals: 2) }
            let step = ticks[1] - ticks[0]
            let decimals = max(0, -Int(floor(log10(step) + 1e-9)) + (step / pow(10, floor(log10(step))) == 2.5 ? 1 : 0))
            return Self.compact(value, decimals: decimals)
        }
    }

    /// `12000` as `12k`, `3500000` as `3.5M`; smaller numbers with `decimals` decimals.
    static func compact(_ value: Double, decimals: Int) -> String {
        let magnitude = abs(value)
        if magnitude >= 1e6 { return trimmed(value / 1e6) + "M" }
        if magnitude >= 1e4 { return trimmed(value / 1e3) + "k" }
        return ValueFormat.fixed(value, min(decimals, 6))
    }

    private static func trimmed(_ value: Double) -> String {
        var text = ValueFormat.fixed(value, 1)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
