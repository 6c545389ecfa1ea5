import TypestormMetrics
import TypestormSystem
import Typists
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The driver's own workload: typists that type (log-normal inter-key intervals at the speeds
/// of docs/typing.md) but search for nothing.
///
/// It exercises everything the driver does — sharding, the ready barrier, snapshots, faults,
/// merging — with no runner module involved, and in `fast` pace measures the driver's overhead
/// per snapshot. Its numbers describe the probe typists only; it is not a search benchmark.
///
/// Metrics (group `probe`, label `runner=probe`): counters `typists`, `keystrokes`, `queries`;
/// histograms `probe.iki` (intended inter-key interval, ns) and, in real time, `probe.lag`
/// (actual − intended key time, ns).
struct ProbeWorkload: PhaseWorkload {
    var realTime: Bool

    /// One key of one typist, at its intended offset from the phase start.
    struct Key {
        var at: Int64
        var interval: Int64
        var typist: Int
        var first: Bool
        var last: Bool
        var queryStart: Bool
    }

    /// The keys of typist `typist`, cut at the phase duration, the session limit and its
    /// departure (arrival `stages`); none for a typist who never arrives.
    static func keys(typist: Int, arrival: Int64, departure: Int64 = ArrivalSchedule.never, scenario: Scenario) -> [Key] {
        var generator = SeededGenerator(seed: scenario.seed, stream: UInt64(typist))
        let entry = scenario.population.mixEntry(forTypist: typist)
        let median = entry.device == .desktop ? 238_700_000.0 : 332_000_000.0
        let sigma = entry.device == .desktop ? 0.40 : 0.45
        let limit = min(scenario.durationNanos, departure, scenario.population.maximumSessionNanos.map { arrival + $0 } ?? .max)
        var keys: [Key] = []
        guard arrival < limit else { return keys }
        var time = arrival + Int64(1_200_000_000 * exp(0.5 * generator.nextStandardNormalZiggurat()))
        for query in 0..<scenario.population.queriesPerSession {
            if query > 0 { time += Int64(1_200_000_000 * exp(0.6 * generator.nextStandardNormalZiggurat())) }
            let characters = 3 + Int(generator.nextUnit() * 15)
            for character in 0..<characters {
                let interval = Int64(median * exp(sigma * generator.nextStandardNormalZiggurat()))
                time += interval
                guard time < limit else { return mark(keys) }
                keys.append(Key(at: time, interval: interval, typist: typist, first: false, last: false, queryStart: character == 0))
            }
        }
        return mark(keys)
    }

    private static func mark(_ keys: [Key]) -> [Key] {
        var keys = keys
        if !keys.isEmpty {
            keys[0].first = true
            keys[keys.count - 1].last = true
        }
        return keys
    }

    func run(_ context: PhaseContext) async throws -> [MetricGroup] {
        let arrivals = ArrivalSchedule(population: context.scenario.population, seed: context.scenario.seed)
        var labels = context.labels
        labels["pace"] = realTime ? "realtime" : "fast"
        var group = MetricGroup(name: "probe", labels: labels)
        if realTime {
            try await runRealTime(context, arrivals: arrivals, group: &group)
        } else {
            runFast(context, arrivals: arrivals, group: &group)
        }
        context.progress.publish(groups: [group], typistsActive: 0)
        return [group]
    }

    private func record(_ key: Key, into metrics: inout MetricSet) {
        if key.first { metrics.add(MetricName.probeTypists) }
        if key.queryStart { metrics.add(MetricName.probeQueries) }
        metrics.add(MetricName.keystrokes)
        metrics.record(MetricName.probeInterKey, key.interval)
    }

    /// As fast as the CPU allows, typist after typist: the simulated-time shape.
    private func runFast(_ context: PhaseContext, arrivals: ArrivalSchedule, group: inout MetricGroup) {
        var sincePublish = 0
        for typist in context.typists {
            if context.progress.isStopRequested { break }
            for key in Self.keys(typist: typist, arrival: arrivals.offsets[typist], departure: arrivals.departures[typist], scenario: context.scenario) {
                record(key, into: &group.metrics)
            }
            sincePublish += 1
            if sincePublish >= 64 {
                sincePublish = 0
                context.progress.publish(groups: [group], typistsActive: 0)
            }
        }
    }

    /// Every key at its intended wall-clock time, recording how late it was.
    private func runRealTime(_ context: PhaseContext, arrivals: ArrivalSchedule, group: inout MetricGroup) async throws {
        var timeline = context.typists.flatMap { Self.keys(typist: $0, arrival: arrivals.offsets[$0], departure: arrivals.departures[$0], scenario: context.scenario) }
        timeline.sort { ($0.at, $0.typist) < ($1.at, $1.typist) }
        let start = Int64(MonotonicClock.now()) + (context.startWallClockNanos - WallClock.now())
        var active = 0
        var lastPublish: Int64 = 0
        for key in timeline {
            while true {
                if context.progress.isStopRequested { return }
                let now = Int64(MonotonicClock.now())
                let wait = start + key.at - now
                if now - lastPublish >= 100_000_000 {
                    context.progress.publish(groups: [group], typistsActive: active)
                    lastPublish = now
                }
                if wait <= 0 { break }
                try? await Task.sleep(nanoseconds: UInt64(min(wait, 50_000_000)))
            }
            if key.first { active += 1 }
            record(key, into: &group.metrics)
            group.metrics.record(MetricName.probeLag, Int64(MonotonicClock.now()) - (start + key.at))
            if key.last { active -= 1 }
        }
    }
}
