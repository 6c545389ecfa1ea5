/// Per-typist request numbers, increasing from 1 in the order the strategy sends.
public typealias RequestID = UInt64
/// Per-typist timer numbers, increasing from 1.
public typealias TimerID = UInt64

/// What the backend said, reduced to what the search field's display needs.
public struct ResultSummary: Hashable, Sendable {
    /// Number of results; 0 is the backend's own "no results" answer; `nil` when the backend's
    /// answer did not say (the field shows it as results, and nothing is judged empty).
    public var count: Int?

    /// A summary of `count` results (`nil`: an answer whose count is unknown).
    public init(count: Int?) {
        self.count = count
    }
}

/// Why a request did not deliver results.
public enum FailureReason: String, Hashable, Sendable, CaseIterable {
    /// The client cancelled it and its awaited call threw (`URLError.cancelled`, `CancellationError`).
    case cancelled
    case serverError = "server-error"
    case timeout
    case transport
}

/// Something that happened to the search field. Time is not part of the event: it arrives next to
/// it (`handle(_:at:into:)`), so the strategy never reads a clock.
public enum SearchEvent: Hashable, Sendable {
    /// The field's text binding changed (a keystroke, paste, clear). `composing`: an IME
    /// composition is in progress (a Hangul syllable being built), which a write-back breaks.
    case textChanged(String, composing: Bool)
    /// The search scope changed (`nil`: all scopes).
    case scopeChanged(String?)
    /// The active tokens changed to this set.
    case tokensChanged([String])
    /// The typist pressed Return.
    case submitted
    /// A timer the strategy scheduled has fired. A timer already cancelled may still arrive in a
    /// live runner; strategies ignore ids they no longer wait for.
    case timerFired(TimerID)
    case responseArrived(RequestID, ResultSummary)
    case requestFailed(RequestID, FailureReason)
    /// The runner carried out a `setFieldText` effect and the field now reports this text: the
    /// change handler runs again (seed 001's re-entry).
    case fieldTextSet(String)
}

extension SearchEvent {
    /// `textChanged` with no composition in progress.
    public static func textChanged(_ text: String) -> SearchEvent {
        .textChanged(text, composing: false)
    }
}
