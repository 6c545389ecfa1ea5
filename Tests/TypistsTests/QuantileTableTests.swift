import Foundation
import Testing
@testable import Typists

@Suite(.timeLimit(.minutes(5))) struct QuantileTableTests {
    /// A log-normal table read from the normal table holds exactly the values of tabulating
    /// exp(σ Φ⁻¹(p)) directly, in the main cells and both tails: typists draw the same intervals.
    @Test(arguments: [0.3, 0.4, 0.5, 0.6, 0.7])
    func logNormalFromTheNormalTableIsExact(sigma: Double) {
        let mapped = QuantileTable(mapping: NormalQuantiles.table) { Foundation.exp(sigma * $0) }
        let direct = QuantileTable { Foundation.exp(sigma * QuantileTable.normalQuantile($0)) }
        for i in 0..<QuantileTable.cells { #expect(mapped.main[i].bitPattern == direct.main[i].bitPattern, "main cell \(i)") }
        for j in 0..<QuantileTable.tailCells {
            #expect(mapped.low[j].bitPattern == direct.low[j].bitPattern, "low tail cell \(j)")
            #expect(mapped.high[j].bitPattern == direct.high[j].bitPattern, "high tail cell \(j)")
        }
    }
}
