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

/// The runner's agenda: events in (time, sequence) order, on a timing wheel.
///
/// Nearly every event is due within a few seconds (keys, debounce and stalled timers, network
/// and service steps), and many are timers that were cancelled and will be skipped when they
/// come up. The wheel files each event in a slot of 2^20 ns (about 1 ms) in O(1); `pop` walks to
/// the next occupied slot through a bitmap and sorts that slot's few events once. Events beyond
/// the wheel's 4,096 slots (about 4.3 s) wait in a heap and move onto the wheel as it turns.
/// A binary heap over everything, before, spent a tenth of a simulated keystroke on ordering.
///
/// The order is exactly the heap's: by time, then by push order (tested against it).
///
/// - Complexity: O(1) push; pop O(1) amortized plus the slot sort and the bitmap walk.
struct EventQueue: Sendable {
    static let slotShift: UInt64 = 20
    static let wheelSlots = 4096
    static let mask = UInt64(wheelSlots - 1)

    /// The absolute slot being consumed; `current` holds its events, sorted descending so
    /// that the next one is the last.
    private var base: UInt64 = 0
    private var current: [ScheduledEvent] = []
    /// Events of slots `base + 1 ..< base + wheelSlots`, as one singly linked list per wheel
    /// slot (`heads[slot & mask]`, then `links`) through a pool of nodes, so filing an event
    /// touches two flat arrays instead of growing a small array per slot.
    private var heads: [Int32]
    private var pool: [ScheduledEvent] = []
    private var links: [Int32] = []
    private var free: Int32 = -1
    private var occupied: [UInt64]
    private var overflow = EventHeap()
    private(set) var count = 0
    var nextSequence: UInt64 = 0

    init(capacity: Int = 0) {
        heads = Array(repeating: -1, count: Self.wheelSlots)
        occupied = Array(repeating: 0, count: Self.wheelSlots / 64)
        current.reserveCapacity(16)
        pool.reserveCapacity(capacity)
        links.reserveCapacity(capacity)
        overflow = EventHeap(capacity: capacity / 4)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    static func slot(_ event: ScheduledEvent) -> UInt64 {
        UInt64(truncatingIfNeeded: event.order >> 64) >> slotShift
    }

    mutating func push(_ time: Int64, _ kind: ScheduledEvent.Kind, typist: Int32, payload: UInt64 = 0) {
        let event = ScheduledEvent(time: time, sequence: nextSequence, typist: typist, kind: kind, payload: payload)
        nextSequence &+= 1
        let slot = Self.slot(event)
        // An empty queue starts over at this event (the runner's next cell starts at time 0).
        if count == 0 { base = slot }
        count += 1
        if slot <= base {
            insertCurrent(event)
        } else if slot - base < UInt64(Self.wheelSlots) {
            file(event, slot: slot)
        } else {
            overflow.push(event)
        }
    }

    @inline(__always)
    private mutating func file(_ event: ScheduledEvent, slot: UInt64) {
        let index = Int(slot & Self.mask)
        let node: Int32
        if free >= 0 {
            node = free
            free = links[Int(node)]
            pool[Int(node)] = event
            links[Int(node)] = heads[index]
        } else {
            node = Int32(pool.count)
            pool.append(event)
            links.append(heads[index])
        }
        heads[index] = node
        occupied[index >> 6] |= 1 << UInt64(index & 63)
    }

    /// Into the sorted (descending) events of the current slot: usually at the front, as a
    /// new event comes after everything already due.
    private mutating func insertCurrent(_ event: ScheduledEvent) {
        current.append(event)
        current.withUnsafeMutableBufferPointer { run in
            var index = run.count - 1
            while index > 0, run[index - 1].precedes(event) {
                run[index] = run[index - 1]
                index -= 1
            }
            run[index] = event
        }
    }

    mutating func pop() -> ScheduledEvent? {
        if let next = current.popLast() {
            count -= 1
            return next
        }
        guard count > 0 else { return nil }
        advance()
        count -= 1
        return current.popLast()
    }

    /// Moves `base` to the next slot with events and loads them into `current`, sorted.
    private mutating func advance() {
        var next = nextOccupied()
        if let first = overflow.first {
            let slot = Self.slot(first)
            if next == nil || slot < next! { next = slot }
        }
        // `count > 0`: some slot holds an event.
        let target = next!
        base = target
        let index = Int(target & Self.mask)
        var node = heads[index]
        if node >= 0 {
            heads[index] = -1
            occupied[index >> 6] &= ~(1 << UInt64(index & 63))
            while node >= 0 {
                current.append(pool[Int(node)])
                let following = links[Int(node)]
                links[Int(node)] = free
                free = node
                node = following
            }
        }
        // The horizon moved: bring the heap's events inside it onto the wheel.
        while let first = overflow.first, Self.slot(first) - base < UInt64(Self.wheelSlots) {
            let event = overflow.pop()!
            let slot = Self.slot(event)
            if slot == base {
                current.append(event)
            } else {
                file(event, slot: slot)
            }
        }
        // A slot holds a few events: insertion sort, descending.
        current.withUnsafeMutableBufferPointer { run in
            guard run.count > 1 else { return }
            for i in 1..<run.count {
                let event = run[i]
                var j = i
                while j > 0, run[j - 1].precedes(event) {
                    run[j] = run[j - 1]
                    j -= 1
                }
                run[j] = event
            }
        }
    }

    /// The absolute slot of the first occupied wheel slot after `base`, if any.
    private func nextOccupied() -> UInt64? {
        let start = Int((base + 1) & Self.mask)
        let words = occupied.count
        var word = start >> 6
        var bits = occupied[word] & (~0 << UInt64(start & 63))
        for step in 0...words {
            if bits != 0 {
                let index = (word << 6) | bits.trailingZeroBitCount
                let distance = (index - start + Self.wheelSlots) & Int(Self.mask)
                return base + 1 + UInt64(distance)
            }
            guard step < words else { break }
            word = (word + 1) % words
            bits = occupied[word]
            // Back at the start word: only the bits before `start` are left.
            if word == start >> 6 { bits &= (1 << UInt64(start & 63)) &- 1 }
        }
        return nil
    }
}

/// A 4-ary min-heap of events ordered by (time, sequence): half the depth of a binary heap,
/// and the four children of a node share a cache line or two. `EventQueue` keeps the events
/// beyond its wheel's horizon here.
///
/// - Complexity: O(log n) push and pop, no allocation once the storage has grown.
struct EventHeap: Sendable {
    var heap: [ScheduledEvent] = []

    init(capacity: Int = 0) {
        heap.reserveCapacity(capacity)
    }

    var count: Int { heap.count }
    var isEmpty: Bool { heap.isEmpty }
    var first: ScheduledEvent? { heap.first }

    mutating func push(_ event: ScheduledEvent) {
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
