import Foundation
import Testing
@testable import Typists

/// Generated populations against the published figures of docs/typing.md. Tolerances are several
/// standard errors of the sample sizes used, so a pass means the model, not luck.
@Suite("Population statistics match the published figures", .timeLimit(.minutes(5)))
struct PopulationStatisticsTests {
    @Test("WPM per device: desktop Normal(51.56, 20.2), mobile Normal(36.17, 13.22), within 0.6 / 0.4 WPM")
    func wordsPerMinute() throws {
        for (device, mean, sd, tolerance) in [(DeviceClass.desktop, 51.56, 20.2, 0.6), (.mobile, 36.17, 13.22, 0.4)] {
            let population = try TypistPopulation(config: Support.config(device: device), queries: Support.shippedPool, seed: 42)
            let wpms = (0..<20_000).map { population.profile(forTypist: $0).wpm }
            let m = wpms.reduce(0, +) / Double(wpms.count)
            let s = (wpms.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(wpms.count - 1)).squareRoot()
            #expect(abs(m - mean) < tolerance, "\(device) mean WPM \(m)")
            #expect(abs(s - sd) < tolerance, "\(device) WPM SD \(s)")
            #expect(wpms.allSatisfy { device == .desktop ? (10...150).contains($0) : (8...90).contains($0) })
        }
    }

    @Test("the truncated normal is fitted so the cut distribution has the published moments")
    func truncatedNormalFit() {
        let fitted = TruncatedNormal(mean: 51.56, standardDeviation: 20.2, bounds: 10...150)
        let (mean, sd) = TruncatedNormal.moments(location: fitted.location, scale: fitted.scale, bounds: 10...150)
        #expect(abs(mean - 51.56) < 1e-6 && abs(sd - 20.2) < 1e-6)
        #expect(fitted.location < 51.56 && fitted.scale > 20.2)
    }

    @Test("desktop mean IKI: the median typist's is 238.7 ms within 3 %; the stream keeps each typist's mean within 6 %")
    func interKeyIntervals() throws {
        let population = try TypistPopulation(config: Support.config(device: .desktop, quiet: true), queries: Support.shippedPool, seed: 7)
        // The mean of 12000/WPM over a normal WPM is pulled up by slow typists (Jensen), so the
        // published 238.7 ms is matched by the median typist, whose WPM is near the published mean.
        let ikis = (0..<20_000).map { population.profile(forTypist: $0).meanIKIMillis }.sorted()
        #expect(abs(ikis[ikis.count / 2] / 238.7 - 1) < 0.03, "median profile IKI \(ikis[ikis.count / 2])")
        let stats = PopulationStatistics.measure(population, typists: 0..<1500)
        #expect(abs(stats.measuredToProfileIKIRatio - 1) < 0.06, "measured / profile IKI \(stats.measuredToProfileIKIRatio)")
    }

    @Test("log-logistic intervals keep the typist's mean too")
    func logLogisticIntervals() throws {
        var config = Support.config(device: .desktop, quiet: true)
        config.intervalShape = .logLogistic(matchingSigma: 0.4)
        let population = try TypistPopulation(config: config, queries: Support.shippedPool, seed: 7)
        let stats = PopulationStatistics.measure(population, typists: 0..<1500)
        #expect(abs(stats.measuredToProfileIKIRatio - 1) < 0.06, "measured / profile IKI \(stats.measuredToProfileIKIRatio)")
    }

    @Test("desktop errors: 1.17 % uncorrected (±0.25 pp), 6.31 % backspaces (±0.8 pp), 1.173 keys per character (±0.05)")
    func desktopErrors() throws {
        let population = try TypistPopulation(config: Support.config(device: .desktop), queries: Support.shippedPool, seed: 11)
        let stats = PopulationStatistics.measure(population, typists: 0..<3000)
        #expect(abs(stats.uncorrectedErrorRate - 0.0117) < 0.0025, "uncorrected \(stats.uncorrectedErrorRate)")
        #expect(abs(stats.backspaceShare - 0.0631) < 0.008, "backspaces \(stats.backspaceShare)")
        #expect(abs(stats.keystrokesPerCharacter - 1.173) < 0.05, "KSPC \(stats.keystrokesPerCharacter)")
    }

    @Test("mobile errors: 2.34 % uncorrected (±0.4 pp), 5.2 % backspaces (±0.8 pp)")
    func mobileErrors() throws {
        let population = try TypistPopulation(config: Support.config(device: .mobile), queries: Support.shippedPool, seed: 12)
        let stats = PopulationStatistics.measure(population, typists: 0..<3000)
        #expect(abs(stats.uncorrectedErrorRate - 0.0234) < 0.004, "uncorrected \(stats.uncorrectedErrorRate)")
        #expect(abs(stats.backspaceShare - 0.052) < 0.008, "backspaces \(stats.backspaceShare)")
    }

    @Test("words per query: mean 2.4–2.65 and the published shares within 3 pp", arguments: TypingLanguage.allCases)
    func wordsPerQuery(_ language: TypingLanguage) throws {
        let population = try TypistPopulation(config: Support.config(device: .desktop, language: language), queries: Support.shippedPool, seed: 13)
        let stats = PopulationStatistics.measure(population, typists: 0..<1500)
        #expect((2.4...2.65).contains(stats.meanWordsPerQuery), "mean words \(stats.meanWordsPerQuery)")
        for (share, published) in zip(stats.wordsPerQueryShares, [0.25, 0.33, 0.22, 0.11, 0.05, 0.04]) {
            #expect(abs(share - published) < 0.03, "shares \(stats.wordsPerQueryShares)")
        }
    }

    @Test("pinyin: about 2.2 key presses per character (±0.25)")
    func pinyinKeysPerCharacter() throws {
        let population = try TypistPopulation(config: Support.config(device: .desktop, language: .zh), queries: Support.shippedPool, seed: 14)
        let stats = PopulationStatistics.measure(population, typists: 0..<1000)
        #expect(abs(stats.keysPerHanCharacter - 2.2) < 0.25, "keys per character \(stats.keysPerHanCharacter)")
    }

    @Test("follow-up queries: 37–50 % of queries are followed by another")
    func followUps() throws {
        let population = try TypistPopulation(config: Support.config(device: .desktop), queries: Support.shippedPool, seed: 15)
        let stats = PopulationStatistics.measure(population, typists: 0..<1000)
        let followed = 1 - 1 / stats.queriesPerSession
        #expect((0.37...0.50).contains(followed), "share followed \(followed)")
    }
}

@Suite("Sampling tables", .timeLimit(.minutes(5)))
struct SamplingTableTests {
    @Test("the normal table has mean 0, SD 1, and the right quantiles in the tails")
    func normal() {
        var rng = SeededGenerator(seed: 1)
        let draws = (0..<200_000).map { _ in rng.nextStandardNormal() }
        let mean = draws.reduce(0, +) / Double(draws.count)
        let sd = (draws.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(draws.count)).squareRoot()
        #expect(abs(mean) < 0.01 && abs(sd - 1) < 0.01)
        #expect(abs(NormalQuantiles.table.sample(0.975) - 1.959964) < 0.002)
        #expect(abs(NormalQuantiles.table.sample(0.0001) + 3.719016) < 0.01)
        #expect(abs(NormalQuantiles.table.sample(0.9999) - 3.719016) < 0.01)
        let grid = stride(from: 0.0, to: 1.0, by: 1.0 / 65536).map { NormalQuantiles.table.sample($0) }
        #expect(zip(grid, grid.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test("interval multipliers have mean 1 and the log spread of their shape", arguments: [IntervalShape.logNormal(sigma: 0.4), .logLogistic(matchingSigma: 0.45)])
    func multipliers(_ shape: IntervalShape) {
        let sampler = IntervalShape.Sampler(shape)
        var rng = SeededGenerator(seed: 2)
        let draws = (0..<200_000).map { _ in sampler.sample(&rng) }
        #expect(abs(draws.reduce(0, +) / Double(draws.count) - 1) < 0.01)
        let logs = draws.map { Foundation.log($0) }
        let m = logs.reduce(0, +) / Double(logs.count)
        let sd = (logs.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(logs.count)).squareRoot()
        let expected: Double
        switch shape {
        case let .logNormal(sigma): expected = sigma
        case let .logLogistic(beta): expected = Double.pi / (beta * 3.0.squareRoot())
        }
        #expect(abs(sd - expected) < 0.02, "log SD \(sd)")
    }
}
