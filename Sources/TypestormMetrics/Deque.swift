/// A first-in, first-out queue on a ring buffer: O(1) append and removal at the front, storage
/// that grows by doubling and is reused as the queue wraps around.
///
/// The one queue of waiting work in Typestorm: the modelled servers' request queues (in virtual
/// time and in the model-driven live backend), the in-process engine backend's jobs and the HTTP
/// server's worker pool all hold their backlog in it. A slot is emptied when its element leaves, so the queue keeps no reference to
/// work it handed out (a job that captures its owner must not keep it alive from an old slot).
///
/// Generic code in another module runs unspecialised unless it is inlinable; the methods are, so
/// the simulator's per-request queue operations compile to plain array accesses.
package struct Deque<Element> {
    /// The slots, a power of two in number (or none); `nil` outside the live range.
    @usableFromInline var slots: ContiguousArray<Element?>
    /// The slot of the first element.
    @usableFromInline var head: Int
    /// Elements held.
    @usableFromInline var held: Int

    /// An empty queue with room for `minimumCapacity` elements before it first grows.
    @inlinable
    package init(minimumCapacity: Int = 0) {
        var size = 0
        if minimumCapacity > 0 {
            size = 1
            while size < minimumCapacity { size <<= 1 }
        }
        slots = ContiguousArray(repeating: nil, count: size)
        head = 0
        held = 0
    }

    /// Elements waiting.
    @inlinable package var count: Int { held }
    @inlinable package var isEmpty: Bool { held == 0 }
    /// Elements it can hold before it grows.
    @inlinable package var capacity: Int { slots.count }

    /// The element that leaves next, if any.
    @inlinable package var first: Element? { held == 0 ? nil : slots[head] }

    /// Adds `element` at the back.
    ///
    /// - Complexity: amortised O(1).
    @inlinable
    package mutating func append(_ element: Element) {
        if held == slots.count { grow() }
        slots[(head &+ held) & (slots.count &- 1)] = element
        held &+= 1
    }

    /// Removes and returns the front element, or nil when the queue is empty.
    ///
    /// - Complexity: O(1).
    @inlinable
    package mutating func popFirst() -> Element? {
        guard held > 0 else { return nil }
        let element = slots[head].take()
        head = (head &+ 1) & (slots.count &- 1)
        held &-= 1
        return element
    }

    /// Removes the first element (from the front) that satisfies `predicate` and returns it;
    /// the others keep their order.
    ///
    /// - Complexity: O(n).
    @inlinable
    package mutating func removeFirst(where predicate: (Element) throws -> Bool) rethrows -> Element? {
        let mask = slots.count &- 1
        for offset in 0..<held {
            let slot = (head &+ offset) & mask
            guard try predicate(slots[slot]!) else { continue }
            let element = slots[slot].take()
            // Close the gap: move the later elements one slot forward.
            var index = offset
            while index < held &- 1 {
                slots[(head &+ index) & mask] = slots[(head &+ index &+ 1) & mask].take()
                index &+= 1
            }
            held &-= 1
            return element
        }
        return nil
    }

    /// Removes every element and returns them, front first.
    @inlinable
    package mutating func removeAll() -> [Element] {
        var all: [Element] = []
        all.reserveCapacity(held)
        while let element = popFirst() { all.append(element) }
        head = 0
        return all
    }

    /// Twice the slots (at least 4), the elements moved to the front in order.
    @usableFromInline
    mutating func grow() {
        var bigger = ContiguousArray<Element?>(repeating: nil, count: Swift.max(4, slots.count &* 2))
        let mask = slots.count &- 1
        for offset in 0..<held { bigger[offset] = slots[(head &+ offset) & mask].take() }
        slots = bigger
        head = 0
    }
}

extension Deque: Sendable where Element: Sendable {}

extension Array {
    /// `remove(at:)` with the common case first: the lists of open work a field or a typist's
    /// record keeps hold one or two entries, and the one taken is usually the last, which
    /// `removeLast` takes without moving any (`remove(at:)` calls to move the rest even when
    /// there is none).
    @inlinable @inline(__always)
    package mutating func removeMostlyLast(at index: Int) -> Element {
        index == count - 1 ? removeLast() : remove(at: index)
    }
}
