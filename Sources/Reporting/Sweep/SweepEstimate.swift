import Foundation

/// A quantity measured once per replicate: its mean and a 95 % confidence interval (Student's t
/// over the replicates; no interval with a single replicate).
package struct SweepEstimate: Sendable, Equatable {
    package var values: [Double]
    package var mean: Double
    /// Half the width of the 95 % confidence interval of the mean; `nil` with one replicate.
    package var halfWidth: Double?

    package static let confidence = 0.95

    package init(_ values: [Double]) {
        self.values = values
        let (mean, variance) = WelchTest.meanAndVariance(values)
        self.mean = mean
        halfWidth = values.count >= 2
            ? Self.criticalT(degreesOfFreedom: Double(values.count - 1)) * (variance / Double(values.count)).squareRoot() : nil
    }

    package var low: Double { mean - (halfWidth ?? 0) }
    package var high: Double { mean + (halfWidth ?? 0) }

    /// Half the width of the 95 % prediction interval of one more run (a single live run, or a
    /// sweep with one replicate): t · s · √(1 + 1/n), √(n + 1) times the mean's; `nil` with one
    /// replicate. The mean's interval narrows with replicates, a single run's spread does not.
    package var predictionHalfWidth: Double? {
        halfWidth.map { $0 * Double(values.count + 1).squareRoot() }
    }

    /// The two-sided critical value of Student's t at `confidence` (2.776 for 4 degrees of
    /// freedom at 95 %), by bisection on the same p-value `compare` uses.
    static func criticalT(degreesOfFreedom: Double, confidence: Double = confidence) -> Double {
        var low = 0.0, high = 1_000.0
        for _ in 0..<100 {
            let middle = (low + high) / 2
            if WelchTest.twoSidedP(t: middle, degreesOfFreedom: degreesOfFreedom) > 1 - confidence { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
