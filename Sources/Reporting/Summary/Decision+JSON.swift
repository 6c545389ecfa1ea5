import TypestormMetrics

extension Decision {
    /// The decision as stable JSON keys (`decision` in `typestorm report --json` and `typestorm run
    /// --json`, documented in docs/reports.md): the runner it was taken on, the objective, the
    /// recommended strategy and the runner-up with their values, what the choice costs, what is
    /// ruled out and why, and the other runners' choices. Every key is always present; `null`
    /// where it does not apply.
    package struct JSON: Codable, Equatable, Sendable {
        /// The runner the decision is taken on (`virtual`, `in-process`, …); `null` when the
        /// groups carry no runner label.
        @ExplicitNull package var runner: String?
        package var objective: Objective
        /// What to ship; `null` when no strategy meets the constraints.
        @ExplicitNull package var recommended: Choice?
        /// The next choice by the objective; `null` when no other strategy meets the constraints.
        @ExplicitNull package var runnerUp: Choice?
        /// What choosing the recommendation costs against the runner-up; `null` without both.
        @ExplicitNull package var cost: Cost?
        /// The strategies that break a constraint, each with the constraints it breaks.
        package var ruledOut: [RuledOut]
        /// Per other runner, the strategy the same objective chooses there (`null`: none meets
        /// the constraints there).
        package var otherRunners: [OtherRunner]
        /// The decision in plain lines, as `summary.txt` and the report open with it.
        package var lines: [String]

        package struct Objective: Codable, Equatable, Sendable {
            /// `request-cost`, `budget` or `ttfr-p95` (the sweep's goals, docs/tuning.md).
            package var kind: String
            /// What is minimised, in words.
            package var statement: String
            /// `ns` when the objective is a time, `requests` when it is requests per search.
            package var unit: String
            /// With `request-cost`: nanoseconds of p95 waiting one request per search is worth.
            @ExplicitNull package var requestCostNs: Double?
            /// The largest share of wrong final screens a strategy may have.
            package var maxStaleShare: Double
            /// The largest share of never-fresh searches a strategy may have.
            package var maxNeverFreshShare: Double
        }

        package struct Choice: Codable, Equatable, Sendable {
            /// The strategy's title in the table (its name plus the labels that tell it apart).
            package var strategy: String
            /// With grid points: the debounce interval in milliseconds; else `null`.
            @ExplicitNull package var debounceMs: Int?
            /// With grid points: the minimum query length; else `null`.
            @ExplicitNull package var minLength: Int?
            /// The objective's value (nanoseconds or requests per search, see `objective.unit`).
            package var value: Double
            /// The value as the report prints it.
            package var valueText: String
            /// p95 time to fresh results in nanoseconds; `null` when none came.
            @ExplicitNull package var ttfrP95Ns: Double?
            package var requestsPerSearch: Double
            /// Share of searches whose final screen was wrong.
            package var staleShare: Double
            /// Share of searches that never showed fresh results.
            package var neverFreshShare: Double
        }

        package struct Cost: Codable, Equatable, Sendable {
            /// Recommended minus runner-up, requests per search.
            package var requestsPerSearch: Double
            /// Recommended minus runner-up, p95 time to fresh results in nanoseconds (`null`
            /// when either has none).
            @ExplicitNull package var ttfrP95Ns: Double?
            /// Recommended minus runner-up, share of wrong final screens.
            package var staleShare: Double
            /// Recommended minus runner-up, the objective.
            package var objective: Double
            /// The cost in words: "costs 0.40 more requests per search and …".
            package var text: String
        }

        package struct RuledOut: Codable, Equatable, Sendable {
            package var strategy: String
            /// The constraints it breaks, in words.
            package var reasons: [String]
        }

        package struct OtherRunner: Codable, Equatable, Sendable {
            package var runner: String
            @ExplicitNull package var choice: String?
            /// Whether it chooses the same strategy as the primary runner.
            package var agrees: Bool
        }
    }

    /// The decision's stable JSON form (`JSON`).
    package var json: JSON {
        var requestCost: Double?
        if case let .requestCost(nanos) = objective.goal { requestCost = nanos }
        let objectiveJSON = JSON.Objective(kind: objective.kind, statement: objective.statement, unit: objective.isTime ? "ns" : "requests",
                                           requestCostNs: requestCost, maxStaleShare: objective.maxStaleShare,
                                           maxNeverFreshShare: objective.maxNeverFreshShare)
        func choice(_ row: Int?) -> JSON.Choice? {
            guard let row, let result = rows[row].result, let value = result.objective?.mean else { return nil }
            return JSON.Choice(strategy: rows[row].title, debounceMs: swept ? result.setting.debounceMs : nil,
                               minLength: swept ? result.setting.minLength : nil, value: value, valueText: objective.format(value),
                               ttfrP95Ns: result.ttfrP95?.mean, requestsPerSearch: result.requests.mean,
                               staleShare: result.stale.mean, neverFreshShare: result.neverFresh.mean)
        }
        let recommended = choice(chosen)
        let runnerUpChoice = chosen == nil ? nil : choice(runnerUp)
        var costJSON: JSON.Cost?
        if let chosen, let runnerUp, let a = rows[chosen].result, let b = rows[runnerUp].result, let recommended, let runnerUpChoice {
            costJSON = JSON.Cost(requestsPerSearch: a.requests.mean - b.requests.mean,
                                 ttfrP95Ns: a.ttfrP95.flatMap { mine in b.ttfrP95.map { mine.mean - $0.mean } },
                                 staleShare: a.stale.mean - b.stale.mean, objective: recommended.value - runnerUpChoice.value,
                                 text: cost(a, against: b))
        }
        let ruledOut = rows.indices.filter { $0 != chosen && !rows[$0].disqualifiedBy.isEmpty }.map {
            JSON.RuledOut(strategy: rows[$0].title, reasons: rows[$0].disqualifiedBy)
        }
        let others = otherRunners.indices.map { index in
            JSON.OtherRunner(runner: otherRunners[index], choice: otherBest[index].map { rows[$0].title }, agrees: otherBest[index] == chosen)
        }
        return JSON(runner: primaryRunner, objective: objectiveJSON, recommended: recommended, runnerUp: runnerUpChoice,
                    cost: costJSON, ruledOut: ruledOut, otherRunners: others, lines: lines)
    }
}
