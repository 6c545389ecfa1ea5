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
/// come up. The wheel files each event in a slot of 2^22 ns (about 4 ms) in O(1); `pop` walks to
/// the next occupied slot through a bitmap and sorts that slot's few events once. Events beyond
/// the wheel's 4,096 slots (about 17 s) wait in a heap and move onto the wheel as it turns.
/// The slot is that wide so that, at a server cell's density (a hundred typists), a slot holds a
/// few events: with 1 ms slots nearly every pop walked the bitmap and took a slot of one.
/// A binary heap over everything, before, spent a tenth of a simulated keystroke on ordering.
///
/// The order is exactly the heap's: by time, then by push order (tested against it).
///
/// A class, not a value: the runner's world owns its one queue and never copies it, and a
/// value's copy-on-write check cost a call on every push, pop and removal.
///
/// - Complexity: O(1) push; pop O(1) amortized plus the slot sort and the bitmap walk.
final class EventQueue {
    static let slotShift: UInt64 = 22
    static let wheelSlots = 4096
    static let mask = UInt64(wheelSlots - 1)

    /// The wheel's memory (see `Wheel`).
    private let wheel: Wheel
    /// Only ever mutated by this queue's own methods, which never overlap: no dynamic exclusivity
    /// check on each access.
    @exclusivity(unchecked) private var overflow = EventHeap()
    private(set) var count = 0
    var nextSequence: UInt64 = 0

    init(capacity: Int = 0) {
        wheel = Wheel(capacity: max(64, capacity))
        wheel.base = Self.slot(time: 0)
        overflow = EventHeap(capacity: capacity / 4)
    }

    /// The wheel's slot of virtual time `time`.
    @inline(__always)
    static func slot(time: Int64) -> UInt64 {
        (UInt64(bitPattern: time) ^ (1 << 63)) >> slotShift
    }

    /// Turns the empty wheel to `time`: the events pushed next are due at `time` or later (the
    /// runner's next cell starts at time 0 again). Without it the wheel stays where it was,
    /// and events before it are sorted into the slot being consumed, which grows long.
    func restart(at time: Int64) {
        precondition(count == 0, "restart(at:) with events queued")
        wheel.base = Self.slot(time: time)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    static func slot(_ event: ScheduledEvent) -> UInt64 {
        UInt64(truncatingIfNeeded: event.order >> 64) >> slotShift
    }

    func push(_ time: Int64, _ kind: ScheduledEvent.Kind, typist: Int32, payload: UInt64 = 0) {
        let event = ScheduledEvent(time: time, sequence: nextSequence, typist: typist, kind: kind, payload: payload)
        nextSequence &+= 1
        let slot = Self.slot(event)
        // An empty queue pushed into its past moves back to this event. It never moves forward
        // here: the next event pushed may be due before this one.
        if count == 0, slot < wheel.base { wheel.base = slot }
        count += 1
        let base = wheel.base
        if slot <= base {
            wheel.insertCurrent(event)
        } else if slot - base < UInt64(Self.wheelSlots) {
            wheel.file(event, slot: slot)
        } else {
            overflow.push(event)
        }
    }

    /// Takes the event of `kind` for `typist` with `payload`, due at `time`, off the queue, if it
    /// is on the wheel; `false` if it is not there (already popped, or beyond the wheel's
    /// horizon, where it stays). The other events keep their order.
    func remove(_ time: Int64, _ kind: ScheduledEvent.Kind, typist: Int32, payload: UInt64) -> Bool {
        guard count > 0 else { return false }
        let slot = Self.slot(time: time)
        let removed: Bool
        if slot <= wheel.base {
            removed = wheel.removeCurrent(kind, typist: typist, payload: payload)
        } else if slot - wheel.base < UInt64(Self.wheelSlots) {
            removed = wheel.removeFiled(slot: slot, kind, typist: typist, payload: payload)
        } else {
            removed = false
        }
        if removed { count -= 1 }
        return removed
    }

    func pop() -> ScheduledEvent? {
        guard count > 0 else { return nil }
        if wheel.currentCount == 0 { advance() }
        count -= 1
        return wheel.popCurrent()
    }

    /// Moves the wheel to the next slot with events and loads them into its current run.
    private func advance() {
        var next = wheel.nextOccupied()
        if let first = overflow.first {
            let slot = Self.slot(first)
            if next == nil || slot < next! { next = slot }
        }
        // `count > 0`: some slot holds an event.
        wheel.base = next!
        wheel.takeSlot()
        // The horizon moved: bring the heap's events inside it onto the wheel.
        while let first = overflow.first, Self.slot(first) - wheel.base < UInt64(Self.wheelSlots) {
            let event = overflow.pop()!
            let slot = Self.slot(event)
            if slot == wheel.base {
                wheel.appendCurrent(event)
            } else {
                wheel.file(event, slot: slot)
            }
        }
        wheel.sortCurrent()
    }
}

/// The timing wheel's memory: one singly linked list of events per slot (`heads`, `links`)
/// through a pool of nodes, an occupancy bitmap, and the run of the slot being consumed.
///
private final class Wheel {
    /// The absolute slot being consumed; `current` holds its events sorted descending, so that
    /// the next one is the last. Wheel slot `s & mask` holds slot `s` in `base + 1 ..< base + wheelSlots`.
    var base: UInt64 = 0
    let heads: UnsafeMutablePointer<Int32>
    let occupied: UnsafeMutablePointer<UInt64>
    var pool: UnsafeMutablePointer<ScheduledEvent>
    var links: UnsafeMutablePointer<Int32>
    var poolCount = 0
    var poolCapacity: Int
    var free: Int32 = -1
    var current: UnsafeMutablePointer<ScheduledEvent>
    var currentCount = 0
    var currentCapacity = 16

    static let words = EventQueue.wheelSlots / 64

    init(capacity: Int) {
        heads = .allocate(capacity: EventQueue.wheelSlots)
        heads.initialize(repeating: -1, count: EventQueue.wheelSlots)
        occupied = .allocate(capacity: Self.words)
        occupied.initialize(repeating: 0, count: Self.words)
        poolCapacity = capacity
        pool = .allocate(capacity: capacity)
        links = .allocate(capacity: capacity)
        current = .allocate(capacity: currentCapacity)
    }

    deinit {
        // `ScheduledEvent` and the integers are trivial: nothing to deinitialize.
        heads.deallocate()
        occupied.deallocate()
        pool.deallocate()
        links.deallocate()
        current.deallocate()
    }

    @inline(__always)
    func file(_ event: ScheduledEvent, slot: UInt64) {
        let index = Int(slot & EventQueue.mask)
        let node: Int32
        if free >= 0 {
            node = free
            free = links[Int(node)]
        } else {
            if poolCount == poolCapacity { growPool() }
            node = Int32(poolCount)
            poolCount += 1
        }
        (pool + Int(node)).initialize(to: event)
        links[Int(node)] = heads[index]
        heads[index] = node
        occupied[index >> 6] |= 1 << UInt64(index & 63)
    }

    private func growPool() {
        let capacity = poolCapacity * 2
        let newPool = UnsafeMutablePointer<ScheduledEvent>.allocate(capacity: capacity)
        newPool.moveInitialize(from: pool, count: poolCount)
        pool.deallocate()
        pool = newPool
        let newLinks = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        newLinks.moveInitialize(from: links, count: poolCount)
        links.deallocate()
        links = newLinks
        poolCapacity = capacity
    }

    func growCurrent(to minimum: Int) {
        var capacity = currentCapacity
        while capacity < minimum { capacity *= 2 }
        let run = UnsafeMutablePointer<ScheduledEvent>.allocate(capacity: capacity)
        run.moveInitialize(from: current, count: currentCount)
        current.deallocate()
        current = run
        currentCapacity = capacity
    }

    @inline(__always)
    func appendCurrent(_ event: ScheduledEvent) {
        if currentCount == currentCapacity { growCurrent(to: currentCount + 1) }
        (current + currentCount).initialize(to: event)
        currentCount += 1
    }

    @inline(__always)
    func popCurrent() -> ScheduledEvent {
        currentCount -= 1
        return (current + currentCount).move()
    }

    /// Into the sorted (descending) run: usually at its front, as a new event comes after
    /// everything already due.
    @inline(__always)
    func insertCurrent(_ event: ScheduledEvent) {
        appendCurrent(event)
        sift(currentCount - 1)
    }

    /// Removes the first event matching (`kind`, `typist`, `payload`) from the current run.
    func removeCurrent(_ kind: ScheduledEvent.Kind, typist: Int32, payload: UInt64) -> Bool {
        var index = currentCount - 1
        while index >= 0 {
            let event = current[index]
            if event.typist == typist && event.kind == kind && event.payload == payload {
                // Trivial values: moved down over the removed one (the regions may overlap).
                (current + index).moveInitialize(from: current + index + 1, count: currentCount - index - 1)
                currentCount -= 1
                return true
            }
            index -= 1
        }
        return false
    }

    /// Removes the first event matching (`kind`, `typist`, `payload`) from wheel slot `slot`.
    func removeFiled(slot: UInt64, _ kind: ScheduledEvent.Kind, typist: Int32, payload: UInt64) -> Bool {
        let index = Int(slot & EventQueue.mask)
        var previous: Int32 = -1
        var node = heads[index]
        while node >= 0 {
            let event = pool[Int(node)]
            if event.typist == typist && event.kind == kind && event.payload == payload {
                let following = links[Int(node)]
                if previous >= 0 { links[Int(previous)] = following } else { heads[index] = following }
                if heads[index] < 0 { occupied[index >> 6] &= ~(1 << UInt64(index & 63)) }
                links[Int(node)] = free
                free = node
                return true
            }
            previous = node
            node = links[Int(node)]
        }
        return false
    }

    /// Moves the events of wheel slot `base` into the current run (unsorted) and frees their nodes.
    @inline(__always)
    func takeSlot() {
        let index = Int(base & EventQueue.mask)
        var node = heads[index]
        guard node >= 0 else { return }
        heads[index] = -1
        occupied[index >> 6] &= ~(1 << UInt64(index & 63))
        while node >= 0 {
            appendCurrent((pool + Int(node)).move())
            let following = links[Int(node)]
            links[Int(node)] = free
            free = node
            node = following
        }
    }

    /// A slot holds a few events: insertion sort, descending.
    @inline(__always)
    func sortCurrent() {
        guard currentCount > 1 else { return }
        for i in 1..<currentCount { sift(i) }
    }

    /// Moves the event at `index` down the run until the run is descending up to `index`
    /// (one step of insertion sort).
    @inline(__always)
    private func sift(_ index: Int) {
        let event = current[index]
        var index = index
        while index > 0, current[index - 1].precedes(event) {
            current[index] = current[index - 1]
            index -= 1
        }
        current[index] = event
    }

    /// The absolute slot of the first occupied wheel slot after `base`, if any.
    @inline(__always)
    func nextOccupied() -> UInt64? {
        let start = Int((base + 1) & EventQueue.mask)
        let words = Self.words
        var word = start >> 6
        var bits = occupied[word] & (~0 << UInt64(start & 63))
        for step in 0...words {
            if bits != 0 {
                let index = (word << 6) | bits.trailingZeroBitCount
                let distance = (index - start + EventQueue.wheelSlots) & Int(EventQueue.mask)
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
