/// A recorded session replayed through the same interface as a generated one.
public struct TraceSession: TypistSession, Sendable, Hashable {
    public let header: TraceHeader?
    public let events: [TypingEvent]
    private var position = 0

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
