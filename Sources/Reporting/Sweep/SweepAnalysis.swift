/// The pure part of `typestorm sweep`: per setting, the mean and confidence interval of every
/// quantity over the replicates; the settings that meet the correctness constraints; the good
/// range (settings not significantly worse than the best under the stated objective); and the
/// recommendation, the most conservative point of that range. For the whole population (`all`,
/// the scenario's mix weighted by share), per device class, and per population.
package struct SweepAnalysis: Sendable {
    /// A group of typists a recommendation is for.
    package struct Scope: Sendable, Equatable {
        package enum Kind: String, Sendable { case overall, device, population }
        /// `all`, `desktop`, `mobile`, or a population label such as `desktop-en`.
        package var name: String
        package var kind: Kind
        /// The population labels it weighs together.
        package var populations: [String]
    }

    /// One setting in one scope, over the replicates.
    package struct SettingResult: Sendable, Equatable {
        package var setting: SweepSetting
        package var requests: SweepEstimate
        package var ttfrP50: SweepEstimate?
        package var ttfrP95: SweepEstimate?
        package var stale: SweepEstimate
        package var neverFresh: SweepEstimate
        package var wasted: SweepEstimate?
        /// The objective, per replicate; `nil` when some replicate has no fresh results.
        package var objective: SweepEstimate?
        /// Why the setting is not considered (the constraints it breaks); empty when eligible.
        package var disqualifiedBy: [String]
        /// Objective minus the best setting's, paired by replicate (same typists, same backend draws).
        package var differenceFromBest: SweepEstimate?
        /// Not significantly worse than the best: the 95 % interval of the paired difference reaches 0.
        package var inGoodRange: Bool
        /// On the Pareto front of mean p95 time to fresh results against mean requests per search.
        package var paretoFront: Bool

        package var eligible: Bool { disqualifiedBy.isEmpty }
    }

    package struct Recommendation: Sendable, Equatable {
        package var scope: Scope
        /// The recommended setting, or, when no setting meets the constraints, `nil`.
        package var result: SettingResult?
        /// The next choice: the best mean objective other than the recommendation.
        package var runnerUp: SettingResult?
        /// The setting with the best mean objective.
        package var best: SweepSetting?
        package var goodRange: [SweepSetting]
        /// False when no setting meets the constraints.
        package var satisfied: Bool
        /// For a device class or population: its good range shares no setting with the overall one.
        package var differsFromOverall: Bool
        package var replicates: Int
        /// The recommendation and its reasons, in a few sentences.
        package var sentence: String
    }

    package let points: [SweepPoint]
    package let objective: SweepObjective
    package let scopes: [Scope]
    /// Results per scope name, sorted by setting.
    package let results: [String: [SettingResult]]
    package let recommendations: [Recommendation]

    package init(points: [SweepPoint], objective: SweepObjective = SweepObjective()) {
        self.points = points.sorted {
            ($0.population, $0.strategy, $0.minLength, $0.debounceMs, $0.replicate) < ($1.population, $1.strategy, $1.minLength, $1.debounceMs, $1.replicate)
        }
        self.objective = objective
        let populations = Array(Set(points.map(\.population))).sorted()
        var scopes = [Scope(name: "all", kind: .overall, populations: populations)]
        let devices = Array(Set(populations.compactMap(Self.device))).sorted()
        if populations.count > 1 {
            scopes += devices.map { device in Scope(name: device, kind: .device, populations: populations.filter { Self.device($0) == device }) }
            scopes += populations.map { Scope(name: $0, kind: .population, populations: [$0]) }
        }
        self.scopes = scopes
        var results: [String: [SettingResult]] = [:]
        for scope in scopes { results[scope.name] = Self.results(self.points, scope: scope, objective: objective) }
        self.results = results
        let overall = Self.recommend(scope: scopes[0], results: results[scopes[0].name]!, objective: objective, overall: nil)
        self.recommendations = [overall] + scopes.dropFirst().map {
            Self.recommend(scope: $0, results: results[$0.name]!, objective: objective, overall: overall)
        }
    }

    /// `desktop` of `desktop-en`; `nil` for a label without a device.
    static func device(_ population: String) -> String? {
        guard let dash = population.firstIndex(of: "-"), dash != population.startIndex else { return nil }
        return String(population[..<dash])
    }

    package var populations: [String] { scopes[0].populations }
    package var replicates: Int { Set(points.map(\.replicate)).count }

    package func recommendation(scope name: String) -> Recommendation? {
        recommendations.first { $0.scope.name == name }
    }

    // MARK: Estimates

    /// Per setting: the scope's quantities per replicate (populations weighed by their share),
    /// then their estimates, eligibility, the paired difference from the best and the good range.
    static func results(_ points: [SweepPoint], scope: Scope, objective: SweepObjective) -> [SettingResult] {
        let mine = points.filter { scope.populations.contains($0.population) }
        var bySetting: [SweepSetting: [Int: [SweepPoint]]] = [:]
        for point in mine { bySetting[point.setting, default: [:]][point.replicate, default: []].append(point) }
        var results: [SettingResult] = []
        var objectiveByReplicate: [SweepSetting: [Int: Double]] = [:]
        for (setting, replicates) in bySetting {
            var requests: [Double] = [], p50: [Double?] = [], p95: [Double?] = [], stale: [Double] = [], never: [Double] = []
            var wasted: [Double?] = [], values: [Int: Double?] = [:]
            for (replicate, group) in replicates.sorted(by: { $0.key < $1.key }) where group.count == scope.populations.count {
                let total = group.reduce(0) { $0 + ($1.share ?? 1) }
                let weights = group.map { ($0.share ?? 1) / total }
                func weighted(_ value: (SweepPoint) -> Double) -> Double { zip(group, weights).reduce(0) { $0 + $1.1 * value($1.0) } }
                let fanOut = weighted(\.fanOut)
                requests.append(fanOut)
                stale.append(weighted(\.staleShare))
                never.append(weighted(\.neverFreshShare))
                wasted.append(group.allSatisfy { $0.wastedShare != nil } ? weighted { $0.wastedShare! } : nil)
                let percentile = { (p: Double, single: KeyPath<SweepPoint, Double?>) -> Double? in
                    group.count == 1 ? group[0][keyPath: single] : mixturePercentile(p, group, weights: weights)
                }
                let q95 = percentile(95, \.ttfrP95)
                p50.append(percentile(50, \.ttfrP50))
                p95.append(q95)
                values[replicate] = objective.value(ttfrP95: q95, requests: fanOut)
            }
            guard !requests.isEmpty else { continue }
            let objectiveValues = values.sorted { $0.key < $1.key }.map(\.value)
            let complete = objectiveValues.allSatisfy { $0 != nil }
            if complete { objectiveByReplicate[setting] = values.compactMapValues { $0 } }
            var result = SettingResult(
                setting: setting, requests: SweepEstimate(requests),
                ttfrP50: p50.allSatisfy { $0 != nil } ? SweepEstimate(p50.map { $0! }) : nil,
                ttfrP95: p95.allSatisfy { $0 != nil } ? SweepEstimate(p95.map { $0! }) : nil,
                stale: SweepEstimate(stale), neverFresh: SweepEstimate(never),
                wasted: wasted.allSatisfy { $0 != nil } ? SweepEstimate(wasted.map { $0! }) : nil,
                objective: complete ? SweepEstimate(objectiveValues.map { $0! }) : nil,
                disqualifiedBy: [], differenceFromBest: nil, inGoodRange: false, paretoFront: false)
            result.disqualifiedBy = disqualifications(result, objective: objective)
            results.append(result)
        }
        results.sort { $0.setting < $1.setting }

        // The best: the eligible setting with the lowest mean objective (ties: the first in order).
        if let best = results.filter(\.eligible).min(by: { ($0.objective!.mean, $0.setting) < ($1.objective!.mean, $1.setting) }),
           let bestValues = objectiveByReplicate[best.setting] {
            for index in results.indices where results[index].eligible {
                let values = objectiveByReplicate[results[index].setting]!
                let paired = bestValues.keys.sorted().compactMap { replicate in values[replicate].map { $0 - bestValues[replicate]! } }
                guard !paired.isEmpty else { continue }
                let difference = SweepEstimate(paired)
                results[index].differenceFromBest = difference
                results[index].inGoodRange = results[index].setting == best.setting || difference.low <= 0
            }
        }
        let front = Set(paretoFront(results.compactMap { r in r.ttfrP95.map { (r.setting, $0.mean, r.requests.mean) } }))
        for index in results.indices { results[index].paretoFront = front.contains(results[index].setting) }
        return results
    }

    /// The constraints a setting breaks, in words.
    static func disqualifications(_ result: SettingResult, objective: SweepObjective) -> [String] {
        var reasons: [String] = []
        if result.stale.mean > objective.maxStaleShare {
            reasons.append("wrong final screens \(ValueFormat.percent(result.stale.mean)) > \(ValueFormat.percent(objective.maxStaleShare))")
        }
        if result.neverFresh.mean > objective.maxNeverFreshShare {
            reasons.append("never-fresh searches \(ValueFormat.percent(result.neverFresh.mean)) > \(ValueFormat.percent(objective.maxNeverFreshShare))")
        }
        if result.objective == nil { reasons.append("no fresh results in some replicate") }
        switch objective.goal {
        case .requestCost: break
        case let .budget(limit):
            if result.requests.mean > limit {
                reasons.append("requests per search \(ValueFormat.significant(result.requests.mean)) > \(ValueFormat.significant(limit))")
            }
        case let .ttfrP95(limit):
            if let p95 = result.ttfrP95, p95.mean > limit {
                reasons.append("p95 time to fresh results \(ValueFormat.duration(nanos: p95.mean)) > \(ValueFormat.duration(nanos: limit))")
            }
        }
        return reasons
    }

    /// The `p`-th percentile of a mix of populations: their TTFR histograms, each scaled to its
    /// weight. `nil` when no population has fresh results.
    static func mixturePercentile(_ p: Double, _ group: [SweepPoint], weights: [Double]) -> Double? {
        var mass: [(value: Int64, weight: Double)] = []
        for (point, weight) in zip(group, weights) {
            guard let histogram = point.ttfr, histogram.totalCount > 0 else { continue }
            let scale = weight / Double(histogram.totalCount)
            mass += histogram.buckets.map { ($0.value, Double($0.count) * scale) }
        }
        guard !mass.isEmpty else { return nil }
        mass.sort { $0.value < $1.value }
        let target = mass.reduce(0) { $0 + $1.weight } * p / 100
        var seen = 0.0
        for entry in mass {
            seen += entry.weight
            if seen >= target * (1 - 1e-12) { return Double(entry.value) }
        }
        return Double(mass.last!.value)
    }

    /// Settings no other setting beats on both p95 time to fresh results and requests per search,
    /// sorted by p95 ascending.
    ///
    /// - Complexity: O(n log n).
    package static func paretoFront(_ points: [(setting: SweepSetting, ttfrP95: Double, requests: Double)]) -> [SweepSetting] {
        var front: [SweepSetting] = []
        var bestRequests = Double.infinity
        for point in points.sorted(by: { ($0.ttfrP95, $0.requests, $0.setting) < ($1.ttfrP95, $1.requests, $1.setting) })
        where point.requests < bestRequests {
            front.append(point.setting)
            bestRequests = point.requests
        }
        return front
    }

    // MARK: Recommendation

    /// The most conservative point of the good range: the lowest upper 95 % bound of the
    /// objective (the best the measurements can guarantee, so a setting that is good on average
    /// but uncertain loses to one that is reliably good); ties to fewer requests per search, then
    /// the longer interval, then the longer minimum length.
    static func conservativeOrder(_ a: SettingResult, _ b: SettingResult) -> Bool {
        (a.objective!.high, a.requests.mean, -a.setting.debounceMs, -a.setting.minLength, a.setting.strategy)
            < (b.objective!.high, b.requests.mean, -b.setting.debounceMs, -b.setting.minLength, b.setting.strategy)
    }

    static func recommend(scope: Scope, results: [SettingResult], objective: SweepObjective, overall: Recommendation?) -> Recommendation {
        let replicates = results.map(\.requests.values.count).max() ?? 0
        let range = results.filter(\.inGoodRange)
        let who = scope.kind == .overall ? "All typists (the scenario's mix)" : scope.kind == .device ? "\(scope.name.capitalized) typists" : scope.name
        guard let chosen = range.min(by: conservativeOrder) else {
            let closest = results.min { ($0.disqualifiedBy.count, $0.stale.mean + $0.neverFresh.mean, $0.setting) < ($1.disqualifiedBy.count, $1.stale.mean + $1.neverFresh.mean, $1.setting) }
            var sentence = "\(who): no setting meets \(objective.constraints)"
            if case .requestCost = objective.goal {} else { sentence += " and the goal (\(objective.statement))" }
            if let closest { sentence += "; the closest, \(closest.setting.description), has \(closest.disqualifiedBy.joined(separator: ", "))" }
            sentence += ". Widen the grid, try another strategy (--strategies), or relax the constraints."
            return Recommendation(scope: scope, result: nil, runnerUp: nil, best: nil, goodRange: [], satisfied: false,
                                  differsFromOverall: false, replicates: replicates, sentence: sentence)
        }
        let best = results.filter(\.eligible).min { ($0.objective!.mean, $0.setting) < ($1.objective!.mean, $1.setting) }!
        let runnerUp = results.filter { $0.eligible && $0.setting != chosen.setting }.min { ($0.objective!.mean, $0.setting) < ($1.objective!.mean, $1.setting) }
        let goodRange = range.map(\.setting)
        var differs = false
        if let overall, scope.kind != .overall, !overall.goodRange.isEmpty {
            differs = Set(goodRange).isDisjoint(with: overall.goodRange)
        }
        func value(_ estimate: SweepEstimate) -> String {
            objective.format(estimate.mean) + (estimate.halfWidth.map { " ± " + objective.format($0) } ?? "")
        }
        var confidence = replicates >= 2 ? "95 % confidence over \(replicates) replicates" : "one replicate, so no confidence interval: give --replicates 5"
        if let objectiveEstimate = chosen.objective, let prediction = objectiveEstimate.predictionHalfWidth {
            let low = objectiveEstimate.mean - prediction, high = objective.format(objectiveEstimate.mean + prediction)
            confidence += low > 0 ? "; a single run lands within \(objective.format(low))–\(high) (95 % prediction interval)"
                : "; a single run lands at or below \(high) (95 % prediction interval)"
        }
        var sentence = "\(who): \(chosen.setting.description)."
        if differs { sentence += " This differs from the overall recommendation: their good ranges do not overlap." }
        sentence += " Objective (\(objective.statement)): \(value(chosen.objective!)) (\(confidence)); \(objective.constraints)."
        sentence += " Good range (not significantly worse than the best): \(Self.describe(goodRange, among: results.map(\.setting)))"
        if goodRange.count > 1 {
            sentence += "; the recommendation is its point with the lowest upper bound of the objective (\(objective.format(chosen.objective!.high)))."
        } else {
            sentence += "."
        }
        if let runnerUp {
            sentence += " Runner-up: \(runnerUp.setting.description), \(value(runnerUp.objective!))\(runnerUp.setting == best.setting ? " (the best mean)" : "")."
        }
        return Recommendation(scope: scope, result: chosen, runnerUp: runnerUp, best: best.setting, goodRange: goodRange, satisfied: true,
                              differsFromOverall: differs, replicates: replicates, sentence: sentence)
    }

    /// `split-state at min length 2: 250–400 ms; split-state at min length 3: 300 ms`: runs of
    /// intervals consecutive in the grid (`all`) joined by a dash.
    static func describe(_ settings: [SweepSetting], among all: [SweepSetting]) -> String {
        let grid = Array(Set(all.map(\.debounceMs))).sorted()
        var groups: [(key: String, intervals: [Int])] = []
        for setting in settings.sorted() {
            let key = (setting.strategy.isEmpty ? "" : "\(setting.strategy) ") + "at min length \(setting.minLength)"
            if groups.last?.key == key { groups[groups.count - 1].intervals.append(setting.debounceMs) } else { groups.append((key, [setting.debounceMs])) }
        }
        return groups.map { group in
            var runs: [[Int]] = []
            for interval in group.intervals {
                if let last = runs.last?.last, let position = grid.firstIndex(of: last), position + 1 < grid.count, grid[position + 1] == interval { runs[runs.count - 1].append(interval) } else { runs.append([interval]) }
            }
            return "\(group.key): " + runs.map { $0.count > 1 ? "\($0.first!)–\($0.last!) ms" : "\($0[0]) ms" }.joined(separator: ", ")
        }.joined(separator: "; ")
    }
}
