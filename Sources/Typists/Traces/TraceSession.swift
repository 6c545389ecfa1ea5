/// A recorded session replayed through the same interface as a generated one.
public struct TraceSession: TypistSession, Sendable, Hashable {
    /// The session's header from the trace; `nil` when the trace had none.
    public let header: TraceHeader?
    /// The session's events, in non-decreasing time.
    public let events: [TypingEvent]
    private var position = 0

    /// A session replaying `events`, with optional metadata.
    public init(header: TraceHeader? = nil, events: [TypingEvent]) {
        self.header = header
        self.events = events
    }

    public mutating func next() -> TypingEvent? {
        guard position < events.count else { return nil }
        defer { position += 1 }
        return events[position]
    }
}
