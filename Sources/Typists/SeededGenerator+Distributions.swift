import Foundation
import Synchronization

extension SeededGenerator {
    /// `true` with probability `p`.
    @inlinable @inline(__always)
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

    /// A standard normal deviate, by the inverse normal CDF read from a 4096-entry table with
    /// linear interpolation: one uniform draw, no logarithm, no rejection loop. Deviates beyond
    /// ±3.66 σ (2.4 in 10,000) are clamped there, which no typing figure depends on.
    ///
    /// - Complexity: O(1).
    @inlinable
    public mutating func nextStandardNormal() -> Double {
        let position = nextUnit() * Double(NormalQuantiles.count) - 0.5
        let table = NormalQuantiles.table
        if position <= 0 { return table[0] }
        let index = Int(position)
        if index >= NormalQuantiles.count - 1 { return table[NormalQuantiles.count - 1] }
        let fraction = position - Double(index)
        return table[index] + (table[index + 1] - table[index]) * fraction
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

    /// The quantile function of the unit-mean multiplier F⁻¹(u) = interval / typist's mean, as a
    /// 4096-point table shared by every typist with this shape: a draw is one uniform number
    /// and one interpolation, with no `exp` or `log` per key.
    @usableFromInline
    struct Sampler: @unchecked Sendable {
        // @unchecked: `table` points at immutable memory that is never freed (see `cache`).
        @usableFromInline let table: UnsafePointer<Double>

        init(_ shape: IntervalShape) {
            table = Self.cache.withLock { cache in
                if let table = cache[shape] { return table }
                let table = Self.build(shape)
                cache[shape] = table
                return table
            }
        }

        /// Tables by shape; a process uses a handful of shapes, so they are kept for its life.
        private static let cache = Mutex<[IntervalShape: UnsafePointer<Double>]>([:])

        private static func build(_ shape: IntervalShape) -> UnsafePointer<Double> {
            let count = NormalQuantiles.count
            let values = UnsafeMutablePointer<Double>.allocate(capacity: count)
            for i in 0..<count {
                switch shape {
                case let .logNormal(sigma):
                    values[i] = Foundation.exp(sigma * NormalQuantiles.table[i])
                case let .logLogistic(beta):
                    let p = (Double(i) + 0.5) / Double(count)
                    values[i] = Foundation.pow(p / (1 - p), 1 / beta)
                }
            }
            // Scale so that the interpolated distribution's mean is exactly 1: the mean of
            // the piecewise-linear quantile function is the trapezoid average of the table,
            // with the half-cells at both ends held flat.
            var sum = 0.5 * (values[0] + values[count - 1])
            for i in 0..<(count - 1) { sum += 0.5 * (values[i] + values[i + 1]) }
            let mean = sum / Double(count)
            for i in 0..<count { values[i] /= mean }
            return UnsafePointer(values)
        }

        /// A multiplier with mean 1.
        @inlinable @inline(__always)
        func sample(_ rng: inout SeededGenerator) -> Double {
            let count = NormalQuantiles.count
            let position = rng.nextUnit() * Double(count) - 0.5
            if position <= 0 { return table[0] }
            let index = Int(position)
            if index >= count - 1 { return table[count - 1] }
            return table[index] + (table[index + 1] - table[index]) * (position - Double(index))
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

/// Quantiles of the standard normal at (i + ½) / count, computed once by bisection on erfc.
///
/// Kept behind a raw pointer that is never freed, so reading it in the hot path costs no
/// reference counting (shared arrays would bounce their reference count between cores).
public enum NormalQuantiles {
    public static let count = 4096

    // nonisolated(unsafe): written once inside the lazy initialiser (which Swift runs exactly
    // once, thread-safely) and only read afterwards.
    nonisolated(unsafe) public static let table: UnsafePointer<Double> = {
        let values = UnsafeMutablePointer<Double>.allocate(capacity: count)
        for i in 0..<count {
            let p = (Double(i) + 0.5) / Double(count)
            var low = -10.0, high = 10.0
            for _ in 0..<64 {
                let mid = (low + high) / 2
                if 0.5 * Foundation.erfc(-mid / 2.0.squareRoot()) < p { low = mid } else { high = mid }
            }
            values[i] = (low + high) / 2
        }
        return UnsafePointer(values)
    }()
}
