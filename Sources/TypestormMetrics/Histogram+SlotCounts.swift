extension Histogram {
    /// A histogram's count per slot, in pages of 64 slots that are allocated when a slot in them
    /// is first counted.
    ///
    /// A latency histogram has 24,576 slots (196 KB dense), of which a run touches a few hundred
    /// in a few dozen neighbouring pages; a sweep holds thousands of them at once. Paged, an empty
    /// histogram costs its page table (3 KB) and a full one about a tenth of the dense array.
    /// Every answer depends only on the non-zero slots, so the layout never shows in output.
    ///
    /// - Complexity: subscript and `add` O(1); `forEachNonZero` O(pages + non-zero slots).
    struct SlotCounts: Sendable {
        static let pageShift = 6
        static let pageSize = 1 << pageShift
        static let pageMask = pageSize - 1

        /// Number of slots.
        let count: Int
        /// An empty page stands for 64 zero slots.
        private var pages: [[Int64]]

        init(count: Int) {
            self.count = count
            pages = Array(repeating: [], count: (count + Self.pageMask) >> Self.pageShift)
        }

        subscript(index: Int) -> Int64 {
            let page = pages[index >> Self.pageShift]
            return page.isEmpty ? 0 : page[index & Self.pageMask]
        }

        /// Adds `value` to slot `index`, trapping on overflow.
        @inline(__always)
        mutating func add(_ value: Int64, at index: Int) {
            let page = index >> Self.pageShift
            if pages[page].isEmpty { pages[page] = [Int64](repeating: 0, count: Self.pageSize) }
            pages[page][index & Self.pageMask] += value
        }

        /// Adds one to slot `index`, wrapping on overflow (the recorder's per-event path).
        @inline(__always)
        mutating func increment(at index: Int) {
            let page = index >> Self.pageShift
            if pages[page].isEmpty { pages[page] = [Int64](repeating: 0, count: Self.pageSize) }
            pages[page][index & Self.pageMask] &+= 1
        }

        /// Calls `body` with (slot index, count) of every non-zero slot in ascending order, until
        /// it returns `false`.
        func forEachNonZero(_ body: (Int, Int64) throws -> Bool) rethrows {
            for (number, page) in pages.enumerated() where !page.isEmpty {
                let first = number << Self.pageShift
                for offset in page.indices where page[offset] != 0 {
                    guard try body(first + offset, page[offset]) else { return }
                }
            }
        }
    }
}

extension Histogram.SlotCounts: Equatable {
    /// Equal when every slot holds the same count, however the pages were allocated.
    static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for page in lhs.pages.indices {
            let a = lhs.pages[page], b = rhs.pages[page]
            if a.isEmpty && b.isEmpty { continue }
            for offset in 0..<Self.pageSize {
                if (a.isEmpty ? 0 : a[offset]) != (b.isEmpty ? 0 : b[offset]) { return false }
            }
        }
        return true
    }
}
