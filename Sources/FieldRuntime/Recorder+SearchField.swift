import TypestormMetrics
import SearchField

/// The one mapping from the search field's vocabulary to the recorder's, used by `FieldHost`
/// for every runner, so that no runner decides on its own what an effect means for the metrics.
extension RecordSink {
    /// Records what an effect tells the metrics. `FieldHost` calls it for each effect it carries
    /// out, in order, at the time the strategy emitted it; not for a cancel of a timer or request
    /// it no longer holds open, nor for `setFieldText` (that one comes back as an event).
    ///
    /// `isDebounceWait` must come from the host's own bookkeeping of live debounce waits, so a
    /// cancelled stalled or throttle timer is not counted as task churn.
    ///
    /// `identitiesTrimmed`: the strategy's normalizer trims, so every identity it emits is
    /// trimmed already and its key is made without trimming again.
    @inlinable @inline(__always)
    public mutating func record(
        _ effect: borrowing SearchEffect, isDebounceWait: Bool = false, identitiesTrimmed: Bool = false, typist: Int, at time: Int64
    ) {
        // Each identity goes to the recorder as it is when it is trimmed already, so the common
        // case passes the effect's own payload (no copy of the identity, so no reference counts);
        // only an untrimmed one is rebuilt trimmed (`QueryIdentity.trimmed(alreadyTrimmed:)`).
        // The effect is borrowed, so its payloads are read in place, not copied out.
        switch effect {
        case let .scheduleTimer(id, _, purpose):
            switch purpose {
            case let .debounce(query):
                if identitiesTrimmed {
                    waitStarted(id: id, query: query, typist: typist, at: time)
                } else {
                    waitStarted(id: id, query: query.trimmed(), typist: typist, at: time)
                }
            case .stalled, .throttle:
                break
            }
        case let .cancelTimer(id):
            if isDebounceWait { cancelRequested(id: id, wait: true, typist: typist, at: time) }
        // One case per pattern: a shared binding (`let .a(x), let .b(x)`) copied the whole
        // effect (or display state) out first.
        case let .sendRequest(id, query):
            // The lag is not known yet: the runner reports it with the request's end.
            if identitiesTrimmed {
                requestStarted(id: id, query: query, lag: nil, typist: typist, at: time)
            } else {
                requestStarted(id: id, query: query.trimmed(), lag: nil, typist: typist, at: time)
            }
        case let .runLocally(id, query):
            if identitiesTrimmed {
                requestStarted(id: id, query: query, lag: nil, typist: typist, at: time)
            } else {
                requestStarted(id: id, query: query.trimmed(), lag: nil, typist: typist, at: time)
            }
        case let .cancelRequest(id):
            cancelRequested(id: id, wait: false, typist: typist, at: time)
        case .display(.idle):
            display(.idle, query: nil, typist: typist, at: time)
        case .display(.loading):
            display(.loading, query: nil, typist: typist, at: time)
        case .display(.stalled):
            display(.stalled, query: nil, typist: typist, at: time)
        case let .display(.results(query, _)):
            display(.results, query: identitiesTrimmed ? query : query.trimmed(), typist: typist, at: time)
        case let .display(.empty(query)):
            display(.empty, query: identitiesTrimmed ? query : query.trimmed(), typist: typist, at: time)
        case let .display(.error(query)):
            display(.error, query: identitiesTrimmed ? query : query.trimmed(), typist: typist, at: time)
        case .setFieldText:
            break
        case let .commit(query, cached):
            if identitiesTrimmed {
                commit(query, cached: cached, typist: typist, at: time)
            } else {
                commit(query.trimmed(), cached: cached, typist: typist, at: time)
            }
        case let .apply(id, query, kind):
            let displayKind: DisplayKind = switch kind {
            case .results: .results
            case .empty: .empty
            case .error: .error
            }
            if identitiesTrimmed {
                apply(id: id, query: query, kind: displayKind, typist: typist, at: time)
            } else {
                apply(id: id, query: query.trimmed(), kind: displayKind, typist: typist, at: time)
            }
        case let .discard(id):
            record(.discard(id: id), typist: typist, at: time)
        case let .writeBack(reentries, runaway, broke):
            record(.writeBack(reentries: reentries, runaway: runaway, brokeComposition: broke), typist: typist, at: time)
        }
    }
}

extension QueryIdentity {
    /// The recorder's view of a query identity: the question it asks, with the text trimmed.
    /// The one way an identity a strategy emits becomes the one the recorder compares.
    ///
    /// The engine trims every query before matching (`TextFolding.foldQuery`), so a strategy
    /// that does not trim and searches "shoe " gets exactly the answer for "shoe". The expected
    /// query (`SearchFieldConfiguration.expectedQuery`) is always trimmed; identities recorded for
    /// requests, commits, applies and displays must be too, or every pause after a space (people
    /// pause at word boundaries) would count as a wrong final screen, mismatch time and wasted
    /// work for the untrimmed presets. Not trimming still costs what it really costs: "shoe" and
    /// "shoe " are searched twice, which shows as fan-out per distinct query.
    ///
    /// `alreadyTrimmed`: the identity was made by a trimming normalizer, so its text is used as
    /// it is, without trimming again.
    @inlinable @inline(__always)
    public func trimmed(alreadyTrimmed: Bool = false) -> QueryIdentity {
        if alreadyTrimmed {
            assert(QueryNormalizer.trimmed(text) == text, "\(self) is not trimmed")
            return self
        }
        return QueryIdentity(text: QueryNormalizer.trimmed(text), scope: scope, tokens: tokens)
    }
}
