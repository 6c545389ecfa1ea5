/// What the user wants from a debounce setting, stated: one quantity to minimise and the
/// correctness constraints a setting must meet to be considered at all.
package struct SweepObjective: Sendable, Equatable {
    package enum Goal: Sendable, Equatable {
        /// Minimise p95 time to fresh results + `nanos` × requests per search: one request per
        /// search is worth `nanos` of p95 waiting.
        case requestCost(nanos: Double)
        /// Minimise p95 time to fresh results among settings with at most this many requests
        /// per search (mean over replicates).
        case budget(requestsPerSearch: Double)
        /// Minimise requests per search among settings whose p95 time to fresh results (mean
        /// over replicates) is at most `nanos`.
        case ttfrP95(nanos: Double)
    }

    package var goal: Goal
    /// Largest mean share of searches whose final screen was wrong.
    package var maxStaleShare: Double
    /// Largest mean share of searches that never showed fresh results.
    package var maxNeverFreshShare: Double

    /// The default: a request is worth 40 ms of p95 waiting; at most 1 % stale and 1 % never fresh.
    package static let defaultRequestCostNanos = 40_000_000.0
    package static let defaultMaxShare = 0.01

    package init(goal: Goal = .requestCost(nanos: defaultRequestCostNanos), maxStaleShare: Double = defaultMaxShare,
                maxNeverFreshShare: Double = defaultMaxShare) {
        self.goal = goal
        self.maxStaleShare = maxStaleShare
        self.maxNeverFreshShare = maxNeverFreshShare
    }

    /// The objective of one replicate, or `nil` when it has no p95 (no fresh results) and the
    /// goal needs one.
    func value(ttfrP95: Double?, requests: Double) -> Double? {
        switch goal {
        case let .requestCost(cost): return ttfrP95.map { $0 + cost * requests }
        case .budget: return ttfrP95
        case .ttfrP95: return requests
        }
    }

    /// Whether the objective is a time (nanoseconds) or a count of requests per search.
    var isTime: Bool {
        if case .ttfrP95 = goal { return false }
        return true
    }

    /// `kind` in JSON: `request-cost`, `budget`, `ttfr-p95`.
    package var kind: String {
        switch goal {
        case .requestCost: return "request-cost"
        case .budget: return "budget"
        case .ttfrP95: return "ttfr-p95"
        }
    }

    /// What is minimised, in words: "p95 time to fresh results + 40 ms per request".
    package var statement: String {
        switch goal {
        case let .requestCost(cost):
            return "p95 time to fresh results + \(ValueFormat.duration(nanos: cost)) per request"
        case let .budget(limit):
            return "p95 time to fresh results, with at most \(ValueFormat.significant(limit)) requests per search"
        case let .ttfrP95(limit):
            return "requests per search, with p95 time to fresh results at most \(ValueFormat.duration(nanos: limit))"
        }
    }

    /// The constraints, in words: "stale ≤ 1 %, never fresh ≤ 1 %".
    package var constraints: String {
        "wrong final screens ≤ \(ValueFormat.percent(maxStaleShare)), never-fresh searches ≤ \(ValueFormat.percent(maxNeverFreshShare))"
    }

    /// An objective value as text (a duration, or requests per search).
    func format(_ value: Double) -> String {
        isTime ? ValueFormat.duration(nanos: value) : ValueFormat.significant(value)
    }
}
