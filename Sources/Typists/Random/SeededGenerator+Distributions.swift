import Foundation

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

}
