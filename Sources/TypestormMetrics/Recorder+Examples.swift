import SearchField
/// The kinds of flaw a recorder keeps a first example of (`MetricSet.examples`).
public enum FlawKind: String, Sendable, CaseIterable, Codable {
    /// A search ended on the answer for another (older) query (`MetricName.olderAnswerSettles`).
    case olderAnswer = "older_answer"
    /// A late response was applied after a later one (`MetricName.outOfOrderApplies`).
    case outOfOrder = "out_of_order"
    /// A search never showed fresh results (`MetricName.neverFresh`).
    case neverFresh = "never_fresh"
}

/// The first search of one flaw kind: which typist, when, and the queries involved, so a report
/// can say where to look and type that typist again to show the timeline.
///
/// "First" is the smallest (time, typist), whatever order the typists were recorded in and
/// however the run was split, so merged records keep the same example (`MetricSet.merge`).
public struct FlawExample: Sendable, Equatable, Codable {
    /// The typist's index in the whole population (its keystrokes and draws derive from it).
    public var typist: Int
    /// When, in nanoseconds on the runner's clock: the search's last keystroke for `olderAnswer`
    /// and `neverFresh`, the late apply for `outOfOrder`.
    public var timeNs: Int64
    /// The query whose answer was shown (`olderAnswer`) or applied late (`outOfOrder`); for
    /// `neverFresh` what the screen showed results of, if anything. Its text, then its scope
    /// and tokens when it has them ("ethw in shoes [on-sale]").
    public var shown: String?
    /// The query the field held then.
    public var field: String?

    /// An example from its parts.
    public init(typist: Int, timeNs: Int64, shown: String?, field: String?) {
        self.typist = typist
        self.timeNs = timeNs
        self.shown = shown
        self.field = field
    }

    /// Whether this example comes before `other` (time, then typist).
    package func precedes(_ other: FlawExample) -> Bool {
        (timeNs, typist) < (other.timeNs, other.typist)
    }
}

/// What the tracks note for the first examples and the older-answer count, between records:
/// the hot path only sets a pending slot; `Recorder.resolveFlawExamples` turns it into text.
struct FlawExampleBuffer: Sendable {
    struct Pending: Sendable {
        var timeNs: Int64
        var shown: QueryRef?
        var field: QueryRef?
    }

    var olderAnswerSettles: Int64 = 0
    /// Per `FlawKind` (in `allCases` order), the occurrence noted since the last resolve.
    var pending: [Pending?] = [nil, nil, nil]
    var hasPending = false
    var best: [FlawKind: FlawExample] = [:]

    mutating func note(_ kind: FlawKind, at time: Int64, shown: QueryRef?, field: QueryRef?) {
        let index = kind == .olderAnswer ? 0 : kind == .outOfOrder ? 1 : 2
        if pending[index] == nil { pending[index] = Pending(timeNs: time, shown: shown, field: field) }
        hasPending = true
    }
}

extension Recorder {
    /// Turns the occurrences the last record noted into examples, keeping the first of each kind.
    /// Called only when one was noted, so it costs nothing per keystroke beyond a flag check.
    mutating func resolveFlawExamples(typist: Int) {
        let global = globalTypists.map { $0[typist] } ?? typist
        for (index, kind) in FlawKind.allCases.enumerated() {
            guard let pending = totals.examples.pending[index] else { continue }
            totals.examples.pending[index] = nil
            if let current = totals.examples.best[kind], current.timeNs < pending.timeNs || (current.timeNs == pending.timeNs && current.typist <= global) {
                continue
            }
            totals.examples.best[kind] = FlawExample(typist: global, timeNs: pending.timeNs,
                                                     shown: pending.shown.map { Self.label(queries.key($0)) },
                                                     field: pending.field.map { Self.label(queries.key($0)) })
        }
        totals.examples.hasPending = false
    }

    /// A query as an example names it: its text, then its scope and tokens when it has them
    /// ("ethw in shoes [on-sale]").
    static func label(_ key: QueryIdentity) -> String {
        var label = key.text
        if let scope = key.scope { label += " in \(scope)" }
        if !key.tokens.isEmpty { label += " [" + key.tokens.joined(separator: ",") + "]" }
        return label
    }

    /// `set` with the older-answer count and the first examples added.
    func withFlawExamples(_ set: MetricSet) -> MetricSet {
        var set = set
        set.counters[MetricName.olderAnswerSettles] = totals.examples.olderAnswerSettles
        if !totals.examples.best.isEmpty {
            set.examples = Dictionary(uniqueKeysWithValues: totals.examples.best.map { ($0.key.rawValue, $0.value) })
        }
        return set
    }
}

extension Track {
    /// The settle being closed ends on an older query's answer, or never was fresh: count it
    /// and note it as a possible first example.
    mutating func noteSettleFlaws(totals: inout Totals) {
        if showsAnswerForOtherQuery {
            totals.examples.olderAnswerSettles += 1
            totals.examples.note(.olderAnswer, at: lastKeystroke, shown: displayQuery, field: field)
        }
        if freshSince < 0 {
            totals.examples.note(.neverFresh, at: lastKeystroke, shown: displayKind == .results ? displayQuery : nil, field: field)
        }
    }
}

extension MetricSet {
    /// Renames the examples' typists (`FlawExample.typist`) with `map`: from a recorder's slots
    /// to the population's indices, for a runner whose recorder does not know them.
    package mutating func renumberExampleTypists(_ map: (Int) -> Int) {
        guard let current = examples else { return }
        examples = current.mapValues { example in
            var example = example
            example.typist = map(example.typist)
            return example
        }
    }
}
