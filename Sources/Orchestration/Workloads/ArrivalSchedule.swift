import Typists

/// When each typist arrives, and with `stages` when it is sent away, as offsets from the phase
/// start, from (seed, typist index) only.
///
/// Poisson arrivals are a running sum of exponential gaps, so typist i's arrival depends on the
/// gaps of typists 0...i; each gap is drawn from the typist's own stream, and every worker
/// computes the whole prefix (O(typists), cheap) so that any split gives the same instants.
///
/// `stages` (k6's ramping typists) fix the number of typists in the field at every instant:
/// the target moves linearly from the previous stage's `to` (0 at the start) to the stage's `to`
/// over its duration, and the field holds ⌊target⌋ typists. Each time ⌊target⌋ rises a new
/// typist arrives (the next index, in order of arrival); each time it falls, the typist who came
/// last among those in the field leaves at once, mid-query. A typist leaves earlier when its
/// session ends (`session.queries`), so the schedule is an upper bound that the field follows
/// while sessions are long enough. Typists beyond the ones the stages bring never arrive.
package struct ArrivalSchedule: Sendable {
    /// Arrival of each typist; `never` for a typist the stages do not bring.
    package let offsets: [Int64]
    /// When each typist is sent away (ramped down); `never` when only its session or the
    /// phase's end stops it.
    package let departures: [Int64]

    /// The offset of an instant that never comes.
    package static let never = Int64.max

    /// Stream tag for arrival gaps, apart from the typist's typing stream.
    static let streamTag: UInt64 = 0xA77_1BA1 << 32

    package init(population: Population, seed: UInt64) {
        let count = population.typists
        switch population.arrival {
        case .allAtOnce:
            offsets = [Int64](repeating: 0, count: count)
            departures = [Int64](repeating: Self.never, count: count)
        case let .ramp(over):
            offsets = (0..<count).map { Int64((Double(over) * Double($0) / Double(count)).rounded(.down)) }
            departures = [Int64](repeating: Self.never, count: count)
        case let .rate(perSecond):
            var time = 0.0
            offsets = (0..<count).map { typist in
                var generator = SeededGenerator(seed: seed, stream: Self.streamTag | UInt64(typist))
                let unit = max(generator.nextUnit(), 1e-12)
                time += -log(unit) / perSecond * 1e9
                return Int64(time)
            }
            departures = [Int64](repeating: Self.never, count: count)
        case let .stages(stages):
            let visits = Self.visits(stages)
            offsets = (0..<count).map { $0 < visits.count ? visits[$0].arrival : Self.never }
            departures = (0..<count).map { $0 < visits.count ? visits[$0].departure : Self.never }
        }
    }

    /// Whether typist `typist` is in the field at `time` by the schedule alone (its session may
    /// have ended sooner).
    package func isScheduled(_ typist: Int, at time: Int64) -> Bool {
        offsets[typist] <= time && time < departures[typist]
    }

    /// How many typists `stages` bring into the field over the whole schedule (each rise of
    /// the target by one is a new typist).
    package static func arrivalCount(_ stages: [Population.Stage]) -> Int {
        var level = 0, arrivals = 0
        for stage in stages {
            arrivals += max(0, stage.target - level)
            level = stage.target
        }
        return arrivals
    }

    /// Each typist's stay in the field under `stages`, in order of arrival: a typist per unit
    /// rise of the target, leaving last-in-first-out when it falls.
    static func visits(_ stages: [Population.Stage]) -> [(arrival: Int64, departure: Int64)] {
        var visits: [(arrival: Int64, departure: Int64)] = []
        visits.reserveCapacity(arrivalCount(stages))
        // The visit of the typist holding each level 1...target (index level - 1).
        var holders: [Int] = []
        var level = 0
        var start: Int64 = 0
        for stage in stages {
            let from = level, to = stage.target
            /// When the linear ramp from `from` to `to` reaches `value`.
            func instant(_ value: Int) -> Int64 {
                start + Int64((Double(stage.overNanos) * Double(value - from) / Double(to - from)).rounded(.down))
            }
            if to > from {
                for value in (from + 1)...to {
                    holders.append(visits.count)
                    visits.append((instant(value), never))
                }
            } else if to < from {
                // The typist at level `value` leaves as soon as the target drops below it.
                for value in stride(from: from, to: to, by: -1) {
                    visits[holders.removeLast()].departure = instant(value)
                }
            }
            level = to
            start += stage.overNanos
        }
        return visits
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
