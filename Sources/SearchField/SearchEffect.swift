/// Why a timer exists; the recorder counts only cancelled debounce waits as task churn.
public enum TimerPurpose: Hashable, Sendable {
    /// A debounce wait that will search for this query when it fires.
    case debounce(QueryIdentity)
    /// Shows the stalled indicator when a request is slow.
    case stalled
    /// The end of a throttle window.
    case throttle
}

/// What a display shows for a result that was applied.
public enum ApplyKind: String, Hashable, Sendable {
    case results, empty, error
}

/// What the screen shows. The states are distinct on purpose: "not searched yet", "searching",
/// "searched, nothing found" and "failed" look different to a user.
public enum DisplayState: Hashable, Sendable, CustomStringConvertible {
    /// Nothing searched: recent searches or suggestions (kept apart from results).
    case idle
    /// A spinner with no results under it.
    case loading
    /// Earlier results still on screen, marked as out of date because the new ones are slow.
    case stalled
    /// The results of `query`, as answered by request `request`.
    case results(QueryIdentity, request: RequestID)
    /// The answer for `query` had no results.
    case empty(QueryIdentity)
    /// Searching for `query` failed (or the app shows an error message for it).
    case error(QueryIdentity)

    public var description: String {
        switch self {
        case .idle: "idle"
        case .loading: "loading"
        case .stalled: "stalled"
        case let .results(query, request): "results(\(query) #\(request))"
        case let .empty(query): "empty(\(query))"
        case let .error(query): "error(\(query))"
        }
    }
}

/// What the strategy asks the runner to do, plus the decisions the recorder must see.
///
/// Runners execute the first group (timers, requests, display, field text) and pass every effect
/// to the recorder; the informational ones (`commit`, `apply`, `discard`, `writeBack`) are what
/// only the strategy knows.
public enum SearchEffect: Hashable, Sendable {
    case scheduleTimer(TimerID, delay: Int64, purpose: TimerPurpose)
    case cancelTimer(TimerID)
    /// Send a request for `query` to the backend.
    case sendRequest(RequestID, QueryIdentity)
    /// Run the filter in memory on the UI thread (`local-filter`); the runner answers with
    /// `responseArrived` once the work is done and the UI thread is blocked meanwhile.
    case runLocally(RequestID, QueryIdentity)
    case cancelRequest(RequestID)
    /// The screen now shows this (emitted only when it changes).
    case display(DisplayState)
    /// Write this text into the field (seed 001's `query = cleaned`); the runner answers with
    /// `fieldTextSet`.
    case setFieldText(String)
    /// The strategy decided to search for `query`; `cached`: answered from the client cache.
    case commit(QueryIdentity, cached: Bool)
    /// The response (or failure) of `request` was written into the screen's state.
    case apply(RequestID, QueryIdentity, ApplyKind)
    /// The response of `request` arrived and was dropped.
    case discard(RequestID)
    /// One user change went through the write-back handler: `reentries` extra handler runs,
    /// `runaway` when the bound stopped it, `brokeComposition` when it wrote during an IME
    /// composition.
    case writeBack(reentries: Int, runaway: Bool, brokeComposition: Bool)
}
