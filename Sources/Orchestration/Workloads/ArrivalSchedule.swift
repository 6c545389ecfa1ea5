import Typists

/// When each typist arrives, as an offset from the phase start, from (seed, typist index) only.
///
/// Poisson arrivals are a running sum of exponential gaps, so typist i's arrival depends on the
/// gaps of typists 0...i; each gap is drawn from the typist's own stream, and every worker
/// computes the whole prefix (O(typists), cheap) so that any split gives the same instants.
public struct ArrivalSchedule: Sendable {
    public let offsets: [Int64]

    /// Stream tag for arrival gaps, apart from the typist's typing stream.
    static let streamTag: UInt64 = 0xA77_1BA1 << 32

    public init(population: Population, seed: UInt64) {
        let count = population.typists
        switch population.arrival {
        case .allAtOnce:
            offsets = [Int64](repeating: 0, count: count)
        case let .ramp(over):
            offsets = (0..<count).map { Int64((Double(over) * Double($0) / Double(count)).rounded(.down)) }
        case let .rate(perSecond):
            var time = 0.0
            offsets = (0..<count).map { typist in
                var generator = SeededGenerator(seed: seed, stream: Self.streamTag | UInt64(typist))
                let unit = max(generator.nextUnit(), 1e-12)
                time += -log(unit) / perSecond * 1e9
                return Int64(time)
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
