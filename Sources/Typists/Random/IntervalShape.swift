import Foundation
import Locking

/// The shape of a typist's own inter-key intervals around their mean.
///
/// [K1] found log-logistic fits IKIs best and log-normal close behind (Gaussian rejected), so
/// both are offered; log-normal is the default because its σ is the figure docs/typing.md gives.
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
        private static let cache = Locked<[IntervalShape: QuantileTable]>([:])

        private static func build(_ shape: IntervalShape) -> QuantileTable {
            var table: QuantileTable
            switch shape {
            case let .logNormal(sigma):
                // exp(σ Φ⁻¹(p)) at the same p's as the normal table: read from it rather than
                // solving Φ⁻¹ again for every shape (the same values, bit for bit).
                table = QuantileTable(mapping: NormalQuantiles.table) { Foundation.exp(sigma * $0) }
            case let .logLogistic(beta):
                table = QuantileTable { p in Foundation.pow(p / (1 - p), 1 / beta) }
            }
            table.scale(by: 1 / table.mean)
            return table
        }

        /// A multiplier with mean 1.
        @inlinable @inline(__always)
        func sample(_ rng: inout SeededGenerator) -> Double {
            table.sample(bits: rng.next())
        }
    }
}
