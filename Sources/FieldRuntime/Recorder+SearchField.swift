import Measurement
import SearchField

/// The one mapping from the search field's vocabulary to the recorder's, shared by every runner
/// (virtual here; the live runners call the same functions), so that no runner decides on its
/// own what an effect means for the metrics.
extension Recorder {
    /// Records the field's input after a typist's change (text, scope or tokens), measured
    /// against `configuration`'s notion of the query.
    public mutating func recordInput(_ input: FieldInput, configuration: SearchFieldConfiguration, typist: Int, at time: Int64) {
        let query = configuration.expectedQuery(for: input).map(QueryKey.init)
        record(.keystroke(text: input.text, query: query), typist: typist, at: time)
    }

    /// Records what an effect tells the metrics. Call it for every effect, in order, at the time
    /// the strategy emitted it; `lag` is how much later than that the runner actually sent a
    /// request (0 in virtual time).
    ///
    /// `debounceTimers` must be the runner's set of live debounce waits, so a cancelled stalled
    /// or throttle timer is not counted as task churn; pass `isDebounceWait` from your own
    /// bookkeeping.
    ///
    /// `identitiesTrimmed`: the strategy's normalizer trims, so every identity it emits is
    /// trimmed already and its key is made without trimming again.
    public mutating func record(
        _ effect: SearchEffect, isDebounceWait: Bool = false, lag: Int64 = 0, identitiesTrimmed: Bool = false, typist: Int, at time: Int64
    ) {
        func key(_ query: QueryIdentity) -> QueryKey { QueryKey(query, alreadyTrimmed: identitiesTrimmed) }
        switch effect {
        case let .scheduleTimer(id, _, purpose):
            if case let .debounce(query) = purpose {
                waitStarted(id: id, query: key(query), typist: typist, at: time)
            }
        case let .cancelTimer(id):
            if isDebounceWait { cancelRequested(id: id, wait: true, typist: typist, at: time) }
        case let .sendRequest(id, query), let .runLocally(id, query):
            requestStarted(id: id, query: key(query), lag: lag, typist: typist, at: time)
        case let .cancelRequest(id):
            record(.cancelRequested(id: id, wait: false), typist: typist, at: time)
        case let .display(state):
            let (kind, query) = Self.displayRecord(state, trimmed: identitiesTrimmed)
            display(kind, query: query, typist: typist, at: time)
        case .setFieldText:
            break
        case let .commit(query, cached):
            commit(key(query), cached: cached, typist: typist, at: time)
        case let .apply(id, query, kind):
            let displayKind: DisplayKind = switch kind {
            case .results: .results
            case .empty: .empty
            case .error: .error
            }
            apply(id: id, query: key(query), kind: displayKind, typist: typist, at: time)
        case let .discard(id):
            record(.discard(id: id), typist: typist, at: time)
        case let .writeBack(reentries, runaway, broke):
            record(.writeBack(reentries: reentries, runaway: runaway, brokeComposition: broke), typist: typist, at: time)
        }
    }

    static func displayRecord(_ state: DisplayState, trimmed: Bool = false) -> (DisplayKind, QueryKey?) {
        func key(_ query: QueryIdentity) -> QueryKey { QueryKey(query, alreadyTrimmed: trimmed) }
        return switch state {
        case .idle: (.idle, nil)
        case .loading: (.loading, nil)
        case .stalled: (.stalled, nil)
        case let .results(query, _): (.results, key(query))
        case let .empty(query): (.empty, key(query))
        case let .error(query): (.error, key(query))
        }
    }
}

extension QueryKey {
    /// The recorder's view of a query identity: the question it asks, with the text trimmed.
    ///
    /// The engine trims every query before matching (`TextFolding.foldQuery`), so a strategy
    /// that does not trim and searches "shoe " gets exactly the answer for "shoe". The expected
    /// query (`SearchFieldConfiguration.expectedQuery`) is always trimmed; keys for requests,
    /// commits, applies and displays must be too, or every pause after a space (people pause at
    /// word boundaries) would count as a wrong final screen, mismatch time and wasted work for
    /// the untrimmed presets. Not trimming still costs what it really costs: "shoe" and "shoe "
    /// are searched twice, which shows as fan-out per distinct query.
    public init(_ identity: QueryIdentity) {
        self.init(text: QueryNormalizer.trimmed(identity.text), scope: identity.scope, tokens: identity.tokens)
    }

    /// The key of an identity whose text is trimmed already (made by a trimming normalizer):
    /// `QueryKey(identity)` without trimming again.
    public static func trimmed(_ identity: QueryIdentity) -> QueryKey {
        assert(QueryNormalizer.trimmed(identity.text) == identity.text, "\(identity) is not trimmed")
        return QueryKey(text: identity.text, scope: identity.scope, tokens: identity.tokens)
    }

    /// `QueryKey.trimmed(identity)` when `alreadyTrimmed`, else `QueryKey(identity)`.
    @inline(__always)
    init(_ identity: QueryIdentity, alreadyTrimmed: Bool) {
        self = alreadyTrimmed ? .trimmed(identity) : QueryKey(identity)
    }
}
