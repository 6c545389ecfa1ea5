import Typists

/// A typist's typing for a phase: its session, or with arrival `stages` one session after
/// another until the schedule sends it away, as a k6 virtual user iterates.
///
/// Under `stages` the field should hold the scheduled number of typists, but a session ends
/// after a few queries (`session.queries` is an upper bound, follow-ups are drawn). So when a
/// round ends, the same typist (same device and language) starts the next one at once: round k
/// types the session of typist `index + k · typists`, so every round is as deterministic as a
/// session and no two typists' rounds repeat each other. The field is not told between rounds
/// (the user stays on the page); the cut at departure ends it.
package struct ContinuingSession: TypistSession, Sendable {
    private let typists: ScenarioTypists
    private let typist: Int
    /// The index step between rounds; 0: one session only.
    private let stride: Int
    private var round = 0
    private var current: DeadlineSession<GeneratedSession>
    /// The round's start on the typist's clock, and the last event's time.
    private var origin: Int64 = 0
    private var last: Int64 = 0

    init(typists: ScenarioTypists, typist: Int, stride: Int) {
        self.typists = typists
        self.typist = typist
        self.stride = stride
        current = typists.session(forTypist: typist)
    }

    package mutating func next() -> TypingEvent? {
        guard stride > 0 else { return current.next() }
        // A round that ends before its first key ends the typing (it would repeat forever).
        var roundsEnded = 0
        while roundsEnded < 2 {
            guard var event = current.next() else {
                nextRound()
                roundsEnded += 1
                continue
            }
            event.at += origin
            if case .end = event.action {
                last = max(last, event.at)
                nextRound()
                roundsEnded += 1
                continue
            }
            last = event.at
            return event
        }
        return TypingEvent(at: last, action: .end)
    }

    private mutating func nextRound() {
        round += 1
        origin = last
        current = typists.session(forTypist: typist + round * stride)
    }
}
