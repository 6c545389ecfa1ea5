import Foundation
import TypestormMetrics
@testable import Reporting

/// A small seeded generator (SplitMix64) so fixtures are the same on every machine.
struct FixtureRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Log-normal with the given median and shape.
    mutating func logNormal(median: Double, sigma: Double) -> Double {
        let u1 = max(unit(), 1e-12), u2 = unit()
        let normal = (-2 * Foundation.log(u1)).squareRoot() * cos(2 * Double.pi * u2)
        return median * exp(sigma * normal)
    }

    mutating func chance(_ p: Double) -> Bool { unit() < p }
}

/// Builds realistic-looking run records for the report fixtures: four strategies whose numbers
/// follow the patterns the seeds describe (naive overwrites, switch-latest cancels, debounce
/// trades requests for waiting). These are fixtures for the report code, not measurements.
enum SyntheticRecords {
    struct Profile {
        var name: String
        var sendsPerKeystroke: Bool
        var debounceMs: Double
        var staleChance: Double
        var outOfOrderChance: Double
        var cancels: Bool
        var backendHonoursCancel: Bool
        var falseEmptyChance: Double
    }

    static let profiles = [
        Profile(name: "naive", sendsPerKeystroke: true, debounceMs: 0, staleChance: 0.031, outOfOrderChance: 0.12, cancels: false, backendHonoursCancel: false, falseEmptyChance: 0.03),
        Profile(name: "sequence-guarded", sendsPerKeystroke: true, debounceMs: 0, staleChance: 0, outOfOrderChance: 0, cancels: false, backendHonoursCancel: false, falseEmptyChance: 0),
        Profile(name: "switch-latest", sendsPerKeystroke: true, debounceMs: 0, staleChance: 0, outOfOrderChance: 0, cancels: true, backendHonoursCancel: true, falseEmptyChance: 0.004),
        Profile(name: "debounced-switch-latest", sendsPerKeystroke: false, debounceMs: 250, staleChance: 0, outOfOrderChance: 0, cancels: true, backendHonoursCancel: true, falseEmptyChance: 0),
    ]

    /// `detailed: false` leaves out the latency and cancellation histograms (the sweep only needs
    /// TTFR and fan-out), which keeps the sweep fixture small.
    static func group(_ profile: Profile, settles: Int, labels: [String: String] = [:], timelineSeconds: Int?, detailed: Bool = true, random: inout FixtureRandom) -> MetricGroup {
        var m = MetricSet()
        var completedTotal: Int64 = 0
        var inFlightSum = 0.0
        for _ in 0..<settles {
            let keys = 3 + Int(random.unit() * 10)
            m.add(MetricName.keystrokes, Int64(keys))
            m.add(MetricName.sessionNs, Int64(keys) * 170_000_000 + 1_000_000_000)
            m.add(MetricName.settles)
            // Inter-key gaps ~ 180 ms; the debounce fires after gaps longer than its interval.
            var requests = 0
            for key in 0..<keys {
                let gap = random.logNormal(median: 170, sigma: 0.55)
                if profile.sendsPerKeystroke || gap > profile.debounceMs || key == keys - 1 { requests += 1 } else { m.add(MetricName.taskChurn) }
            }
            m.add(MetricName.distinctCommits, Int64(min(requests, keys)))
            m.add(MetricName.requestsStarted, Int64(requests))
            m.record(MetricName.fanOutPerSettle, Int64(requests), configuration: .counts)
            var service: Int64 = 0, wastedClient: Int64 = 0, wastedBackend: Int64 = 0
            var lastLatency = 0.0
            for index in 0..<requests {
                let latency = random.logNormal(median: 48e6, sigma: 0.65)
                if detailed { m.record(MetricName.requestLatency, Int64(latency)) }
                let obsolete = index < requests - 1
                let serviceTime = Int64(latency * 0.8)
                service += serviceTime
                if obsolete {
                    wastedClient += profile.cancels ? serviceTime / 3 : serviceTime
                    wastedBackend += profile.backendHonoursCancel ? serviceTime / 2 : serviceTime
                    if profile.cancels && detailed {
                        m.record(MetricName.signalLatency, Int64(random.logNormal(median: 35e3, sigma: 0.5)))
                        m.record(MetricName.stopLatencyClient, Int64(random.logNormal(median: 280e3, sigma: 0.6)))
                        m.record(MetricName.stopLatencyBackend, Int64(random.logNormal(median: 2.6e6, sigma: 0.7)))
                    }
                }
                if !(profile.cancels && obsolete) { m.add(MetricName.requestsCompleted) ; completedTotal += 1 }
                inFlightSum += latency
                lastLatency = latency
            }
            m.add(MetricName.clientNs, service)
            m.add(MetricName.serviceNs, service)
            m.add(MetricName.wastedClientNs, wastedClient)
            m.add(MetricName.wastedServiceNs, wastedBackend)
            if profile.outOfOrderChance > 0 && random.chance(profile.outOfOrderChance) { m.add(MetricName.outOfOrderApplies, 1 + Int64(random.unit() * 2)) }
            if random.chance(profile.staleChance) {
                m.add(MetricName.staleSettles)
                m.add(MetricName.neverFresh)
                m.add(MetricName.mismatchNs, Int64(random.logNormal(median: 900e6, sigma: 0.5)))
            } else {
                let ttfr = profile.debounceMs * 1e6 + lastLatency + random.logNormal(median: 4e6, sigma: 0.4)
                m.record(MetricName.timeToFresh, Int64(ttfr))
                if profile.sendsPerKeystroke && !profile.cancels && requests > 1 && random.chance(0.4) {
                    m.add(MetricName.mismatchNs, Int64(random.logNormal(median: 60e6, sigma: 0.6)))
                }
            }
            let changes = profile.debounceMs > 0 ? 2 + requests : 2 * requests
            m.add(MetricName.displayChanges, Int64(changes))
            m.add(MetricName.blinks, Int64(Double(max(0, changes - 2)) * (profile.debounceMs > 0 ? 0.2 : 0.45)))
            if random.chance(profile.falseEmptyChance) { m.add(MetricName.falseEmpties) }
            if random.chance(0.002) { m.add(MetricName.timeouts) }
        }
        m.raiseMaximum(MetricName.maxInFlight, to: profile.cancels ? 14 : 31)
        m.raiseMaximum(MetricName.runEndNs, to: Int64(timelineSeconds ?? 20) * 1_000_000_000)
        if let seconds = timelineSeconds {
            m.raiseMaximum(MetricName.timelineBucket, to: 1_000_000_000)
            let perSecond = Double(completedTotal) / Double(seconds)
            let meanInFlight = inFlightSum / (Double(seconds) * 1e9)
            for second in 0..<seconds {
                let ramp = min(1, Double(second + 1) / 5)
                let wave = 1 + 0.15 * sin(Double(second) / 4) + (random.unit() - 0.5) * 0.1
                m.add("\(MetricName.timelineCompleted).\(second)", Int64(perSecond * ramp * wave))
                m.add("\(MetricName.timelineInFlight).\(second)", Int64(meanInFlight * ramp * wave * 1e9))
            }
        }
        return MetricGroup(name: profile.name, labels: labels, metrics: m)
    }

    /// A live in-process run of four strategies on a host, with time series.
    static func strategiesRecord(seed: UInt64 = 42, settles: Int = 1500) -> RunRecord {
        var random = FixtureRandom(seed: seed)
        let metadata = RunMetadata(
            toolVersion: "0.1.0", gitCommit: "c0ffee1", scenarioName: "default-en-desktop", scenarioHash: "9f3a51c2d7e0",
            seed: seed, runner: "in-process", segments: [Segment(index: 0, count: 2), Segment(index: 1, count: 2)],
            host: .init(hostname: "bench-1", cores: 8, memoryBytes: 34_359_738_368, os: "Debian GNU/Linux 12"),
            startedAtMillis: 1_795_000_000_000, endedAtMillis: 1_795_000_061_500)
        let groups = profiles.map { group($0, settles: settles, labels: ["runner": "in-process"], timelineSeconds: 60, random: &random) }
        return RunRecord(metadata: metadata, groups: groups)
    }

    /// A virtual-time run: no host, no wall clock, no time series, two strategies, partial.
    static func virtualRecord(seed: UInt64 = 7) -> RunRecord {
        var random = FixtureRandom(seed: seed)
        let metadata = RunMetadata(toolVersion: "0.1.0", scenarioName: "korean <mobile> & \"quoted\"", scenarioHash: "ab12", seed: seed,
                                   runner: "virtual", segments: [Segment(index: 0, count: 3), Segment(index: 2, count: 3)])
        let groups = [profiles[0], profiles[2]].map { group($0, settles: 400, timelineSeconds: nil, random: &random) }
        return RunRecord(metadata: metadata, groups: groups, partial: true, problems: ["worker 2 exited with signal 9 after 3.2 s"])
    }

    /// A debounce sweep: switch-latest over debounce 0...600 ms (step 50) × min length 1...2 ×
    /// two populations, each point a group labelled with its grid coordinates.
    static func sweepRecord(seed: UInt64 = 11) -> RunRecord {
        var random = FixtureRandom(seed: seed)
        var groups: [MetricGroup] = []
        for population in ["desktop-en", "mobile-ko"] {
            for minLength in 1...2 {
                for debounce in stride(from: 0, through: 600, by: 50) {
                    var profile = profiles[3]
                    profile.name = "switch-latest"
                    profile.debounceMs = Double(debounce) * (population == "mobile-ko" ? 0.8 : 1)
                    profile.sendsPerKeystroke = debounce == 0
                    let labels = [SweepLabel.debounce: "\(debounce)", SweepLabel.minLength: "\(minLength)",
                                  SweepLabel.population: population]
                    groups.append(group(profile, settles: 150 - minLength * 20, labels: labels, timelineSeconds: nil, detailed: false, random: &random))
                }
            }
        }
        let metadata = RunMetadata(toolVersion: "0.1.0", scenarioName: "sweep-default", scenarioHash: "5weep", seed: seed, runner: "virtual",
                                   segments: [Segment(index: 0, count: 1)])
        return RunRecord(metadata: metadata, groups: groups)
    }
}
