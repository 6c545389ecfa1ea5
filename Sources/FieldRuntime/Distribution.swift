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

    /// Draws one duration in nanoseconds from `rng`.
    @inline(__always)
    public func sample(_ rng: inout SeededGenerator) -> Int64 {
        switch self {
        case let .constant(value):
            return value
        case let .logNormal(median, sigma):
            guard sigma > 0 else { return median }
            return roundedToInt64(Double(median) * exp(sigma * rng.nextStandardNormalZiggurat()))
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

    /// `description` with σ to three significant digits, for people (a fitted σ has sixteen);
    /// `description` stays exact, as scenario hashes are made from it.
    package var readableDescription: String {
        guard case let .logNormal(median, sigma) = self else { return description }
        return "lognormal(median \(Double(median) / 1e6)ms, σ \(String(format: "%.3g", sigma)))"
    }

    public var description: String {
        switch self {
        case let .constant(value): "\(Double(value) / 1e6)ms"
        case let .logNormal(median, sigma): "lognormal(median \(Double(median) / 1e6)ms, σ \(sigma))"
        case let .uniform(low, high): "uniform(\(Double(low) / 1e6)–\(Double(high) / 1e6)ms)"
        }
    }
}

/// `Int64(x.rounded())` (to nearest, ties away from zero) without a call to the C library's
/// `round`, once per draw: the truncation is exact, and so is the fraction it leaves, so the
/// answer, and where it traps (NaN, infinities, beyond `Int64`), are the same.
@inline(__always)
func roundedToInt64(_ x: Double) -> Int64 {
    let whole = Int64(x)
    let fraction = x - Double(whole)
    if fraction >= 0.5 { return whole + 1 }
    if fraction <= -0.5 { return whole - 1 }
    return whole
}

/// FNV-1a over bytes: a hash that is the same in every process (Swift's `Hasher` is seeded per
/// process, so it cannot decide anything that must replay identically).
package func stableHash(_ text: String, into seed: UInt64 = 0xCBF2_9CE4_8422_2325) -> UInt64 {
    @inline(__always) func fold(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01B3
        }
        return hash
    }
    // Native and small strings hand out their UTF-8 in place: several times cheaper per byte
    // than walking the view's indices.
    return text.utf8.withContiguousStorageIfAvailable(fold) ?? fold(text.utf8)
}

/// Mixes numbers into one well-spread 64-bit value (SplitMix64's finalizer).
package func mix(_ a: UInt64, _ b: UInt64, _ c: UInt64 = 0) -> UInt64 {
    var z = a &+ b &* 0x9E37_79B9_7F4A_7C15 &+ c &* 0xC2B2_AE3D_27D4_EB4F
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}
