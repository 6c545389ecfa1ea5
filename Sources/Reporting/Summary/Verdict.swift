/// Plain-language verdicts: what a reader should take away, in sentences a non-specialist can
/// repeat ("naive showed the wrong final results in 3.1 % of searches").
package enum Verdict {
    /// The verdict for one strategy: a few short sentences, most important first
    /// (failed requests when more than 1 % failed, correctness, then speed, then cost, then
    /// flicker; a few failed requests close the verdict).
    package static func sentences(for s: StrategySummary, title: String? = nil) -> [String] {
        let name = title ?? s.name
        var out: [String] = []
        var failures: String?
        var failuresLead = false
        if let failed = s.failedRequests, failed > 0 {
            let ended = s.requestsCompleted + failed
            let causes = s.errors.map { "\($0.reason) × \($0.count)" }.joined(separator: ", ")
            let share = Double(failed) / Double(ended)
            failures = "\(name) had \(failed) of \(ended) requests fail (\(ValueFormat.percent(share))): \(causes)."
            // More than 1 % fails the run (the default threshold), so it comes first.
            failuresLead = share > 0.01
        }
        if failuresLead, let failures { out.append(failures) }
        guard s.settles > 0 else {
            return out + ["\(name) recorded no finished searches, so there is nothing to judge."]
        }
        let searches = s.settles == 1 ? "1 search" : "\(s.settles) searches"
        if s.staleSettles > 0 {
            var sentence = "\(name) showed the wrong final results in \(ValueFormat.percent(s.staleShare ?? 0)) of searches (\(s.staleSettles) of \(s.settles))"
            if s.outOfOrderApplies > 0 {
                sentence += ", and \(times(s.outOfOrderApplies)) replaced newer results with older ones"
            }
            out.append(sentence + ".")
        } else if s.outOfOrderApplies > 0 {
            out.append("\(name) always ended on the right results, but \(times(s.outOfOrderApplies)) replaced newer results with older ones.")
        } else {
            out.append("\(name) ended on the right results in all \(searches).")
        }
        let noneSucceeded = (s.failedRequests ?? 0) > 0 && s.requestsCompleted == 0
        if noneSucceeded {
            out.append("No request succeeded, so time to fresh results cannot be measured.")
        } else if let ttfr = s.ttfr, let p50 = ttfr.percentile(50), let p95 = ttfr.percentile(95) {
            var sentence = "Fresh results took \(ValueFormat.duration(nanos: Double(p50))) at the median and \(ValueFormat.duration(nanos: Double(p95))) at p95"
            if s.neverFresh > 0 {
                sentence += "; \(ValueFormat.percent(s.neverFreshShare ?? 0)) of searches never got them"
            }
            out.append(sentence + ".")
        } else if s.neverFresh > 0 {
            out.append("No search ever showed fresh results.")
        }
        var cost: [String] = []
        if let fanOut = s.fanOutMean {
            cost.append("it sent \(ValueFormat.significant(fanOut)) requests per search")
        }
        if let wasted = s.backendWastedShare ?? s.clientWastedShare {
            let view = s.backendWastedShare != nil ? "the backend's" : "the client's"
            cost.append("\(ValueFormat.percent(wasted)) of \(view) work was wasted")
        }
        if !cost.isEmpty {
            let joined = cost.joined(separator: " and ")
            out.append(joined.prefix(1).uppercased() + joined.dropFirst() + ".")
        }
        if s.falseEmpties > 0 {
            let count = times(s.falseEmpties)
            out.append(count.prefix(1).uppercased() + count.dropFirst() + " it showed an empty or error screen that was not the backend's answer (\(ValueFormat.significant(s.falseEmptiesPerSettle ?? 0)) per search).")
        }
        if !failuresLead, let failures { out.append(failures) }
        return out
    }

    /// One sentence naming the best strategy on the headline numbers, when there are several.
    package static func headline(_ summaries: [StrategySummary], titles: [String]) -> String? {
        guard summaries.count > 1 else { return nil }
        func best(_ value: (StrategySummary) -> Double?) -> String? {
            let scored = zip(summaries, titles).compactMap { summary, title in value(summary).map { (title, $0) } }
            guard scored.count > 1, let top = scored.min(by: { $0.1 < $1.1 }) else { return nil }
            let tied = scored.filter { $0.1 == top.1 }.map(\.0)
            if tied.count == scored.count { return nil }
            return tied.count == 1 ? tied[0] : tied.dropLast().joined(separator: ", ") + " and " + tied.last!
        }
        var parts: [String] = []
        if let name = best({ $0.staleShare }) { parts.append("fewest wrong final screens: \(name)") }
        if let name = best({ $0.ttfr?.percentile(95).map(Double.init) }) { parts.append("fastest fresh results at p95: \(name)") }
        if let name = best({ $0.fanOutMean }) { parts.append("fewest requests per search: \(name)") }
        guard !parts.isEmpty else { return nil }
        let joined = parts.joined(separator: "; ")
        return joined.prefix(1).uppercased() + joined.dropFirst() + "."
    }

    private static func times(_ count: Int64) -> String {
        count == 1 ? "once" : (count == 2 ? "twice" : "\(count) times")
    }

    /// Column titles for a set of groups: the name plus only the labels whose values differ
    /// between groups (a label every group shares says nothing).
    package static func titles(_ summaries: [StrategySummary]) -> [String] {
        let keys = Set(summaries.flatMap(\.labels.keys)).sorted()
        let distinguishing = keys.filter { key in Set(summaries.map { $0.labels[key] ?? "" }).count > 1 }
        return summaries.map { summary in
            let parts = distinguishing.compactMap { key in summary.labels[key].map { "\(key)=\($0)" } }
            return parts.isEmpty ? summary.name : summary.name + " (" + parts.joined(separator: ", ") + ")"
        }
    }
}
