/// An entry a ``DeadlineWheel`` files by its deadline (run-time nanoseconds).
package protocol DeadlineFiled: DeadlineOrdered {
    var deadline: Int64 { get }
}

/// Timed entries in deadline order (ties in the order ``DeadlineOrdered`` gives), for a thread
/// that takes whatever is due: a wheel of buckets of about a millisecond over the next four
/// seconds, each put in order only when its turn comes, and a ``DeadlineHeap`` for later
/// deadlines.
///
/// A live field thread holds one entry per typist and one per timer, tens of thousands: in one
/// heap every pop walks its levels through memory the cache no longer holds. Here a push files
/// the entry in its bucket, and the entries of the bucket due next sit in a small heap that
/// stays in the cache.
///
/// - Complexity: O(1) per push; O(log b) per pop, b the entries of one bucket.
package struct DeadlineWheel<Entry: DeadlineFiled> {
    /// A bucket spans 2^20 ns (about 1.05 ms).
    static var bucketShift: Int64 { 20 }
    /// Buckets in the wheel, a power of two: 4,096 span about 4.3 s.
    static var bucketCount: Int64 { 4_096 }

    /// Every entry whose bucket is `current` or earlier, in order.
    private var near = DeadlineHeap<Entry>()
    /// The entries of buckets `current + 1 ..< current + bucketCount`, bucket `b` at
    /// `b & (bucketCount - 1)`, unordered.
    private var buckets: [[Entry]]
    private var bucketed = 0
    /// An emptied bucket's array, kept with its capacity for the next bucket that comes due, so
    /// that buckets do not grow anew from empty every 4.3 s (a reallocation and copy each
    /// doubling).
    private var spare: [Entry] = []
    /// Entries of later buckets.
    private var far = DeadlineHeap<Entry>()
    private var current: Int64 = .min

    package init() {
        buckets = Array(repeating: [], count: Int(Self.bucketCount))
    }

    package var count: Int { near.count + bucketed + far.count }
    package var isEmpty: Bool { count == 0 }

    private static func bucket(_ deadline: Int64) -> Int64 { deadline >> bucketShift }

    package mutating func push(_ entry: Entry) {
        let bucket = Self.bucket(entry.deadline)
        if current == .min {
            // The first entry starts the wheel at its bucket.
            current = bucket
        }
        if bucket <= current {
            near.push(entry)
        } else if bucket - current < Self.bucketCount {
            buckets[Int(bucket & (Self.bucketCount - 1))].append(entry)
            bucketed += 1
        } else {
            far.push(entry)
        }
    }

    /// The earliest entry.
    package mutating func first() -> Entry? {
        refill()
        return near.first
    }

    /// Removes and returns the earliest entry if it is due at `now`.
    package mutating func popDue(_ now: Int64) -> Entry? {
        refill()
        guard let top = near.first, top.deadline <= now else { return nil }
        return near.popFirst()
    }

    /// Brings the next bucket that holds entries into `near` when `near` is empty: every
    /// entry left is in a later bucket than those already in `near`, so order is kept.
    private mutating func refill() {
        while near.isEmpty {
            if bucketed == 0 {
                guard let next = far.first else { return }
                // The wheel is empty: jump to just before the far heap's first bucket.
                current = max(current, Self.bucket(next.deadline) - 1)
            }
            current += 1
            let index = Int(current & (Self.bucketCount - 1))
            if !buckets[index].isEmpty {
                swap(&buckets[index], &spare)
                bucketed -= spare.count
                for entry in spare { near.push(entry) }
                spare.removeAll(keepingCapacity: true)
            }
            // The wheel now reaches one bucket further: take the far entries it covers.
            while let next = far.first, Self.bucket(next.deadline) - current < Self.bucketCount {
                let entry = far.popFirst()
                let bucket = Self.bucket(entry.deadline)
                if bucket <= current {
                    near.push(entry)
                } else {
                    buckets[Int(bucket & (Self.bucketCount - 1))].append(entry)
                    bucketed += 1
                }
            }
        }
    }
}

/// A session's next key as a thread that types many sessions files it: slot `slot`'s key due
/// at `deadline`, `order` its place among keys of the same deadline.
package struct DueKey: DeadlineFiled, Sendable {
    package var deadline: Int64
    package var order: UInt64
    package var slot: Int

    package init(deadline: Int64, order: UInt64, slot: Int) {
        self.deadline = deadline
        self.order = order
        self.slot = slot
    }

    package func precedes(_ other: DueKey) -> Bool {
        deadline != other.deadline ? deadline < other.deadline : order < other.order
    }
}

/// A ``DeadlineWheel`` of ``DueKey``s, compiled here at that type: a caller in another module
/// gets the specialised wheel (a generic one called from there ran unspecialised, with a
/// metadata look-up on every call).
package struct KeyDeadlines {
    private var wheel = DeadlineWheel<DueKey>()

    package init() {}

    package mutating func push(_ key: DueKey) { wheel.push(key) }

    /// The earliest key.
    package mutating func first() -> DueKey? { wheel.first() }

    /// Removes and returns the earliest key if it is due at `now`.
    package mutating func popDue(_ now: Int64) -> DueKey? { wheel.popDue(now) }
}
