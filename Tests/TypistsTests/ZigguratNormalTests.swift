import Foundation
import Testing
@testable import Typists

/// The ziggurat must draw from the standard normal: moments, the body and both tails, which
/// exercise the rectangle, wedge and tail paths.
@Suite(.timeLimit(.minutes(5))) struct NormalSamplerTests {
    @Test func zigguratTablesAreConsistent() {
        let x = Ziggurat.x
        #expect(x.count == 129)
        #expect(x[1] == Ziggurat.r)
        #expect(x[128] == 0)
        for i in 1..<128 { #expect(x[i] > x[i + 1]) }
        // Every layer from 1 up has area v: x[i] · (f[i+1] − f[i]).
        for i in 1..<128 {
            let area = x[i] * (Ziggurat.f[i + 1] - Ziggurat.f[i])
            #expect(abs(area - Ziggurat.v) < 1e-9, "layer \(i) area \(area)")
        }
    }

    @Test func drawsAreStandardNormal() {
        var rng = SeededGenerator(seed: 7)
        let n = 2_000_000
        var sum = 0.0, squares = 0.0
        var below1 = 0, aboveTail = 0, belowTail = 0, beyond4 = 0
        for _ in 0..<n {
            let z = rng.nextStandardNormalZiggurat()
            sum += z
            squares += z * z
            if z < 1 { below1 += 1 }
            if z > 3 { aboveTail += 1 }
            if z < -3 { belowTail += 1 }
            if abs(z) > 4 { beyond4 += 1 }
        }
        let mean = sum / Double(n)
        let variance = squares / Double(n) - mean * mean
        #expect(abs(mean) < 0.003)
        #expect(abs(variance - 1) < 0.005)
        // Φ(1) = 0.841345; standard error at n = 2M is about 0.00026.
        #expect(abs(Double(below1) / Double(n) - 0.841345) < 0.0015)
        // P(Z > 3) = 0.0013499 on each side: about 2,700 draws each.
        #expect(abs(Double(aboveTail) / Double(n) - 0.0013499) < 0.0002)
        #expect(abs(Double(belowTail) / Double(n) - 0.0013499) < 0.0002)
        // P(|Z| > 4) = 6.33e-5: ~127 draws, beyond the ziggurat's r = 3.44 (the tail method).
        #expect(beyond4 > 70 && beyond4 < 200)
    }

    @Test func sameSeedSameDraws() {
        var a = SeededGenerator(seed: 99), b = SeededGenerator(seed: 99)
        for _ in 0..<10_000 { #expect(a.nextStandardNormalZiggurat() == b.nextStandardNormalZiggurat()) }
    }
}
