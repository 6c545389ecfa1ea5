/// What a ``DeadlineHeap`` orders: earlier deadlines first, ties in the order they were scheduled.
package protocol DeadlineOrdered {
    /// Whether this entry comes before `other`.
    func precedes(_ other: Self) -> Bool
}

/// A binary min-heap of timed entries, for the threads that wait for their earliest deadline
/// (the live field threads, the modelled backend's timer, and the typing of a field of yours).
package struct DeadlineHeap<Entry: DeadlineOrdered> {
    package private(set) var entries: [Entry] = []

    package init(capacity: Int = 0) { entries.reserveCapacity(capacity) }

    /// The earliest entry.
    package var first: Entry? { entries.first }
    package var isEmpty: Bool { entries.isEmpty }
    package var count: Int { entries.count }

    package mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry (the heap must not be empty).
    package mutating func popFirst() -> Entry {
        let top = entries[0]
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            let count = entries.count
            while true {
                let left = 2 * parent + 1, right = left + 1
                var first = parent
                if left < count, entries[left].precedes(entries[first]) { first = left }
                if right < count, entries[right].precedes(entries[first]) { first = right }
                if first == parent { break }
                entries.swapAt(parent, first)
                parent = first
            }
        }
        return top
    }

    package mutating func removeAll() { entries.removeAll() }
}
