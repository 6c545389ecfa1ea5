import Foundation

/// A normal distribution truncated to `bounds`, with parameters fitted so that the *truncated*
/// distribution has the published mean and standard deviation.
///
/// Drawing Normal(51.56, 20.2) and cutting at [10, 150] would shift the mean to 52.6 and shrink
/// the SD to 19.1; the studies report the moments of the observed (already bounded) sample, so
/// the underlying parameters are solved for instead.
public struct TruncatedNormal: Sendable, Hashable, Codable {
    /// The mean of the bounded distribution, as the studies report it.
    public var mean: Double
    /// The standard deviation of the bounded distribution, as the studies report it.
    public var standardDeviation: Double
    /// Values outside are never drawn.
    public var bounds: ClosedRange<Double>
    /// The parameters of the untruncated normal that, cut to `bounds`, has `mean` and SD.
    public private(set) var location: Double
    /// The untruncated normal's standard deviation (see ``location``).
    public private(set) var scale: Double

    /// A normal that, cut to `bounds`, has `mean` and `standardDeviation`; the untruncated
    /// parameters are solved for here.
    public init(mean: Double, standardDeviation: Double, bounds: ClosedRange<Double>) {
        self.mean = mean
        self.standardDeviation = standardDeviation
        self.bounds = bounds
        var m = mean, s = standardDeviation
        for _ in 0..<200 {
            let (tm, ts) = Self.moments(location: m, scale: s, bounds: bounds)
            m += mean - tm
            s *= standardDeviation / ts
        }
        location = m
        scale = s
    }

    /// Mean and SD of Normal(location, scale) truncated to `bounds` (closed form).
    public static func moments(location: Double, scale: Double, bounds: ClosedRange<Double>) -> (mean: Double, sd: Double) {
        let a = (bounds.lowerBound - location) / scale
        let b = (bounds.upperBound - location) / scale
        func pdf(_ x: Double) -> Double { Foundation.exp(-x * x / 2) / (2 * Double.pi).squareRoot() }
        func cdf(_ x: Double) -> Double { 0.5 * Foundation.erfc(-x / 2.0.squareRoot()) }
        let z = cdf(b) - cdf(a)
        let r = (pdf(a) - pdf(b)) / z
        let mean = location + scale * r
        let variance = scale * scale * (1 + (a * pdf(a) - b * pdf(b)) / z - r * r)
        return (mean, variance.squareRoot())
    }

    /// A draw by rejection (the bounds cut off little of the mass, so few retries).
    public func sample(_ rng: inout SeededGenerator) -> Double {
        for _ in 0..<1000 {
            let x = location + scale * rng.nextStandardNormal()
            if bounds.contains(x) { return x }
        }
        return min(max(location, bounds.lowerBound), bounds.upperBound)
    }
}
