import Foundation

extension SeededGenerator {
    /// A standard normal deviate, by Marsaglia and Tsang's ziggurat (128 layers): the draw
    /// for everything but the typists (the backend model, the driver's probe, the change-point
    /// calibration). The typists draw through `nextStandardNormal()` (an inverse-CDF table, one
    /// uniform per draw), whose streams pin every recorded keystroke.
    ///
    /// Nearly every draw (98.8 %) costs one 64-bit random number, a table read and a multiply;
    /// only the rare wedge and tail draws call `exp` or `log`. Box–Muller, before it, called
    /// `log`, `sqrt` and `cos` on every draw, a few percent of a simulated keystroke. One draw
    /// splits its bits: the low 7 pick the layer, bit 7 the sign, the top 53 the position.
    /// Inlinable, so that the backend model's draws (another module) make no call for it.
    @inlinable @inline(__always)
    package mutating func nextStandardNormalZiggurat() -> Double {
        let x = Ziggurat.edges
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
    @inline(never) @usableFromInline
    mutating func slowNormal(layer: Int, candidate: Double) -> Double? {
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
    @inlinable @inline(__always)
    package mutating func chance(_ p: Double) -> Bool {
        p > 0 && nextUnit() < p
    }
}

/// The 128-layer ziggurat for the standard normal (Marsaglia & Tsang, 2000), built once.
///
/// `x[i]` is the right edge of layer `i` (`x[0]` the base layer's width including the tail,
/// `x[1] = r`, decreasing to `x[128] = 0`); `f[i] = exp(-x[i]²/2)`, the curve at that edge.
/// Layer `i ≥ 1` is the rectangle `[0, x[i]] × [f[i], f[i+1]]`; each has area `v`.
@usableFromInline
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

    /// `x` in memory that is never freed, for the draws: read with no bounds check (the
    /// layer, 7 bits, and the one above it are always within its 129 entries) and no
    /// reference counting. `nonisolated(unsafe)`: written once, before the pointer is
    /// handed out, and only read after.
    @usableFromInline
    nonisolated(unsafe) static let edges: UnsafePointer<Double> = {
        let edges = UnsafeMutablePointer<Double>.allocate(capacity: x.count)
        edges.initialize(from: x, count: x.count)
        return UnsafePointer(edges)
    }()
}
