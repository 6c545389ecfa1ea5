/// A search field's logic as a pure state machine: events in, effects out.
///
/// A strategy owns no clock, thread or socket. Runners (virtual time, live in-process, live HTTP)
/// call `handle` with the event and the time it happened, execute the effects and pass them to
/// the recorder, so a number measured in virtual time and one measured over HTTP come from the
/// same logic.
public protocol SearchFieldStrategy: Sendable {
    /// The knobs this instance runs with.
    var configuration: SearchFieldConfiguration { get }

    /// Handles one event that happened at `time` (nanoseconds on the runner's clock) and appends
    /// the resulting effects to `effects`, in the order they happen.
    ///
    /// `effects` is the runner's reusable buffer: appending, never clearing, keeps the hot path
    /// free of allocations.
    mutating func handle(_ event: SearchEvent, at time: Int64, into effects: inout [SearchEffect])
}

/// What restarts a strategy's wait and request.
public enum RestartKey: String, Hashable, Sendable {
    /// The full query identity (text, scope, tokens): the correct choice.
    case identity
    /// The text alone (`.task(id: searchText)`, seed 002's draft that does not follow a changed
    /// identity): scope and token changes keep showing results of the old identity.
    case text
}

/// The shared knobs (docs/strategies.md). Presets are named points in this space.
public struct SearchFieldConfiguration: Hashable, Sendable {
    /// Debounce wait (zero: none). Also the throttle interval for `throttle`.
    public var debounce: Duration { .nanoseconds(debounceNanos) }
    /// Trimming and minimum length.
    public var normalizer: QueryNormalizer
    /// After this long without an answer, show the stalled indicator (`nil`: never).
    public var stalledDelay: Duration? { stalledDelayNanos.map { .nanoseconds($0) } }
    /// Client LRU cache of identity → results (0: off). Presets whose seed has no cache ignore it.
    public var cacheCapacity: Int
    /// What restarts the wait and the request: the full identity (correct) or the text alone.
    public var restartKey: RestartKey
    /// Wrap the strategy in seed 001's write-back normalization.
    public var writeBack: Bool
    /// Stop a write-back loop after this many re-entries of the change handler.
    public var writeBackBound: Int
    /// ``debounce`` in nanoseconds, as the strategies keep time.
    package var debounceNanos: Int64
    /// ``stalledDelay`` in nanoseconds.
    package var stalledDelayNanos: Int64?

    /// A configuration; the defaults are a 300 ms debounce, trimming, minimum length 2, no stalled
    /// indicator, no cache, identity restarts and no write-back (docs/strategies.md).
    ///
    /// - Throws: ``SetupError`` for a negative duration or cache capacity, or a write-back bound
    ///   below 1.
    public init(
        debounce: Duration = .milliseconds(300), normalizer: QueryNormalizer = QueryNormalizer(trims: true, minimumLength: 2),
        stalledDelay: Duration? = nil, cacheCapacity: Int = 0, restartKey: RestartKey = .identity,
        writeBack: Bool = false, writeBackBound: Int = 16
    ) throws(SetupError) {
        try SetupError.checkNotNegative(debounce, "debounce")
        if let stalledDelay { try SetupError.checkNotNegative(stalledDelay, "stalledDelay") }
        if cacheCapacity < 0 { throw SetupError(description: "cacheCapacity: expected 0 or more, found \(cacheCapacity)") }
        if writeBackBound < 1 { throw SetupError(description: "writeBackBound: expected at least 1, found \(writeBackBound)") }
        self.init(debounceNanos: debounce.wholeNanoseconds, normalizer: normalizer, stalledDelayNanos: stalledDelay?.wholeNanoseconds,
                  cacheCapacity: cacheCapacity, restartKey: restartKey, writeBack: writeBack, writeBackBound: writeBackBound)
    }

    /// The default configuration: a 300 ms debounce, trimming, minimum length 2, no stalled
    /// indicator, no cache, identity restarts and no write-back.
    public init() {
        self.init(debounceNanos: 300_000_000)
    }

    /// Every knob as text, in the form scenario hashes have always been made from (nanoseconds,
    /// declaration order): the same configuration gives the same text in every version.
    package var canonicalDescription: String {
        "SearchFieldConfiguration(debounce: \(debounceNanos), normalizer: \(String(reflecting: normalizer)), "
            + "stalledDelay: \(stalledDelayNanos.map { "Optional(\($0))" } ?? "nil"), cacheCapacity: \(cacheCapacity), "
            + "restartKey: \(String(reflecting: restartKey)), writeBack: \(writeBack), writeBackBound: \(writeBackBound))"
    }

    package init(
        debounceNanos: Int64, normalizer: QueryNormalizer = QueryNormalizer(trims: true, minimumLength: 2),
        stalledDelayNanos: Int64? = nil, cacheCapacity: Int = 0, restartKey: RestartKey = .identity,
        writeBack: Bool = false, writeBackBound: Int = 16
    ) {
        self.debounceNanos = debounceNanos
        self.normalizer = normalizer
        self.stalledDelayNanos = stalledDelayNanos
        self.cacheCapacity = cacheCapacity
        self.restartKey = restartKey
        self.writeBack = writeBack
        self.writeBackBound = writeBackBound
    }

    /// The query a settled field should show results for, against which the recorder measures
    /// staleness: always trimmed, the full identity, `nil` below this strategy's minimum length.
    public func expectedQuery(for input: FieldInput) -> QueryIdentity? {
        QueryNormalizer(trims: true, minimumLength: normalizer.minimumLength)
            .identity(text: input.text, scope: input.scope, tokens: input.tokens)
    }
}

/// The named strategies of docs/strategies.md.
public enum Preset: String, CaseIterable, Sendable {
    case naive
    case manualCancel = "manual-cancel"
    case splitStateSeed = "split-state-seed"
    case splitState = "split-state"
    case sequenceGuard = "sequence-guard"
    case debounceSwitch = "debounce-switch"
    case throttle
    case submitOnly = "submit-only"
    case localFilter = "local-filter"

    /// The knobs as the modelled code has them.
    public var defaultConfiguration: SearchFieldConfiguration {
        let raw = QueryNormalizer(trims: false, minimumLength: 0)
        switch self {
        case .naive:
            return SearchFieldConfiguration(debounceNanos: 0, normalizer: raw, restartKey: .text)
        case .manualCancel:
            return SearchFieldConfiguration(debounceNanos: 300_000_000, normalizer: raw, restartKey: .text)
        case .splitStateSeed:
            return SearchFieldConfiguration(debounceNanos: 300_000_000, restartKey: .text)
        case .splitState:
            return SearchFieldConfiguration(debounceNanos: 300_000_000, stalledDelayNanos: 200_000_000)
        case .sequenceGuard:
            return SearchFieldConfiguration(debounceNanos: 0, normalizer: raw, stalledDelayNanos: 200_000_000)
        case .debounceSwitch:
            return SearchFieldConfiguration(debounceNanos: 300_000_000, normalizer: raw)
        case .throttle:
            return SearchFieldConfiguration(debounceNanos: 300_000_000, normalizer: raw)
        case .submitOnly:
            return SearchFieldConfiguration(debounceNanos: 0, normalizer: QueryNormalizer(trims: true, minimumLength: 1))
        case .localFilter:
            return SearchFieldConfiguration(debounceNanos: 0, normalizer: raw)
        }
    }

    /// Hands `visitor` a fresh strategy of this preset's concrete type, with `configuration`
    /// (the preset's defaults when `nil`), wrapped in the write-back variant when the
    /// configuration asks for it: the one switch over the presets.
    ///
    /// Inlined into the caller, so a generic visitor (the virtual runner's hot loop) runs
    /// specialised for each strategy type instead of through witness tables per event.
    @inlinable
    public func visit<Visitor: PresetVisitor>(_ configuration: SearchFieldConfiguration? = nil, _ visitor: Visitor) -> Visitor.Result {
        let configuration = configuration ?? defaultConfiguration
        func finish<Base: SearchFieldStrategy>(_ base: Base) -> Visitor.Result {
            configuration.writeBack ? visitor.visit(WriteBackField(base: base)) : visitor.visit(base)
        }
        switch self {
        case .naive: return finish(NaiveField(configuration: configuration))
        case .manualCancel: return finish(ManualCancelField(configuration: configuration))
        case .splitStateSeed: return finish(SplitStateSeedField(configuration: configuration))
        case .splitState: return finish(SplitStateField(configuration: configuration))
        case .sequenceGuard: return finish(SequenceGuardField(configuration: configuration))
        case .debounceSwitch: return finish(DebounceSwitchField(configuration: configuration))
        case .throttle: return finish(ThrottleField(configuration: configuration))
        case .submitOnly: return finish(SubmitOnlyField(configuration: configuration))
        case .localFilter: return finish(LocalFilterField(configuration: configuration))
        }
    }

    /// A fresh strategy with `configuration` (the preset's defaults when `nil`), wrapped in the
    /// write-back variant when the configuration asks for it, as an existential.
    public func make(_ configuration: SearchFieldConfiguration? = nil) -> any SearchFieldStrategy {
        visit(configuration, Existential())
    }

    private struct Existential: PresetVisitor {
        func visit<Strategy: SearchFieldStrategy>(_ strategy: Strategy) -> any SearchFieldStrategy { strategy }
    }
}

/// Work done with a preset's strategy at its concrete type (``Preset/visit(_:_:)``), so generic
/// code runs specialised for it.
public protocol PresetVisitor {
    /// What the work returns.
    associatedtype Result
    /// Does the work with `strategy`.
    func visit<Strategy: SearchFieldStrategy>(_ strategy: Strategy) -> Result
}

