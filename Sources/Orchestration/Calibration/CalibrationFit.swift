import JSONReading
import FieldRuntime
import Foundation

/// The scenario `backend` model fitted to what `typestorm calibrate` measured, with the figures
/// it came from.
///
/// The method (docs/tuning.md, "Calibrating against your API"):
/// - **Round trip**: the median TCP connect time of the requests that opened a connection (a
///   handshake is one round trip); its spread from the connect times' p90.
/// - **Service time**: end-to-end latencies of the steps that did not queue (median within 15 %
///   of the single-request step's), minus the round trip. Log-normal through the median and the
///   p90; a measured p99 more than 20 % above that log-normal's p99 makes a slow tail: the share
///   above the log-normal's p99.9 (less the 0.1 % it expects there), at the ratio of their median
///   to the overall median.
/// - **Workers**: Little's law at the highest throughput: requests per second × mean service
///   time. When even the last step did not queue, the server was not saturated and the workers
///   are at least that step's concurrency: a lower bound, not written to the model file.
/// - **Stall**: a latency flat at every concurrency with almost no spread is a fixed wait
///   (Nagle/delayed ACK, a sleep), named as such instead of a capacity.
/// - **Errors**: HTTP errors and unanswered requests of the steps that did not queue.
/// - **Cancellation**: `honoured` when a probe after an aborted burst waits less than half as long
///   as one after a completed burst (the delay: what it still waited beyond an idle server's
///   latency), `client-only` otherwise; absent when the bursts did not load the server.
package struct CalibrationFit: Sendable, Equatable {
    /// The fitted model (keys not measured keep `ScenarioBackend`'s defaults).
    package var backend: ScenarioBackend
    /// The `backend` keys that were measured, i.e. written to the file.
    package var measuredKeys: [String]
    /// Concurrency levels whose latencies form the distribution (no queueing).
    package var unqueuedConcurrency: [Int]
    /// End-to-end latencies of those steps: count and quantiles.
    package var samples: Int
    package var median: Int64
    package var p90: Int64
    package var p99: Int64
    /// Share of those requests slower than the service log-normal's p99.9 (a long tail shows as
    /// much more than 0.1 %).
    package var tailShare: Double
    package var errorRate: Double
    package var transportErrorRate: Double
    /// Share of successful requests over every step that reused a connection.
    package var connectionReuse: Double?
    /// Median TCP connect time; nil when no request opened a connection with a known time.
    package var roundTrip: Int64?
    package var maxThroughput: Double
    /// Whether a step queued (latency rose with concurrency): otherwise `workers` is a lower bound.
    package var saturated: Bool
    /// The cancellation probe's verdict; nil when it could not tell.
    package var cancellation: ScenarioBackend.Cancellation?
    /// A fixed wait instead of a service time and a queue, when the latencies show one.
    package var stall: Stall?

    /// Latency that stayed the same at every concurrency and barely varied from request to
    /// request: a fixed wait (a Nagle/delayed-ACK stall between client and server, or a sleep in
    /// the server), not a service time that a queue would show. Capacity cannot be fitted then.
    package struct Stall: Sendable, Equatable {
        /// The steady median end-to-end latency.
        package var latency: Int64
        /// p90 ÷ median of the pooled latencies (a real search's service times vary by query).
        package var spread: Double
        /// The first request, on a new connection, when it was much faster than the rest: the
        /// wait comes with reused connections, the mark of Nagle's algorithm meeting a delayed ACK.
        package var freshConnection: Int64?

        /// `nagle-delayed-ack` when a fresh connection was fast, else `fixed-wait`.
        package var cause: String { freshConnection == nil ? "fixed-wait" : "nagle-delayed-ack" }
    }

    /// The most p90 may exceed the median by for latencies to count as one fixed wait.
    static let stallSpread = 1.25
    /// Below this a flat latency is just a fast server, not a stall.
    static let stallFloorNanos: Int64 = 2_000_000

    /// Tolerance of "did not queue": a step's median within this factor of the first step's.
    static let unqueuedFactor = 1.15
    /// A step whose median is this many times the first's shows queueing.
    static let saturationFactor = 1.5

    /// Fits latency, capacity and errors (no cancellation yet); nil when no step had a successful
    /// request.
    /// `freshConnection`: the latency of a first request on a new connection (the preflight's),
    /// when known.
    package static func fit(steps: [CalibrationStep], maxConcurrency: Int, freshConnection: Int64? = nil) -> CalibrationFit? {
        guard let first = steps.first, let firstMedian = first.quantile(0.5) else { return nil }
        var unqueued: [CalibrationStep] = []
        for step in steps {
            guard let median = step.quantile(0.5), Double(median) <= Double(firstMedian) * unqueuedFactor else { break }
            unqueued.append(step)
        }
        let pooled = unqueued.flatMap(\.latencies).sorted()
        let connects = steps.flatMap(\.connectNanos).sorted()
        let roundTrip = connects.nearestRank(0.5)
        let rtt = roundTrip ?? 0
        let median = pooled.nearestRank(0.5)!, p90 = pooled.nearestRank(0.9)!, p99 = pooled.nearestRank(0.99)!
        let service50 = max(median - rtt, 1_000), service90 = max(p90 - rtt, service50), service99 = max(p99 - rtt, service50)
        let sigma = log(Double(service90) / Double(service50)) / 1.2816
        let bodyP99 = Double(service50) * exp(2.326 * sigma)
        let tailThreshold = max(Double(service50) * exp(3.09 * sigma), 2 * Double(service50))
        let tail = pooled.filter { Double($0 - rtt) > tailThreshold }
        let tailShare = Double(tail.count) / Double(pooled.count)

        var backend = ScenarioBackend()
        backend.serviceMedianNanos = roundedToMicros(service50)
        backend.serviceP99Nanos = max(roundedToMicros(Int64(bodyP99)), backend.serviceMedianNanos)
        backend.slowTailProbability = 0
        backend.slowTailFactor = 1
        if Double(service99) > 1.2 * bodyP99, tailShare > 0.001, let tailMedian = tail.nearestRank(0.5) {
            backend.slowTailProbability = ((tailShare - 0.001) * 1e4).rounded() / 1e4
            backend.slowTailFactor = max(1, (Double(tailMedian - rtt) / Double(service50) * 100).rounded() / 100)
        }
        var measuredKeys = ["serviceTime", "slowTail"]
        if let roundTrip {
            backend.networkRoundTripNanos = roundedToMicros(roundTrip)
            let spread = connects.count >= 10 && roundTrip > 0
                ? log(Double(max(connects.nearestRank(0.9)!, roundTrip)) / Double(roundTrip)) / 1.2816 : 0
            backend.networkRTTSpread = min((spread * 100).rounded() / 100, 5)
            measuredKeys += ["networkRTT", "networkRTTSpread"]
        }

        let requests = unqueued.map(\.requests).reduce(0, +)
        let errorRate = requests > 0 ? Double(unqueued.map(\.serverErrors).reduce(0, +)) / Double(requests) : 0
        let transportErrorRate = requests > 0 ? Double(unqueued.map(\.transportErrors).reduce(0, +)) / Double(requests) : 0
        backend.errorRate = (errorRate * 1e4).rounded() / 1e4
        backend.transportErrorRate = (transportErrorRate * 1e4).rounded() / 1e4
        measuredKeys += ["errorRate", "transportErrorRate"]

        let maxThroughput = steps.map(\.throughput).max() ?? 0
        let meanService = Double(pooled.reduce(0, +)) / Double(pooled.count) - Double(rtt)
        let saturated = steps.contains { step in step.quantile(0.5).map { Double($0) > Double(firstMedian) * saturationFactor } ?? false }
        var workers = max(1, Int((maxThroughput * meanService / 1e9).rounded()))
        if !saturated { workers = max(workers, maxConcurrency) }
        backend.workers = workers
        // Unsaturated, the workers are only a lower bound: not written as if measured.
        if saturated { measuredKeys.append("workers") }
        var stall: Stall?
        let spread = Double(p90) / Double(max(median, 1))
        if !saturated, unqueued.count == steps.count, steps.count >= 3, median >= stallFloorNanos, spread <= stallSpread {
            stall = Stall(latency: median, spread: spread, freshConnection: freshConnection.flatMap { $0 * 2 < median ? $0 : nil })
        }

        let successes = steps.map(\.latencies.count).reduce(0, +)
        let reused = steps.map { $0.latencies.count - min($0.newConnections, $0.latencies.count) }.reduce(0, +)
        return CalibrationFit(
            backend: backend, measuredKeys: measuredKeys, unqueuedConcurrency: unqueued.map(\.concurrency), samples: pooled.count,
            median: median, p90: p90, p99: p99, tailShare: tailShare, errorRate: errorRate, transportErrorRate: transportErrorRate,
            connectionReuse: successes > 0 ? Double(reused) / Double(successes) : nil, roundTrip: roundTrip,
            maxThroughput: maxThroughput, saturated: saturated, cancellation: nil, stall: stall)
    }

    /// The cancellation probe's verdict: how long a probe waited beyond an idle server's latency
    /// after an aborted burst, against after a completed one. Nil when the completed bursts did
    /// not delay the probe by half a service time (the bursts did not load the server).
    package static func cancellation(_ probe: CancellationProbe, idleLatency: Int64, serviceMedian: Int64)
        -> (mode: ScenarioBackend.Cancellation, delay: Int64)? {
        guard let aborted = probe.afterAbortedNanos.median, let completed = probe.afterCompletedNanos.median else { return nil }
        let afterAbort = aborted - idleLatency, afterComplete = completed - idleLatency
        guard afterComplete * 2 >= serviceMedian else { return nil }
        if afterAbort * 2 < afterComplete { return (.honoured, roundedToMicros(max(afterAbort, 0))) }
        return (.clientOnly, 0)
    }

    /// Sets the cancellation verdict into the model.
    package mutating func apply(cancellation verdict: (mode: ScenarioBackend.Cancellation, delay: Int64)) {
        cancellation = verdict.mode
        backend.cancellation = verdict.mode
        measuredKeys.append("cancellation")
        if verdict.mode == .honoured {
            backend.cancelDelayNanos = verdict.delay
            measuredKeys.append("cancelDelay")
        }
    }

    /// The latency the burst probe's request would see on an idle server: the single-request
    /// median plus a connect (the probe opens a new connection).
    package var idleLatencyForProbe: Int64 { median + (roundTrip ?? 0) }

    /// The measured keys of the fitted model as a `backend` object (what `--out` writes; the
    /// scenario reader's keys, so `sweep --backend` and a scenario's `backend` take it as is).
    package var backendJSON: JSONValue {
        guard case let .object(members) = backend.json else { return backend.json }
        let keys = Set(measuredKeys)
        return .object(members.filter { keys.contains($0.key) })
    }

    /// End-to-end quantiles (round trip + service, slow tail included) of a backend model, from
    /// `draws` draws of the simulator's own `BackendModel.draw`: what virtual time will see.
    package static func modelQuantiles(_ backend: ScenarioBackend, draws: Int = 50_000, seed: UInt64 = 1) -> (p50: Int64, p90: Int64, p99: Int64) {
        let model = backend.model
        var latencies = (0..<draws).map { index -> Int64 in
            let draw = model.draw(seed: seed, typist: 0, request: UInt64(index), queryLength: 4)
            return 2 * draw.oneWayNanos + draw.serviceNanos
        }
        latencies.sort()
        return (latencies.nearestRank(0.5)!, latencies.nearestRank(0.9)!, latencies.nearestRank(0.99)!)
    }
}

private func roundedToMicros(_ nanos: Int64) -> Int64 { (nanos + 500) / 1_000 * 1_000 }
