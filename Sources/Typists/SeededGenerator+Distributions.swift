import Foundation

extension SeededGenerator {
    /// `true` with probability `p`.
    @inlinable
    public mutating func nextBool(_ p: Double) -> Bool {
        nextUnit() < p
    }

    /// A uniform integer in `0..<bound` (Lemire's multiply-shift; the tiny bias is irrelevant at
    /// the bounds used here and keeps the draw branch-free).
    @inlinable
    public mutating func nextInt(below bound: Int) -> Int {
        precondition(bound > 0, "nextInt(below:) needs a positive bound")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A uniform double in `range`.
    @inlinable
    public mutating func nextUniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// A standard normal deviate (Marsaglia's polar method; the second deviate is dropped so the
    /// generator stays a plain value with no cached state).
    @inlinable
    public mutating func nextStandardNormal() -> Double {
        while true {
            let u = 2 * nextUnit() - 1
            let v = 2 * nextUnit() - 1
            let s = u * u + v * v
            if s > 0 && s < 1 {
                return u * (-2 * Foundation.log(s) / s).squareRoot()
            }
        }
    }

    /// A log-normal deviate with the given median and log-scale standard deviation.
    @inlinable
    public mutating func nextLogNormal(median: Double, sigma: Double) -> Double {
        median * Foundation.exp(sigma * nextStandardNormal())
    }
}

/// The shape of a typist's own inter-key intervals around their mean.
///
/// [K1] found log-logistic fits IKIs best and log-normal close behind (Gaussian rejected), so
/// both are offered; log-normal is the default because its σ is the figure TYPING.md gives.
public enum IntervalShape: Sendable, Hashable, Codable {
    /// Log-normal with this σ of the log.
    case logNormal(sigma: Double)
    /// Log-logistic with this shape β (> 1 so that the mean exists). β = π / (σ√3) has the
    /// same spread of the log as a log-normal with σ.
    case logLogistic(shape: Double)

    /// A log-logistic shape with the same log-scale spread as a log-normal of `sigma`.
    public static func logLogistic(matchingSigma sigma: Double) -> IntervalShape {
        .logLogistic(shape: Double.pi / (sigma * 3.0.squareRoot()))
    }

    /// Precomputed constants for drawing unit-mean multipliers fast.
    @usableFromInline
    struct Sampler: Sendable {
        @usableFromInline let isLogNormal: Bool
        /// Log-normal: σ; log-logistic: 1/β.
        @usableFromInline let a: Double
        /// Log-normal: −σ²/2 (so the mean is 1); log-logistic: the scale α = sin(π/β)/(π/β).
        @usableFromInline let b: Double

        init(_ shape: IntervalShape) {
            switch shape {
            case let .logNormal(sigma):
                isLogNormal = true
                a = sigma
                b = -sigma * sigma / 2
            case let .logLogistic(beta):
                precondition(beta > 1, "a log-logistic shape must exceed 1 for its mean to exist")
                isLogNormal = false
                a = 1 / beta
                let q = Double.pi / beta
                b = Foundation.sin(q) / q
            }
        }

        /// A multiplier with mean 1.
        @inlinable
        func sample(_ rng: inout SeededGenerator) -> Double {
            if isLogNormal {
                return Foundation.exp(a * rng.nextStandardNormal() + b)
            }
            var u = rng.nextUnit()
            if u <= 0 { u = 0x1p-53 }
            return b * Foundation.pow(u / (1 - u), a)
        }
    }
}

/// A normal distribution truncated to `bounds`, with parameters fitted so that the *truncated*
/// distribution has the published mean and standard deviation.
///
/// Drawing Normal(51.56, 20.2) and cutting at [10, 150] would shift the mean to 52.6 and shrink
/// the SD to 19.1; the studies report the moments of the observed (already bounded) sample, so
/// the underlying parameters are solved for instead.
public struct TruncatedNormal: Sendable, Hashable, Codable {
    public var mean: Double
    public var standardDeviation: Double
    public var bounds: ClosedRange<Double>
    /// The parameters of the untruncated normal that, cut to `bounds`, has `mean` and SD.
    public private(set) var location: Double
    public private(set) var scale: Double

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
