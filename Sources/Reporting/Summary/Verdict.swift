import TypestormMetrics

/// Plain-language verdicts: what a reader should take away, in sentences a non-specialist can
/// repeat ("naive showed the wrong final results in 3.1 % of searches").
package enum Verdict {
    /// The verdict for one strategy: a few short sentences, most important first
    /// (failed requests when more than 1 % failed, correctness, then speed, then cost, then
    /// flicker; a few failed requests close the verdict).
    package static func sentences(for s: StrategySummary, title: String? = nil) -> [String] {
        parts(for: s, title: title).map(\.sentence)
    }

    /// What a verdict sentence is about.
    enum Topic { case failures, correctness, speed, cost, flicker }

    /// The verdict's sentences with their topics, in order.
    static func parts(for s: StrategySummary, title: String?) -> [(topic: Topic, sentence: String)] {
        let name = title ?? s.name
        var out: [(topic: Topic, sentence: String)] = []
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
        if failuresLead, let failures { out.append((.failures, failures)) }
        guard s.settles > 0 else {
            return out + [(.correctness, "\(name) recorded no finished searches, so there is nothing to judge.")]
        }
        let searches = s.settles == 1 ? "1 search" : "\(s.settles) searches"
        if s.staleSettles > 0 {
            var sentence = "\(name) showed the wrong final results in \(ValueFormat.percent(s.staleShare ?? 0)) of searches (\(s.staleSettles) of \(s.settles))"
            if s.outOfOrderApplies > 0 {
                sentence += ", and \(times(s.outOfOrderApplies)) replaced newer results with older ones"
            }
            out.append((.correctness, sentence + "."))
        } else if s.outOfOrderApplies > 0 {
            out.append((.correctness, "\(name) always ended on the right results, but \(times(s.outOfOrderApplies)) replaced newer results with older ones."))
        } else {
            out.append((.correctness, "\(name) ended on the right results in all \(searches)."))
        }
        let noneSucceeded = (s.failedRequests ?? 0) > 0 && s.requestsCompleted == 0
        if noneSucceeded {
            out.append((.failures, "No request succeeded, so time to fresh results cannot be measured."))
        } else if let ttfr = s.ttfr, let p50 = ttfr.percentile(50), let p95 = ttfr.percentile(95) {
            var sentence = "Fresh results took \(ValueFormat.duration(nanos: Double(p50))) at the median and \(ValueFormat.duration(nanos: Double(p95))) at p95"
            // A search that ends on a wrong screen never was fresh at its end: only the others
        // (fresh for a while, then replaced before the search ended) need their own sentence.
        if s.neverFresh > s.staleSettles {
                sentence += "; \(ValueFormat.percent(s.neverFreshShare ?? 0)) of searches never got them"
            }
            out.append((s.neverFresh > 0 ? .correctness : .speed, sentence + "."))
        } else if s.neverFresh > 0 {
            out.append((.correctness, "No search ever showed fresh results."))
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
            out.append((.cost, joined.prefix(1).uppercased() + joined.dropFirst() + "."))
        }
        if let falseEmpties = s.falseEmpties, falseEmpties > 0 {
            let count = times(falseEmpties)
            out.append((.flicker, count.prefix(1).uppercased() + count.dropFirst() + " it showed an empty or error screen that was not the backend's answer (\(ValueFormat.significant(s.falseEmptiesPerSettle ?? 0)) per search)."))
        }
        if !failuresLead, let failures { out.append((.failures, failures)) }
        return out
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

extension Verdict {
    /// The kinds of flaw a group showed (`stale`, `out-of-order`, `never-fresh`, `false-empty`,
    /// `failed`), so a report can say a runner's verdict only where it differs.
    package static func flawKinds(_ s: StrategySummary) -> Set<String> {
        var kinds: Set<String> = []
        if s.staleSettles > 0 { kinds.insert("stale") }
        if s.outOfOrderApplies > 0 { kinds.insert("out-of-order") }
        // A search that ends on a wrong screen never was fresh at its end: only the others
        // (fresh for a while, then replaced before the search ended) need their own sentence.
        if s.neverFresh > s.staleSettles { kinds.insert("never-fresh") }
        if (s.falseEmpties ?? 0) > 0 { kinds.insert("false-empty") }
        if (s.failedRequests ?? 0) > 0 { kinds.insert("failed") }
        return kinds
    }

    /// Only what went wrong, one sentence per flaw (the decision table has the speed and the
    /// cost), or one sentence saying nothing did.
    package static func flaws(for s: StrategySummary, title: String? = nil) -> [String] {
        flawEvidence(for: s, title: title).map(\.text)
    }

    /// One flaw in one sentence with its evidence: how often, and the first search it happened
    /// in (typist, time, queries) when the record keeps one (`example`: the kind to link to a
    /// timeline of that search).
    package struct FlawSentence: Sendable, Equatable {
        package var text: String
        package var example: FlawKind?
    }

    /// `flaws(for:title:)` with each sentence's example kind. Records written before the
    /// recorder counted older answers and kept examples get the sentences of `parts`.
    package static func flawEvidence(for s: StrategySummary, title: String? = nil) -> [FlawSentence] {
        let name = title ?? s.name
        guard s.settles > 0 else { return [FlawSentence(text: "\(name) recorded no finished searches, so there is nothing to judge.", example: nil)] }
        let kinds = flawKinds(s)
        guard !kinds.isEmpty else {
            guard s.falseEmpties != nil else {
                return [FlawSentence(text: "No flaw seen: \(name) ended on the right results in all \(s.settles) searches and never replaced newer results with older ones (false empties not measured: the answers carried no result count).", example: nil)]
            }
            return [FlawSentence(text: "No flaw seen: \(name) ended on the right results in all \(s.settles) searches, never replaced newer results with older ones and never showed a false empty.", example: nil)]
        }
        let rest = parts(for: s, title: name).filter { $0.topic == .failures || $0.topic == .flicker }.map { FlawSentence(text: $0.sentence, example: nil) }
        guard let older = s.olderAnswerSettles else {
            return parts(for: s, title: name).filter { part in
                switch part.topic {
                case .failures, .flicker: return true
                case .correctness: return s.staleSettles > 0 || s.outOfOrderApplies > 0 || s.neverFresh > 0
                case .speed, .cost: return false
                }
            }.map { FlawSentence(text: $0.sentence, example: nil) }
        }
        var out: [FlawSentence] = []
        func share(_ count: Int64) -> String {
            "\(ValueFormat.percent(Double(count) / Double(s.settles))) of searches (\(count) of \(s.settles))"
        }
        func first(_ kind: FlawKind, queries: (FlawExample) -> String?) -> String {
            guard let example = s.examples[kind] else { return "" }
            let at = "first at typist \(example.typist), \(ValueFormat.duration(nanos: Double(example.timeNs)))"
            return queries(example).map { at + ": " + $0 } ?? at
        }
        func quoted(_ text: String?) -> String { text.map { "'\($0)'" } ?? "an empty field" }
        if older > 0 {
            let evidence = first(.olderAnswer) { example in
                example.shown.map { "the answer for \(quoted($0)) on the screen while the field held \(quoted(example.field))" }
            }
            out.append(FlawSentence(text: "\(name) ended on an older query's answer in \(share(older))" + (evidence.isEmpty ? "." : "; \(evidence)."),
                                    example: s.examples[.olderAnswer] == nil ? nil : .olderAnswer))
        }
        let otherStale = s.staleSettles - older
        if otherStale > 0 {
            out.append(FlawSentence(text: "\(name) ended on a screen that answered nothing (still loading, an error, or a failure shown as an empty list) in \(share(otherStale)).", example: nil))
        }
        if s.outOfOrderApplies > 0 {
            let evidence = first(.outOfOrder) { example in
                example.shown.map { "the late answer for \(quoted($0)) arrived while the field held \(quoted(example.field))" }
            }
            let count = times(s.outOfOrderApplies)
            out.append(FlawSentence(text: count.prefix(1).uppercased() + count.dropFirst() + " a late response replaced newer results" + (evidence.isEmpty ? "." : " (\(evidence))."),
                                    example: s.examples[.outOfOrder] == nil ? nil : .outOfOrder))
        }
        // A search that ends on a wrong screen never was fresh at its end: only the others
        // (fresh for a while, then replaced before the search ended) need their own sentence.
        if s.neverFresh > s.staleSettles {
            let evidence = first(.neverFresh) { example in example.field.map { "the field held \(quoted($0))" } }
            out.append(FlawSentence(text: "\(ValueFormat.percent(s.neverFreshShare ?? 0)) of searches never showed fresh results" + (evidence.isEmpty ? "." : " (\(evidence))."),
                                    example: s.examples[.neverFresh] == nil ? nil : .neverFresh))
        }
        return out + rest
    }
}
