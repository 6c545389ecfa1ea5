/// The write-back variant (seed 001): the field is "cleaned" by writing the trimmed text back
/// into the state it is bound to, inside the change handler:
///
/// ```swift
/// .onChange(of: query) { _, newValue in
///     let cleaned = newValue.trimmingCharacters(in: .whitespacesAndNewlines)
///     if query != cleaned {
///         query = cleaned // ← 여기
///     }
/// }
/// ```
///
/// The set is itself a change, so the handler runs again (a re-entry); the runner carries out
/// `setFieldText` and answers with `fieldTextSet`. While an IME composition is open the input
/// method puts its marked text back, the guard never holds, and the loop runs until `bound`
/// re-entries stop it (a runaway); a write-back during composition also commits or mangles the
/// syllable being composed (a broken composition). The wrapped strategy observes every value the
/// text takes, the raw one and each written-back one, as SwiftUI's other observers would.
public struct WriteBackField<Base: SearchFieldStrategy>: SearchFieldStrategy {
    /// The wrapped strategy, which sees every text the field takes.
    public private(set) var base: Base
    /// The wrapped strategy's configuration.
    public var configuration: SearchFieldConfiguration { base.configuration }
    /// Handler runs for the current user change beyond the first.
    private var reentries = 0
    private var composing = false
    private var brokeComposition = false
    private var looping = false
    private let trimmer = QueryNormalizer(trims: true, minimumLength: 0)

    /// `base` with seed 001's write-back normalization around it.
    public init(base: Base) {
        self.base = base
    }

    /// Hands `event` to ``base`` and, on a text change, asks the runner to set the trimmed text
    /// (`setFieldText`); each `fieldTextSet` answer is a re-entry, and the loop is reported
    /// (re-entries, a runaway at the bound, a broken composition) as an effect.
    public mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect]) {
        switch event {
        case let .textChanged(text, composing):
            if looping { report(runaway: false, into: &effects) }
            reentries = 0
            brokeComposition = false
            self.composing = composing
            onChange(text, at: time, into: &effects)
        case let .fieldTextSet(text):
            guard looping else {
                base.handle(.fieldTextSet(text), at: time, into: &effects)
                return
            }
            reentries += 1
            if reentries >= configuration.writeBackBound {
                base.handle(.textChanged(text, composing: composing), at: time, into: &effects)
                report(runaway: true, into: &effects)
                return
            }
            onChange(text, at: time, into: &effects)
        default:
            base.handle(event, at: time, into: &effects)
        }
    }

    /// One run of the `onChange` closure for `newValue`.
    private mutating func onChange(_ newValue: String, at time: Int64, into effects: inout [SearchEffect]) {
        base.handle(.textChanged(newValue, composing: composing), at: time, into: &effects)
        let cleaned = trimmer.normalize(newValue)
        guard cleaned != newValue else {
            if looping || reentries > 0 { report(runaway: false, into: &effects) }
            return
        }
        if composing { brokeComposition = true }
        looping = true
        effects.append(.setFieldText(cleaned))
    }

    private mutating func report(runaway: Bool, into effects: inout [SearchEffect]) {
        effects.append(.writeBack(reentries: reentries, runaway: runaway, brokeComposition: brokeComposition))
        looping = false
        reentries = 0
        brokeComposition = false
    }
}
