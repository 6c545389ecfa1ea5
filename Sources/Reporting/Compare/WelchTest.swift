import Foundation

/// Welch's unequal-variances t-test: are two sets of repeated measurements different beyond
/// their noise?
///
/// `compare` uses it when each side has at least two runs, so that a change within run-to-run
/// variation is reported as noise rather than as a regression.
package struct WelchTest: Sendable, Equatable {
    /// t statistic for mean(a) − mean(b).
    package var t: Double
    /// Welch–Satterthwaite degrees of freedom.
    package var degreesOfFreedom: Double
    /// Two-sided p-value.
    package var p: Double

    /// `nil` when either side has fewer than two values. When both sides have zero variance,
    /// equal means give p = 1 and different means give p = 0 (t = ±∞): deterministic runs that
    /// differ are different.
    package init?(_ a: [Double], _ b: [Double]) {
        guard a.count >= 2, b.count >= 2 else { return nil }
        let (meanA, varA) = Self.meanAndVariance(a)
        let (meanB, varB) = Self.meanAndVariance(b)
        let seA = varA / Double(a.count), seB = varB / Double(b.count)
        let se2 = seA + seB
        if se2 == 0 {
            if meanA == meanB {
                self.init(t: 0, degreesOfFreedom: Double(a.count + b.count - 2), p: 1)
            } else {
                self.init(t: meanA > meanB ? .infinity : -.infinity, degreesOfFreedom: Double(a.count + b.count - 2), p: 0)
            }
            return
        }
        let t = (meanA - meanB) / se2.squareRoot()
        let df = se2 * se2 / (seA * seA / Double(a.count - 1) + seB * seB / Double(b.count - 1))
        self.init(t: t, degreesOfFreedom: df, p: Self.twoSidedP(t: t, degreesOfFreedom: df))
    }

    package init(t: Double, degreesOfFreedom: Double, p: Double) {
        self.t = t
        self.degreesOfFreedom = degreesOfFreedom
        self.p = p
    }

    /// Mean and unbiased sample variance (n − 1 in the denominator), two-pass for accuracy.
    static func meanAndVariance(_ values: [Double]) -> (Double, Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        let squares = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        return (mean, values.count > 1 ? squares / Double(values.count - 1) : 0)
    }

    /// P(|T| ≥ |t|) for Student's t with `degreesOfFreedom`: I_x(ν/2, 1/2) with x = ν/(ν+t²).
    package static func twoSidedP(t: Double, degreesOfFreedom v: Double) -> Double {
        guard t.isFinite else { return 0 }
        let x = v / (v + t * t)
        return min(1, max(0, regularizedIncompleteBeta(x: x, a: v / 2, b: 0.5)))
    }

    /// I_x(a, b) by its continued fraction (modified Lentz), using the symmetry
    /// I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges faster.
    static func regularizedIncompleteBeta(x: Double, a: Double, b: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        let logBeta: Double = lgamma(a) + lgamma(b) - lgamma(a + b)
        let logPowers: Double = a * log(x) + b * log(1 - x)
        let front: Double = exp(logPowers - logBeta)
        if x < (a + 1) / (a + b + 2) {
            return front * continuedFraction(x: x, a: a, b: b) / a
        }
        return 1 - front * continuedFraction(x: 1 - x, a: b, b: a) / b
    }

    private static func continuedFraction(x: Double, a: Double, b: Double) -> Double {
        let tiny = 1e-300
        var c = 1.0
        var d = 1 - (a + b) * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var result = d
        for m in 1...300 {
            let m = Double(m)
            // Even step.
            var numerator = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
            d = 1 + numerator * d
            if abs(d) < tiny { d = tiny }
            c = 1 + numerator / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            result *= d * c
            // Odd step.
            numerator = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
            d = 1 + numerator * d
            if abs(d) < tiny { d = tiny }
            c = 1 + numerator / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            result *= delta
            if abs(delta - 1) < 1e-14 { break }
        }
        return result
    }
}
