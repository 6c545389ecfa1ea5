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

    /// A standard normal deviate, by the inverse normal CDF read from a quantile table (see
    /// `QuantileTable`): one uniform draw, no logarithm, no rejection loop.
    ///
    /// - Complexity: O(1).
    @inlinable
    public mutating func nextStandardNormal() -> Double {
        NormalQuantiles.table.sample(nextUnit())
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
    /// table shared by every typist with this shape: a draw is one uniform number and one
    /// interpolation, with no `exp` or `log` per key.
    @usableFromInline
    struct Sampler: Sendable {
        @usableFromInline let table: QuantileTable

        init(_ shape: IntervalShape) {
            table = Self.cache.withLock { cache in
                if let table = cache[shape] { return table }
                let table = Self.build(shape)
                cache[shape] = table
                return table
            }
        }

        /// Tables by shape; a process uses a handful of shapes, so they are kept for its life.
        private static let cache = Mutex<[IntervalShape: QuantileTable]>([:])

        private static func build(_ shape: IntervalShape) -> QuantileTable {
            var table = QuantileTable { p in
                switch shape {
                case let .logNormal(sigma):
                    return Foundation.exp(sigma * QuantileTable.normalQuantile(p))
                case let .logLogistic(beta):
                    return Foundation.pow(p / (1 - p), 1 / beta)
                }
            }
            table.scale(by: 1 / table.mean)
            return table
        }

        /// A multiplier with mean 1.
        @inlinable @inline(__always)
        func sample(_ rng: inout SeededGenerator) -> Double {
            table.sample(rng.nextUnit())
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

/// The standard normal's quantile table.
public enum NormalQuantiles {
    nonisolated(unsafe) public static let table = QuantileTable { QuantileTable.normalQuantile($0) }
}

/// A quantile function F⁻¹(u) tabulated for fast sampling: 1024 cells over (0, 1) plus 64
/// finer cells inside each of the two outermost cells, interpolated linearly.
///
/// The main table is 8 KB, small enough to stay in L1 cache while typists are generated (a
/// 32 KB table measured 20 % of generation time in cache misses); the tail tables reach
/// u = 1/131072 (4.3 σ for a normal) and are rarely touched. The memory is allocated once and
/// never freed, so reading it costs no reference counting.
public struct QuantileTable: @unchecked Sendable {
    // @unchecked: the pointers are to memory written only in `init`/`scale` before the table
    // is shared, and never freed.
    public static let cells = 1024
    public static let tailCells = 64

    @usableFromInline let main: UnsafeMutablePointer<Double>
    @usableFromInline let low: UnsafeMutablePointer<Double>
    @usableFromInline let high: UnsafeMutablePointer<Double>

    public init(_ quantile: (Double) -> Double) {
        let n = Self.cells, t = Self.tailCells
        main = .allocate(capacity: n)
        low = .allocate(capacity: t)
        high = .allocate(capacity: t)
        for i in 0..<n { main[i] = quantile((Double(i) + 0.5) / Double(n)) }
        for j in 0..<t {
            let p = (Double(j) + 0.5) / Double(t) / Double(n)
            low[j] = quantile(p)
            high[j] = quantile(1 - p)
        }
    }

    /// F⁻¹(u) for u in [0, 1).
    @inlinable @inline(__always)
    public func sample(_ u: Double) -> Double {
        let position = u * Double(Self.cells) - 0.5
        if position >= 0 && position < Double(Self.cells - 1) {
            let index = Int(position)
            let a = main[index]
            return a + (main[index + 1] - a) * (position - Double(index))
        }
        return tail(u)
    }

    /// The outermost half-cells, from the finer tables.
    @usableFromInline
    func tail(_ u: Double) -> Double {
        let n = Double(Self.cells), t = Self.tailCells
        let lower = u < 0.5
        let v = (lower ? u : 1 - u) * n * Double(t) - 0.5
        let table = lower ? low : high
        guard v > 0 else { return table[0] }
        // The half-cell below main[0] spans the first half of the fine table.
        let index = min(Int(v), t - 2)
        return table[index] + (table[index + 1] - table[index]) * (v - Double(index))
    }

    /// The mean of the tabulated distribution (numerically, over a fine grid of u).
    public var mean: Double {
        let steps = 1 << 18
        var sum = 0.0
        for k in 0..<steps { sum += sample((Double(k) + 0.5) / Double(steps)) }
        return sum / Double(steps)
    }

    mutating func scale(by factor: Double) {
        for i in 0..<Self.cells { main[i] *= factor }
        for j in 0..<Self.tailCells {
            low[j] *= factor
            high[j] *= factor
        }
    }

    /// Φ⁻¹(p) by bisection on erfc (used only to build tables).
    public static func normalQuantile(_ p: Double) -> Double {
        var lowBound = -12.0, highBound = 12.0
        for _ in 0..<80 {
            let mid = (lowBound + highBound) / 2
            if 0.5 * Foundation.erfc(-mid / 2.0.squareRoot()) < p { lowBound = mid } else { highBound = mid }
        }
        return (lowBound + highBound) / 2
    }
}
