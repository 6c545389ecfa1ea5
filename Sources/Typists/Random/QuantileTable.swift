import Foundation

/// The standard normal's quantile table.
public enum NormalQuantiles {
    /// The standard normal's quantile function, tabulated once for the whole process.
    public static let table = QuantileTable { QuantileTable.normalQuantile($0) }
}

/// A quantile function F⁻¹(u) tabulated for fast sampling: 1024 cells over (0, 1) plus 64
/// finer cells inside each of the two outermost cells, interpolated linearly.
///
/// The main table is 8 KB, small enough to stay in L1 cache while typists are generated (with
/// a 32 KB table, its load was the hottest instruction of the typing loop, 20 % of the loop's
/// profile samples); the tail tables reach
/// u = 1/131072 (4.3 σ for a normal) and are rarely touched. The memory is allocated once and
/// never freed, so reading it costs no reference counting.
public struct QuantileTable: @unchecked Sendable {
    // @unchecked: the pointers are to memory written only in `init`/`scale` before the table
    // is shared, and never freed.
    /// Cells of the main table over (0, 1).
    public static let cells = 1024
    /// Cells of each finer tail table.
    public static let tailCells = 64

    @usableFromInline let main: UnsafeMutablePointer<Double>
    @usableFromInline let low: UnsafeMutablePointer<Double>
    @usableFromInline let high: UnsafeMutablePointer<Double>

    /// Tabulates `quantile` (F⁻¹, for u in (0, 1)) into the main and tail tables; the memory is never
    /// freed, so make tables once and keep them.
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

    /// `transform` of every entry of `table`: the table of `transform(X)` for an increasing
    /// `transform` (tabulated at the same points, so equal to tabulating the composed function).
    init(mapping table: QuantileTable, _ transform: (Double) -> Double) {
        let n = Self.cells, t = Self.tailCells
        main = .allocate(capacity: n)
        low = .allocate(capacity: t)
        high = .allocate(capacity: t)
        for i in 0..<n { main[i] = transform(table.main[i]) }
        for j in 0..<t {
            low[j] = transform(table.low[j])
            high[j] = transform(table.high[j])
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

    /// `sample(u)` for the uniform draw `u = Double(bits >> 11) * 0x1.0p-53` (what
    /// `SeededGenerator.nextUnit()` makes of `bits`), with the same result: the cell is found
    /// from the integer (`u × 1024 − 0.5` is exact, so its integer part is a shift), with no
    /// checked conversion of a Double.
    @inlinable @inline(__always)
    func sample(bits: UInt64) -> Double {
        let m = bits >> 11
        // Cells 0..<1023 hold u × 1024 − 0.5 = (m − 2⁴²) / 2⁴³ in [0, 1023).
        let offset = m &- (1 << 42)
        if offset < UInt64(Self.cells - 1) << 43 {
            let position = Double(m) * 0x1p-43 - 0.5
            let index = Int(truncatingIfNeeded: offset >> 43)
            let a = main[index]
            return a + (main[index &+ 1] - a) * (position - Double(index))
        }
        return tail(Double(m) * 0x1.0p-53)
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
