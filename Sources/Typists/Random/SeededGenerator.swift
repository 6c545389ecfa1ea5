/// A fast, seedable random number generator (xoshiro256**), seeded through SplitMix64.
///
/// Every random stream in Typestorm is one of these, derived from (scenario seed, stream index)
/// with `init(seed:stream:)`, so the same typist draws the same numbers whichever process,
/// machine or shard runs it.
public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
    @usableFromInline var s0: UInt64
    @usableFromInline var s1: UInt64
    @usableFromInline var s2: UInt64
    @usableFromInline var s3: UInt64

    /// A generator whose whole stream is fixed by `seed` (expanded into the state with SplitMix64).
    /// Inlined: the backend model seeds one per request.
    @inlinable @inline(__always)
    public init(seed: UInt64) {
        var mixer = SplitMix64(state: seed)
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
    }

    /// An independent stream for `stream` (a typist index, a purpose tag) under `seed`.
    public init(seed: UInt64, stream: UInt64) {
        self.init(streamBase: Self.streamBase(seed: seed), stream: stream)
    }

    /// What `init(seed:stream:)` derives from `seed` for every stream: made once by a caller
    /// that derives many streams under one seed (a population, two per typist).
    static func streamBase(seed: UInt64) -> UInt64 {
        var mixer = SplitMix64(state: seed ^ 0x5DEE_CE66_D1CE_4E5B)
        return mixer.next()
    }

    /// `init(seed:stream:)` for `base == streamBase(seed: seed)`.
    init(streamBase base: UInt64, stream: UInt64) {
        var streamMixer = SplitMix64(state: base &+ stream &* 0x9E37_79B9_7F4A_7C15)
        self.init(seed: streamMixer.next() ^ stream)
    }

    @inlinable @inline(__always)
    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// A uniform double in [0, 1).
    @inlinable @inline(__always)
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Inlinable so that `next()`, inlined into other modules, does not call out per draw.
    @inlinable @inline(__always)
    func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}

/// SplitMix64, used only to expand seeds into generator state.
@usableFromInline
struct SplitMix64 {
    @usableFromInline var state: UInt64

    @inlinable
    init(state: UInt64) {
        self.state = state
    }

    @inlinable
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
