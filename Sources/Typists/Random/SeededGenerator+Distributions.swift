import Foundation

extension SeededGenerator {
    /// `true` with probability `p`.
    @inlinable @inline(__always)
    public mutating func nextBool(_ p: Double) -> Bool {
        nextUnit() < p
    }

    /// `nextBool(p)` for `threshold == Self.threshold(p)`: the same draw and the same answer,
    /// compared as integers.
    @inline(__always)
    mutating func nextBool(threshold: UInt64) -> Bool {
        next() >> 11 < threshold
    }

    /// The integer that `nextBool(threshold:)` compares the draw's top 53 bits `m` with:
    /// `nextUnit() < p` is `m × 2⁻⁵³ < p` (both exact), that is `m < ⌈p × 2⁵³⌉`.
    static func threshold(_ p: Double) -> UInt64 {
        guard p > 0 else { return 0 }
        guard p < 1 else { return 1 << 53 }
        return UInt64((p * 0x1p53).rounded(.up))
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

}
