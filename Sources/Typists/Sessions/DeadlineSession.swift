/// A session cut at the phase's end: the typist leaves the field at `limit` (its own time), so a
/// typist asleep until a key after the deadline does not hold the phase open.
///
/// `next()` is inlinable, and always inlined, so that the simulator's hot loop, specialised in
/// the Simulation module for `DeadlineSession<GeneratedSession>`, makes the event in place
/// instead of calling through generic metadata and witness tables.
public struct DeadlineSession<Base: TypistSession & Sendable>: TypistSession, Sendable {
    @usableFromInline var base: Base
    @usableFromInline let limit: Int64
    @usableFromInline var ended = false

    /// `base`, ended at `limit` nanoseconds of the typist's own time.
    public init(base: Base, limit: Int64) {
        self.base = base
        self.limit = limit
    }

    @inlinable @inline(__always)
    public mutating func next() -> TypingEvent? {
        guard !ended else { return nil }
        guard let event = base.next() else {
            ended = true
            return nil
        }
        if event.at >= limit {
            ended = true
            return TypingEvent(at: max(0, limit), action: .end)
        }
        return event
    }
}
