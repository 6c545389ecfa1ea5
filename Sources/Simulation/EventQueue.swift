/// What the virtual-time runner has to do next.
struct ScheduledEvent: Sendable {
    /// Time, then insertion order, as one 128-bit number: ordering compares it once, without
    /// branches. Events at the same time run in the order they were scheduled, which makes
    /// every run deterministic.
    var order: UInt128
    var typist: Int32
    var kind: Kind
    /// A timer id, or a request handle with its generation (`handle | generation << 32`).
    var payload: UInt64

    enum Kind: UInt8, Sendable {
        /// The typist's next `TypingEvent` is due.
        case typing
        case timer
        /// The request reaches the server.
        case serverArrive
        /// A worker finishes the request.
        case serviceDone
        /// The server notices the cancellation.
        case cancelArrive
        /// The response (or error) reaches the client.
        case responseArrive
        /// The client's awaited call throws after the client cancelled.
        case clientCancelled
        case timeout
        /// A `runLocally` filter finished on the typist's UI thread.
        case localDone
    }

    init(time: Int64, sequence: UInt64, typist: Int32, kind: Kind, payload: UInt64) {
        // Flipping the sign bit maps signed order onto unsigned order.
        order = UInt128(UInt64(bitPattern: time) ^ (1 << 63)) << 64 | UInt128(sequence)
        self.typist = typist
        self.kind = kind
        self.payload = payload
    }

    /// Virtual time in nanoseconds.
    var time: Int64 { Int64(bitPattern: UInt64(truncatingIfNeeded: order >> 64) ^ (1 << 63)) }
    var sequence: UInt64 { UInt64(truncatingIfNeeded: order) }

    @inline(__always)
    func precedes(_ other: ScheduledEvent) -> Bool {
        order < other.order
    }
}

/// A 4-ary min-heap of events ordered by (time, sequence): half the depth of a binary heap,
/// and the four children of a node share a cache line or two.
///
/// - Complexity: O(log n) push and pop, no allocation once the storage has grown.
struct EventQueue: Sendable {
    var heap: [ScheduledEvent] = []
    var nextSequence: UInt64 = 0

    init(capacity: Int = 0) {
        heap.reserveCapacity(capacity)
    }

    var count: Int { heap.count }
    var isEmpty: Bool { heap.isEmpty }

    mutating func push(_ time: Int64, _ kind: ScheduledEvent.Kind, typist: Int32, payload: UInt64 = 0) {
        let event = ScheduledEvent(time: time, sequence: nextSequence, typist: typist, kind: kind, payload: payload)
        nextSequence &+= 1
        heap.append(event)
        heap.withUnsafeMutableBufferPointer { heap in
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) >> 2
                guard event.precedes(heap[parent]) else { break }
                heap[child] = heap[parent]
                child = parent
            }
            heap[child] = event
        }
    }

    mutating func pop() -> ScheduledEvent? {
        guard let last = heap.popLast() else { return nil }
        guard !heap.isEmpty else { return last }
        return heap.withUnsafeMutableBufferPointer { heap in
            let top = heap[0]
            let count = heap.count
            var parent = 0
            while true {
                let first = 4 * parent + 1
                guard first < count else { break }
                var best = first
                let end = min(first + 4, count)
                var child = first + 1
                while child < end {
                    if heap[child].precedes(heap[best]) { best = child }
                    child += 1
                }
                guard heap[best].precedes(last) else { break }
                heap[parent] = heap[best]
                parent = best
            }
            heap[parent] = last
            return top
        }
    }
}
