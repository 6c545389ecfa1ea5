/// A fixed-size set of small integers (ranks in the folded store), one bit each.
///
/// Scopes and tokens are bitsets so that narrowing by scope or OR-ing in a token costs one bit
/// test per candidate, and a token-only search is a walk over set bits.
package struct Bitset: Sendable, Hashable {
    @usableFromInline var words: [UInt64]
    package let count: Int

    package init(count: Int) {
        self.count = count
        words = [UInt64](repeating: 0, count: (count + 63) / 64)
    }

    @inlinable
    package func contains(_ i: Int) -> Bool {
        words.withUnsafeBufferPointer { $0[i >> 6] & (1 << UInt64(i & 63)) != 0 }
    }

    package mutating func insert(_ i: Int) {
        words[i >> 6] |= 1 << UInt64(i & 63)
    }

    package mutating func formUnion(_ other: Bitset) {
        for k in words.indices { words[k] |= other.words[k] }
    }

    package mutating func formIntersection(_ other: Bitset) {
        for k in words.indices { words[k] &= other.words[k] }
    }

    /// The number of members.
    /// - Complexity: O(count / 64).
    package var population: Int {
        words.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    /// The number of members below `end`.
    package func population(below end: Int) -> Int {
        var total = 0
        let full = end >> 6
        for k in 0..<full { total += words[k].nonzeroBitCount }
        if end & 63 != 0 { total += (words[full] & ((1 << UInt64(end & 63)) - 1)).nonzeroBitCount }
        return total
    }

    /// The smallest member ≥ `from`, or `nil`.
    @inlinable
    package func next(from: Int) -> Int? {
        guard from < count else { return nil }
        var k = from >> 6
        var word = words[k] & (~0 << UInt64(from & 63))
        while word == 0 {
            k += 1
            if k >= words.count { return nil }
            word = words[k]
        }
        let i = k << 6 + word.trailingZeroBitCount
        return i < count ? i : nil
    }

    /// Bytes of storage, for memory accounting.
    package var byteCount: Int { words.count * 8 }
}

/// The members of a scope or a token: a bitset when dense, a sorted list of ranks when sparse.
///
/// A bitset costs N/8 bytes however few members it has, a list 4 bytes per member; the cut is
/// where they cost the same (1/32 of the catalog), so a catalog with thousands of rare tags
/// does not pay a bitset for each. Searches turn a list into a bitset on demand.
enum RankSet: Sendable {
    case bits(Bitset)
    case ranks([UInt32])

    init(_ ranks: [UInt32], count: Int) {
        if ranks.count * 32 >= count {
            var bits = Bitset(count: count)
            for rank in ranks { bits.insert(Int(rank)) }
            self = .bits(bits)
        } else {
            self = .ranks(ranks)
        }
    }

    func add(to union: inout Bitset) {
        switch self {
        case let .bits(bits): union.formUnion(bits)
        case let .ranks(ranks): for rank in ranks { union.insert(Int(rank)) }
        }
    }

    func bitset(count: Int) -> Bitset {
        switch self {
        case let .bits(bits): return bits
        case .ranks:
            var bits = Bitset(count: count)
            add(to: &bits)
            return bits
        }
    }

    var byteCount: Int {
        switch self {
        case let .bits(bits): bits.byteCount
        case let .ranks(ranks): ranks.capacity * 4
        }
    }
}
