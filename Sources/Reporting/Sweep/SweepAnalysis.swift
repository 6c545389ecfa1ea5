/// The pure part of `typestorm sweep`: trade-off curves, the Pareto front and a recommended
/// debounce interval, per typist population.
public struct SweepAnalysis: Sendable {
    /// How to pick the recommended grid point.
    public enum Rule: Sendable, Equatable {
        /// The knee of the Pareto front of p95 time to fresh results against requests per search:
        /// the front point farthest below the chord between the front's two ends, with both axes
        /// scaled to 0...1 over the front.
        case knee
        /// The smallest debounce interval whose requests per search stay within the budget
        /// (ties: lower p95 time to fresh results).
        case budget(requestsPerSearch: Double)
    }

    public struct Recommendation: Sendable, Equatable {
        public var population: String
        public var point: SweepPoint
        public var rule: Rule
        /// False when the budget could not be met (the point is then the cheapest one).
        public var satisfied: Bool
        /// The recommendation and its reason, in one sentence.
        public var sentence: String
    }

    public var points: [SweepPoint]
    public var rule: Rule

    public init(points: [SweepPoint], rule: Rule = .knee) {
        self.points = points.sorted { ($0.population, $0.minLength, $0.debounceMs) < ($1.population, $1.minLength, $1.debounceMs) }
        self.rule = rule
    }

    public var populations: [String] { Array(Set(points.map(\.population))).sorted() }

    /// One curve per (population, min length), ordered by debounce interval.
    public func curves(population: String) -> [(minLength: Int, points: [SweepPoint])] {
        let mine = points.filter { $0.population == population }
        return Array(Set(mine.map(\.minLength))).sorted().map { length in
            (length, mine.filter { $0.minLength == length })
        }
    }

    /// Points no other point beats on both p95 TTFR and requests per search (ties broken by the
    /// smaller interval), sorted by p95 TTFR ascending. Points without a finite p95 are left out.
    ///
    /// - Complexity: O(n log n).
    public static func paretoFront(_ points: [SweepPoint]) -> [SweepPoint] {
        let candidates = points.filter { $0.ttfrP95 != nil }.sorted {
            ($0.ttfrP95!, $0.fanOut, $0.debounceMs, $0.minLength) < ($1.ttfrP95!, $1.fanOut, $1.debounceMs, $1.minLength)
        }
        var front: [SweepPoint] = []
        var bestFanOut = Double.infinity
        for point in candidates where point.fanOut < bestFanOut {
            front.append(point)
            bestFanOut = point.fanOut
        }
        return front
    }

    /// The knee of a front sorted by p95 TTFR: index of the point with the largest
    /// 1 − x − y in normalised coordinates; the fastest point when the front is too short, flat,
    /// or bends the other way (no point strictly below the chord between its ends).
    public static func kneeIndex(_ front: [SweepPoint]) -> Int? {
        knee(front)?.index
    }

    /// The knee's index and whether the front has one (some point strictly below the chord).
    static func knee(_ front: [SweepPoint]) -> (index: Int, bends: Bool)? {
        guard !front.isEmpty else { return nil }
        guard front.count >= 3 else { return (0, false) }
        let times = front.map { $0.ttfrP95! }, costs = front.map(\.fanOut)
        let timeSpan = times.max()! - times.min()!, costSpan = costs.max()! - costs.min()!
        guard timeSpan > 0, costSpan > 0 else { return (0, false) }
        var best = 0, bestScore = -Double.infinity
        for index in front.indices {
            let x = (times[index] - times.min()!) / timeSpan
            let y = (costs[index] - costs.min()!) / costSpan
            let score = 1 - x - y
            if score > bestScore + 1e-12 {
                best = index
                bestScore = score
            }
        }
        return bestScore > 1e-9 ? (best, true) : (0, false)
    }

    public func recommendation(population: String) -> Recommendation? {
        let mine = points.filter { $0.population == population }
        guard !mine.isEmpty else { return nil }
        let who = population.isEmpty ? "" : " for \(population)"
        switch rule {
        case .knee:
            let front = Self.paretoFront(mine)
            guard let (index, bends) = Self.knee(front) else { return nil }
            let point = front[index]
            var sentence: String
            if !bends {
                let why = front.count < 3
                    ? "the Pareto front has only \(front.count) \(front.count == 1 ? "point" : "points")"
                    : "the Pareto front has no knee (no setting lies below the straight line from the fastest to the cheapest, so each step costs about as much waiting as it saves requests)"
                sentence = "Recommended\(who): \(point.gridDescription), the fastest setting (p95 time to fresh results \(ValueFormat.duration(nanos: point.ttfrP95!)), \(ValueFormat.significant(point.fanOut)) requests per search), because \(why); give --budget to trade speed for fewer requests."
            } else {
                sentence = "Recommended\(who): \(point.gridDescription), the knee of the trade-off between p95 time to fresh results (\(ValueFormat.duration(nanos: point.ttfrP95!))) and requests per search (\(ValueFormat.significant(point.fanOut)))"
                let faster = front[index - 1], cheaper = front[index + 1]
                sentence += ": the next faster setting on the Pareto front saves \(ValueFormat.duration(nanos: point.ttfrP95! - faster.ttfrP95!)) for \(ValueFormat.significant(faster.fanOut - point.fanOut)) more requests per search, while the next cheaper one saves only \(ValueFormat.significant(point.fanOut - cheaper.fanOut)) requests for \(ValueFormat.duration(nanos: cheaper.ttfrP95! - point.ttfrP95!)) more waiting."
            }
            return Recommendation(population: population, point: point, rule: rule, satisfied: true, sentence: sentence)
        case let .budget(limit):
            let within = mine.filter { $0.fanOut <= limit }
            if let point = within.min(by: { ($0.debounceMs, $0.ttfrP95 ?? .infinity, $0.minLength) < ($1.debounceMs, $1.ttfrP95 ?? .infinity, $1.minLength) }) {
                let time = point.ttfrP95.map { ", with p95 time to fresh results \(ValueFormat.duration(nanos: $0))" } ?? ""
                let sentence = "Recommended\(who): \(point.gridDescription), the smallest interval that keeps requests per search within the budget of \(ValueFormat.significant(limit)) (it sends \(ValueFormat.significant(point.fanOut)))\(time)."
                return Recommendation(population: population, point: point, rule: rule, satisfied: true, sentence: sentence)
            }
            let cheapest = mine.min { ($0.fanOut, $0.debounceMs) < ($1.fanOut, $1.debounceMs) }!
            let sentence = "No grid point\(who) meets the budget of \(ValueFormat.significant(limit)) requests per search; the cheapest is \(cheapest.gridDescription) at \(ValueFormat.significant(cheapest.fanOut)), so widen the grid or raise the budget."
            return Recommendation(population: population, point: cheapest, rule: rule, satisfied: false, sentence: sentence)
        }
    }

    public var recommendations: [Recommendation] { populations.compactMap(recommendation) }
}
