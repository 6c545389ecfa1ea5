extension Histogram {
    /// A histogram's count per slot, in pages of 64 slots that are allocated when a slot in them
    /// is first counted.
    ///
    /// A latency histogram has 24,576 slots (196 KB dense), of which a run touches a few hundred
    /// in a few dozen neighbouring pages; a sweep holds thousands of them at once. Paged, an empty
    /// histogram costs its page table (1.5 KB) and a full one about a tenth of the dense array.
    /// Every answer depends only on the non-zero slots, so the layout never shows in output.
    ///
    /// The pages live one after another in one array, in the order they were first counted, and
    /// the table holds each page's start in it: counting a slot checks one array for uniqueness,
    /// where an array per page made it two (the table's and the page's) on every record.
    ///
    /// - Complexity: subscript and `add` O(1); `forEachNonZero` O(pages + non-zero slots).
    struct SlotCounts: Sendable {
        static let pageShift = 6
        static let pageSize = 1 << pageShift
        static let pageMask = pageSize - 1

        /// Number of slots.
        let count: Int
        /// Per page of slots, where it starts in `values`; -1: not allocated (64 zero slots).
        fileprivate private(set) var pageStarts: [Int32]
        /// The allocated pages' counts, a page after another.
        private var values: [Int64] = []

        init(count: Int) {
            self.count = count
            pageStarts = Array(repeating: -1, count: (count + Self.pageMask) >> Self.pageShift)
        }

        subscript(index: Int) -> Int64 {
            let start = pageStarts[index >> Self.pageShift]
            return start < 0 ? 0 : values[Int(start) + (index & Self.pageMask)]
        }

        /// The start in `values` of the page of slot `index`, allocating the page if need be.
        @inline(__always)
        private mutating func slot(_ index: Int) -> Int {
            let page = index >> Self.pageShift
            var start = pageStarts[page]
            if start < 0 {
                start = Int32(values.count)
                values.append(contentsOf: repeatElement(0, count: Self.pageSize))
                pageStarts[page] = start
            }
            return Int(start) + (index & Self.pageMask)
        }

        /// Adds `value` to slot `index`, trapping on overflow.
        @inline(__always)
        mutating func add(_ value: Int64, at index: Int) {
            values[slot(index)] += value
        }

        /// Adds one to slot `index`, wrapping on overflow (the recorder's per-event path).
        @inline(__always)
        mutating func increment(at index: Int) {
            values[slot(index)] &+= 1
        }

        /// Calls `body` with (slot index, count) of every non-zero slot in ascending order, until
        /// it returns `false`.
        func forEachNonZero(_ body: (Int, Int64) throws -> Bool) rethrows {
            for (number, start) in pageStarts.enumerated() where start >= 0 {
                let first = number << Self.pageShift
                for offset in 0..<Self.pageSize {
                    let value = values[Int(start) + offset]
                    guard value != 0 else { continue }
                    guard try body(first + offset, value) else { return }
                }
            }
        }
    }
}

extension Histogram.SlotCounts: Equatable {
    /// Equal when every slot holds the same count, however the pages were allocated.
    static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for page in lhs.pageStarts.indices where lhs.pageStarts[page] >= 0 || rhs.pageStarts[page] >= 0 {
            let first = page << Self.pageShift
            for index in first..<Swift.min(first + Self.pageSize, lhs.count) where lhs[index] != rhs[index] { return false }
        }
        return true
    }
}
