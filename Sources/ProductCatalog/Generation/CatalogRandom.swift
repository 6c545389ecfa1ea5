/// A small seeded generator (SplitMix64) for the catalog generator.
///
/// Catalog is a pure module and cannot use `Typists.SeededGenerator`; SplitMix64 is fast, has a
/// 64-bit state and passes BigCrush, which is plenty for picking words.
package struct CatalogRandom: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    /// An independent stream for `stream` under `seed` (one per block of generated rows).
    ///
    /// The starting state is a hash of (seed, stream), so streams start at unrelated points of
    /// the 2^64 cycle (states that differ by multiples of the increment would replay each other).
    package init(seed: UInt64, stream: UInt64) {
        state = Self.mix(Self.mix(seed ^ 0xA076_1D64_78BD_642F) ^ Self.mix(stream &+ 0x9E37_79B9_7F4A_7C15))
    }

    /// SplitMix64's finalizer: a bijective 64-bit hash.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inlinable
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (multiply-shift; the bias is below 2⁻³² for our bounds).
    @inlinable
    package mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(truncatingIfNeeded: bound).multipliedFullWidth(by: next())).high)
    }

    /// A uniform double in [0, 1).
    @inlinable
    package mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
