extension TypistConfig {
    /// Checks every knob a scenario may set, so a bad value is reported by name instead of
    /// trapping later (a zero speed scale would divide by zero, a log-logistic shape ≤ 1 has no
    /// mean). Returns the problems found, empty if none.
    public func problems() -> [String] {
        var problems: [String] = []
        func rate(_ name: String, _ value: Double) {
            if !(0...1).contains(value) { problems.append("\(name) must be in 0…1, not \(value)") }
        }
        func millis(_ name: String, _ value: Double) {
            if !(value.isFinite && value >= 0 && value <= 3_600_000) {
                problems.append("\(name) must be between 0 and 3600000 ms, not \(value)")
            }
        }
        for (name, value) in [
            ("hesitationRate", hesitationRate), ("suggestionLookRate", suggestionLookRate), ("submitRate", submitRate),
            ("followUpRate", followUpRate), ("refineShare", refineShare), ("clearAndRetypeRate", clearAndRetypeRate),
            ("acceptSuggestionRate", acceptSuggestionRate), ("scopeOrTokenChangeRate", scopeOrTokenChangeRate),
            ("pinyinAbbreviateRest", pinyinAbbreviateRest), ("pinyinInitialsOnly", pinyinInitialsOnly),
        ] { rate(name, value) }
        if pinyinAbbreviateRest + pinyinInitialsOnly > 1 {
            problems.append("pinyinAbbreviateRest + pinyinInitialsOnly must not exceed 1")
        }
        for (name, value) in [
            ("hesitationMedianMillis", hesitationMedianMillis), ("suggestionLookMedianMillis", suggestionLookMedianMillis),
            ("focusDelayMedianMillis", focusDelayMedianMillis), ("submitPauseMedianMillis", submitPauseMedianMillis),
            ("readingPauseMedianMillis", readingPauseMedianMillis), ("candidatePickMedianMillis", candidatePickMedianMillis),
        ] { millis(name, value) }
        if !(composingSpeedScale.lowerBound > 0 && composingSpeedScale.upperBound <= 10) {
            problems.append("composingSpeedScale must lie in (0, 10], not \(composingSpeedScale)")
        }
        if maxQueriesPerSession < 1 { problems.append("maxQueriesPerSession must be at least 1") }
        if wordsPerQuery.isEmpty || wordsPerQuery.contains(where: { !($0.isFinite && $0 >= 0) }) || wordsPerQuery.reduce(0, +) <= 0 {
            problems.append("wordsPerQuery must be non-negative weights with a positive sum")
        }
        if let shape = intervalShape { problems += Self.problems(of: shape, name: "intervalShape") }
        for (name, device) in [("desktop", desktop), ("mobile", mobile)] {
            if !(device.wpm.bounds.lowerBound > 0 && device.wpm.standardDeviation > 0 && device.wpm.bounds.contains(device.wpm.mean)) {
                problems.append("\(name).wpm needs positive bounds that contain the mean, and a positive SD")
            }
            if !(device.ikiNumeratorMillis > 0 && device.ikiNumeratorMillis.isFinite) {
                problems.append("\(name).ikiNumeratorMillis must be positive")
            }
            problems += Self.problems(of: .logNormal(sigma: device.ikiSigma), name: "\(name).ikiSigma")
            if !(device.firstKeyFactor >= 1.1 && device.firstKeyFactor <= device.firstKeyFactorMax && device.firstKeyFactorMax <= 5) {
                problems.append("\(name).firstKeyFactor must be in 1.1…firstKeyFactorMax (≤ 5)")
            }
            for (field, value) in [("rolloverRate", device.rolloverRate), ("slipRate", device.slipRate), ("noticeRate", device.noticeRate),
                                   ("predictionRate", device.predictionRate), ("pasteRate", device.pasteRate)] {
                rate("\(name).\(field)", value)
            }
            if device.noticeDelayWeights.isEmpty || device.noticeDelayWeights.contains(where: { !($0.isFinite && $0 >= 0) }) {
                problems.append("\(name).noticeDelayWeights must be non-negative weights")
            }
        }
        return problems
    }

    static func problems(of shape: IntervalShape, name: String) -> [String] {
        switch shape {
        case let .logNormal(sigma) where !(sigma > 0 && sigma <= 3):
            return ["\(name): a log-normal σ must lie in (0, 3], not \(sigma)"]
        case let .logLogistic(beta) where !(beta > 1.05 && beta <= 100):
            return ["\(name): a log-logistic shape must lie in (1.05, 100] for the mean to exist, not \(beta)"]
        default:
            return []
        }
    }
}
