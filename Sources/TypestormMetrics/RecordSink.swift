import SearchField
/// Where a runner's records go: the `Recorder` itself, or a buffer that hands them to a shared
/// recorder later (a live field records under its own lock, then flushes).
///
/// Only `record(_:typist:at:)` is required; the others are the records sent for nearly every
/// keystroke, which `Recorder` takes without building a `Record`.
public protocol RecordSink {
    mutating func record(_ record: Record, typist: Int, at time: Int64)
    mutating func keystroke(_ query: QueryIdentity?, typist: Int, at time: Int64)
    mutating func commit(_ query: QueryIdentity, cached: Bool, typist: Int, at time: Int64)
    /// `lag`: how much later than the strategy asked the request left, when known at the start
    /// (else it arrives later as a `.scheduleLag` record).
    mutating func requestStarted(id: UInt64, query: QueryIdentity, lag: Int64?, typist: Int, at time: Int64)
    mutating func apply(id: UInt64, query: QueryIdentity, kind: DisplayKind, typist: Int, at time: Int64)
    mutating func waitStarted(id: UInt64, query: QueryIdentity, typist: Int, at time: Int64)
    mutating func waitFired(id: UInt64, lateness: Int64, typist: Int, at time: Int64)
    mutating func cancelRequested(id: UInt64, wait: Bool, typist: Int, at time: Int64)
    mutating func display(_ kind: DisplayKind, query: QueryIdentity?, typist: Int, at time: Int64)
}

extension RecordSink {
    /// Records `.keystroke(text: "", query:)`: the field's query after a raw text change (`nil` when
    /// it asks for nothing).
    public mutating func keystroke(_ query: QueryIdentity?, typist: Int, at time: Int64) {
        record(.keystroke(text: "", query: query), typist: typist, at: time)
    }

    /// Records `.commit(_:cached:)`: the strategy committed to search for `query`, answered from its
    /// cache when `cached`.
    public mutating func commit(_ query: QueryIdentity, cached: Bool, typist: Int, at time: Int64) {
        record(.commit(query, cached: cached), typist: typist, at: time)
    }

    /// Records `.requestStart` for request `id`, and `.scheduleLag(lag)` when `lag` is known.
    public mutating func requestStarted(id: UInt64, query: QueryIdentity, lag: Int64?, typist: Int, at time: Int64) {
        record(.requestStart(id: id, query: query, lag: nil), typist: typist, at: time)
        if let lag { record(.scheduleLag(lag), typist: typist, at: time) }
    }

    /// Records `.apply`: the strategy put request `id`'s answer for `query` on screen as `kind`.
    public mutating func apply(id: UInt64, query: QueryIdentity, kind: DisplayKind, typist: Int, at time: Int64) {
        record(.apply(id: id, query: query, kind: kind), typist: typist, at: time)
    }

    /// Records `.waitStarted`: a debounce wait `id` for `query` began.
    public mutating func waitStarted(id: UInt64, query: QueryIdentity, typist: Int, at time: Int64) {
        record(.waitStarted(id: id, query: query), typist: typist, at: time)
    }

    /// Records `.waitFired`: wait `id` fired `lateness` nanoseconds after it was due.
    public mutating func waitFired(id: UInt64, lateness: Int64, typist: Int, at time: Int64) {
        record(.waitFired(id: id, lateness: lateness), typist: typist, at: time)
    }

    /// Records `.cancelRequested`: the strategy asked to cancel request or wait (`wait`) `id`.
    public mutating func cancelRequested(id: UInt64, wait: Bool, typist: Int, at time: Int64) {
        record(.cancelRequested(id: id, wait: wait), typist: typist, at: time)
    }

    /// Records `.display`: the screen now shows `kind` for `query` (`nil` for a query-less state).
    public mutating func display(_ kind: DisplayKind, query: QueryIdentity?, typist: Int, at time: Int64) {
        record(.display(kind, query: query), typist: typist, at: time)
    }
}

/// Records kept in order, to be replayed into a `Recorder` later (`flush(into:)`).
public struct RecordBuffer: RecordSink, Sendable {
    /// The records held so far, in the order they were recorded, with their typist slot and time
    /// (nanoseconds on the runner's clock).
    public private(set) var entries: [(record: Record, typist: Int, time: Int64)] = []

    /// An empty buffer.
    public init() {}

    /// Appends `record` for typist slot `typist` at `time`; nothing is computed until the buffer is
    /// flushed into a ``Recorder``.
    public mutating func record(_ record: Record, typist: Int, at time: Int64) {
        entries.append((record, typist, time))
    }

    /// True when the buffer holds no records.
    public var isEmpty: Bool { entries.isEmpty }

    /// Hands every record to `recorder`, in order, and empties the buffer (keeping its capacity).
    public mutating func flush(into recorder: inout Recorder) {
        for entry in entries { recorder.record(entry.record, typist: entry.typist, at: entry.time) }
        entries.removeAll(keepingCapacity: true)
    }
}
