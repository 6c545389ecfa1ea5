/// A preset's logic, one method per kind of event: ``route(_:into:)`` is the one switch over the
/// events that every preset's `handle` runs. Each method returns whether what the screen shows
/// may have changed; then ``render(into:)`` runs, and an event that changed nothing costs no
/// display work.
protocol RoutedField {
    /// The text, scope or tokens changed: `event` is the change, not yet absorbed.
    mutating func inputChanged(_ event: SearchEvent, into effects: inout [SearchEffect]) -> Bool
    /// The typist pressed Return. By default nothing happens.
    mutating func submitted(into effects: inout [SearchEffect]) -> Bool
    /// A timer fired. By default nothing happens (a field without timers).
    mutating func timerFired(_ timer: TimerID, into effects: inout [SearchEffect]) -> Bool
    mutating func responseArrived(_ id: RequestID, _ summary: ResultSummary, into effects: inout [SearchEffect]) -> Bool
    mutating func requestFailed(_ id: RequestID, _ reason: FailureReason, into effects: inout [SearchEffect]) -> Bool
    /// Shows what the screen holds now (through a ``DisplayTracker``, which emits only changes).
    mutating func render(into effects: inout [SearchEffect])
}

extension RoutedField {
    @inline(__always)
    mutating func submitted(into effects: inout [SearchEffect]) -> Bool { false }

    @inline(__always)
    mutating func timerFired(_ timer: TimerID, into effects: inout [SearchEffect]) -> Bool { false }

    /// Hands `event` to the method for its kind, then renders when that method says so.
    @inline(__always)
    mutating func route(_ event: SearchEvent, into effects: inout [SearchEffect]) {
        let changed = switch event {
        case .textChanged, .fieldTextSet, .scopeChanged, .tokensChanged: inputChanged(event, into: &effects)
        case .submitted: submitted(into: &effects)
        case let .timerFired(timer): timerFired(timer, into: &effects)
        case let .responseArrived(id, summary): responseArrived(id, summary, into: &effects)
        case let .requestFailed(id, reason): requestFailed(id, reason, into: &effects)
        }
        if changed { render(into: &effects) }
    }
}

/// A field built on one ``SwitchToLatest`` pipeline (`debounce-switch`, `throttle`,
/// `submit-only`): they differ only in when they emit; the pipeline's answers and the screen are
/// handled here.
protocol SwitchToLatestField: RoutedField {
    var pipeline: SwitchToLatest { get set }
    var display: DisplayTracker { get set }
}

extension SwitchToLatestField {
    @inline(__always)
    mutating func responseArrived(_ id: RequestID, _ summary: ResultSummary, into effects: inout [SearchEffect]) -> Bool {
        pipeline.answered(id, summary, into: &effects)
    }

    @inline(__always)
    mutating func requestFailed(_ id: RequestID, _ reason: FailureReason, into effects: inout [SearchEffect]) -> Bool {
        pipeline.failed(id, reason, into: &effects)
    }

    /// What the pipeline's answers put on screen; no loading state.
    @inline(__always)
    mutating func render(into effects: inout [SearchEffect]) {
        display.show(pipeline.shown.display, into: &effects)
    }
}
