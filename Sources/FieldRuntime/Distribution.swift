import Foundation
import Typists

/// A duration distribution in nanoseconds: what the network and server models draw from.
public enum Distribution: Hashable, Sendable, CustomStringConvertible {
    case constant(Int64)
    /// Log-normal with this median and shape (σ of the underlying normal): the usual shape of
    /// network and service latencies, with a long right tail for larger σ.
    case logNormal(median: Int64, sigma: Double)
    /// Uniform in `low...high`.
    case uniform(Int64, Int64)

    public func sample(_ rng: inout SeededGenerator) -> Int64 {
        switch self {
        case let .constant(value):
            return value
        case let .logNormal(median, sigma):
            guard sigma > 0 else { return median }
            return Int64((Double(median) * exp(sigma * rng.standardNormal())).rounded())
        case let .uniform(low, high):
            guard high > low else { return low }
            return low + Int64(rng.next() % UInt64(high - low + 1))
        }
    }

    /// The median (for reports and defaults).
    public var median: Int64 {
        switch self {
        case let .constant(value): value
        case let .logNormal(median, _): median
        case let .uniform(low, high): (low + high) / 2
        }
    }

    public var description: String {
        switch self {
        case let .constant(value): "\(Double(value) / 1e6)ms"
        case let .logNormal(median, sigma): "lognormal(median \(Double(median) / 1e6)ms, σ \(sigma))"
        case let .uniform(low, high): "uniform(\(Double(low) / 1e6)–\(Double(high) / 1e6)ms)"
        }
    }
}

extension SeededGenerator {
    /// A standard normal deviate, by Marsaglia and Tsang's ziggurat (128 layers).
    ///
    /// Nearly every draw (98.8 %) costs one 64-bit random number, a table read and a multiply;
    /// only the rare wedge and tail draws call `exp` or `log`. Box–Muller, before it, called
    /// `log`, `sqrt` and `cos` on every draw, a few percent of a simulated keystroke. One draw
    /// splits its bits: the low 7 pick the layer, bit 7 the sign, the top 53 the position.
    @inline(__always)
    mutating func standardNormal() -> Double {
        let x = Ziggurat.x
        while true {
            let bits = next()
            let layer = Int(truncatingIfNeeded: bits & 0x7F)
            let negative = bits & 0x80 != 0
            let candidate = Double(bits >> 11) * 0x1.0p-53 * x[layer]
            if candidate < x[layer + 1] { return negative ? -candidate : candidate }
            if let value = slowNormal(layer: layer, candidate: candidate) { return negative ? -value : value }
        }
    }

    /// The ziggurat's rare cases: the tail beyond `r` (layer 0) and the wedges; `nil` rejects.
    @inline(never)
    private mutating func slowNormal(layer: Int, candidate: Double) -> Double? {
        if layer == 0 {
            // Marsaglia's tail method: exact for x > r.
            while true {
                let tail = -log(max(nextUnit(), 0x1p-53)) / Ziggurat.r
                let height = -log(max(nextUnit(), 0x1p-53))
                if 2 * height >= tail * tail { return Ziggurat.r + tail }
            }
        }
        let f = Ziggurat.f
        let y = f[layer] + (f[layer + 1] - f[layer]) * nextUnit()
        return y < exp(-0.5 * candidate * candidate) ? candidate : nil
    }

    /// True with probability `p`.
    package mutating func chance(_ p: Double) -> Bool {
        p > 0 && nextUnit() < p
    }
}

/// The 128-layer ziggurat for the standard normal (Marsaglia & Tsang, 2000), built once.
///
/// `x[i]` is the right edge of layer `i` (`x[0]` the base layer's width including the tail,
/// `x[1] = r`, decreasing to `x[128] = 0`); `f[i] = exp(-x[i]²/2)`, the curve at that edge.
/// Layer `i ≥ 1` is the rectangle `[0, x[i]] × [f[i], f[i+1]]`; each has area `v`.
enum Ziggurat {
    static let r = 3.442619855899
    static let v = 9.91256303526217e-3

    static let x: [Double] = {
        var x = [Double](repeating: 0, count: 129)
        let fr = Foundation.exp(-0.5 * r * r)
        x[0] = v / fr
        x[1] = r
        for i in 2..<128 {
            x[i] = (-2 * Foundation.log(v / x[i - 1] + Foundation.exp(-0.5 * x[i - 1] * x[i - 1]))).squareRoot()
        }
        x[128] = 0
        return x
    }()

    static let f: [Double] = x.map { Foundation.exp(-0.5 * $0 * $0) }
}

/// FNV-1a over bytes: a hash that is the same in every process (Swift's `Hasher` is seeded per
/// process, so it cannot decide anything that must replay identically).
package func stableHash(_ text: String, into seed: UInt64 = 0xCBF2_9CE4_8422_2325) -> UInt64 {
    var hash = seed
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01B3
    }
    return hash
}

/// Mixes numbers into one well-spread 64-bit value (SplitMix64's finalizer).
package func mix(_ a: UInt64, _ b: UInt64, _ c: UInt64 = 0) -> UInt64 {
    var z = a &+ b &* 0x9E37_79B9_7F4A_7C15 &+ c &* 0xC2B2_AE3D_27D4_EB4F
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}
