import FieldRuntime
import Glibc
import Locking
import Synchronization

/// A distribution of added latency, sampled per request.
package enum LatencyDistribution: Sendable, Equatable, CustomStringConvertible {
    case none
    case fixed(nanos: UInt64)
    case uniform(lowNanos: UInt64, highNanos: UInt64)
    case exponential(meanNanos: UInt64)

    /// Parses `fixed:10ms`, `uniform:1ms-20ms`, `exp:5ms`, `none`; durations take ns, us, ms, s.
    package init(parsing text: String) throws(FaultConfigurationError) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        func fail() -> FaultConfigurationError {
            FaultConfigurationError(description: "'\(text)' is not a latency distribution; use none, fixed:10ms, uniform:1ms-20ms or exp:5ms")
        }
        switch parts.first {
        case "none" where parts.count == 1: self = .none
        case "fixed" where parts.count == 2:
            guard let value = Self.duration(parts[1]) else { throw fail() }
            self = .fixed(nanos: value)
        case "uniform" where parts.count == 2:
            let bounds = parts[1].split(separator: "-").map(String.init)
            guard bounds.count == 2, let low = Self.duration(bounds[0]), let high = Self.duration(bounds[1]), low <= high else { throw fail() }
            self = .uniform(lowNanos: low, highNanos: high)
        case "exp" where parts.count == 2:
            guard let value = Self.duration(parts[1]) else { throw fail() }
            self = .exponential(meanNanos: value)
        default: throw fail()
        }
    }

    /// `250us`, `5ms`, `1.5s` in nanoseconds.
    package static func duration(_ text: String) -> UInt64? {
        let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("ms", 1e6), ("s", 1e9)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let value = Double(text.dropLast(suffix.count)), value >= 0, value.isFinite else { return nil }
            return UInt64(value * scale)
        }
        return nil
    }

    package var description: String {
        switch self {
        case .none: "none"
        case .fixed(let n): "fixed:\(n)ns"
        case .uniform(let lo, let hi): "uniform:\(lo)ns-\(hi)ns"
        case .exponential(let mean): "exp:\(mean)ns"
        }
    }

    func sample(_ uniform: () -> Double) -> UInt64 {
        switch self {
        case .none: 0
        case .fixed(let n): n
        case .uniform(let lo, let hi): lo + UInt64(Double(hi - lo) * uniform())
        case .exponential(let mean): UInt64(-Double(mean) * log1p(-uniform()))
        }
    }
}

/// A fault-injection setting that does not parse.
package struct FaultConfigurationError: Error, Sendable, CustomStringConvertible {
    package var description: String
}

/// Faults the server injects for stale-result studies: added latency, a slow tail, errors.
package struct FaultInjection: Sendable, Equatable {
    package var latency: LatencyDistribution = .none
    /// Share of requests that also get `slowTailNanos` added.
    package var slowTailProbability = 0.0
    package var slowTailNanos: UInt64 = 0
    /// Share of requests answered with a 500 instead of results.
    package var errorRate = 0.0
    /// Accept `fault_delay_ms` and `fault_error` on `GET /search` (unknown parameters otherwise).
    package var allowPerRequestParameters = false
    package var seed: UInt64 = 0x7459_7065_7374_6F72
    /// A backend model whose service time (slow tail included) delays each search on its
    /// worker, and whose `errorRate` answers 500s: the same draws as the virtual runner's
    /// (`BackendModel.draw`, request *n* of the server taking stream (`seed`, 0, *n*)), so a
    /// known model can be measured over real HTTP (`typestorm serve --latency FILE`). Its round
    /// trip and transport losses are not injected: the network is the real one.
    package var model: BackendModel?

    package init() {}

    var isActive: Bool { latency != .none || slowTailProbability > 0 || errorRate > 0 || model != nil }
}

/// Faults asked for by one request's parameters.
struct RequestFaults: Sendable, Equatable {
    var delayMillis = 0
    var forceError = false
}

/// What to do to one request.
struct FaultDecision: Sendable {
    var delayNanos: UInt64
    var fail: Bool
}

/// Samples fault decisions from one seeded stream (SplitMix64), shared by the workers.
final class FaultSampler: Sendable {
    let configuration: FaultInjection
    private let state: Locked<UInt64>
    /// Searches drawn from `configuration.model` so far: the next one's request number.
    private let modelRequests = Atomic<UInt64>(0)

    init(_ configuration: FaultInjection) {
        self.configuration = configuration
        state = Locked(configuration.seed)
    }

    func decide(_ request: RequestFaults, queryLength: Int = 0) -> FaultDecision {
        var delay = UInt64(request.delayMillis) * 1_000_000
        var fail = request.forceError
        guard configuration.isActive else { return FaultDecision(delayNanos: delay, fail: fail) }
        if let model = configuration.model {
            let number = modelRequests.add(1, ordering: .relaxed).oldValue
            let draw = model.draw(seed: configuration.seed, typist: 0, request: number, queryLength: queryLength)
            delay += UInt64(max(draw.serviceNanos, 0))
            if draw.failure == .serverError { fail = true }
        }
        let draws = state.withLock { s -> (Double, Double, Double) in
            func next() -> Double {
                s &+= 0x9E37_79B9_7F4A_7C15
                var z = s
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
            }
            return (next(), next(), next())
        }
        delay += configuration.latency.sample { draws.0 }
        if draws.1 < configuration.slowTailProbability { delay += configuration.slowTailNanos }
        if draws.2 < configuration.errorRate { fail = true }
        return FaultDecision(delayNanos: delay, fail: fail)
    }
}
