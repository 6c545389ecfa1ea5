/// An n-gram index over the folded store: for each gram bucket, the ranks whose names contain
/// it, as delta-encoded LEB128 varints (Russ Cox's "Regular Expression Matching with a Trigram
/// Index", on bytes; FTS5 trigram and pg_trgm work the same way).
///
/// Two of them serve the engine:
/// - `trigrams`: every byte trigram, hashed into at most 2^20 buckets (a collision only adds
///   candidates, and candidates are verified). Buckets holding more than 1/64 of the catalog are
///   *dropped* (only counted): a query made only of such trigrams is common, the scan answers it
///   faster than a long list would, and dropping them keeps the index small.
/// - `bigrams`: exact, for two-byte queries (two ASCII characters or one two-byte character),
///   which have no trigram: one bucket per byte pair, indexed only where the pair is two ASCII
///   bytes or one whole two-byte character, so a two-byte query's list is its exact answer.
///
/// Gaps between ranks are small in dense lists (one byte) and large only in short ones, so the
/// lists take 1–2 bytes per posting instead of 4.
struct GramIndex: Sendable {
    enum Kind: Sendable { case trigrams, bigrams }

    let kind: Kind
    let bucketBits: Int
    /// Per bucket: how many names hold the gram (kept for dropped buckets too).
    let counts: [UInt32]
    /// `buckets + 1` byte offsets into `data`; a dropped bucket has an empty range.
    let offsets: [UInt32]
    let data: [UInt8]
    /// Buckets with more names than this are dropped.
    let dropThreshold: Int

    enum Lookup: Equatable {
        /// No name contains this gram.
        case absent
        /// Too common to be indexed; the count is exact for bigrams, an upper bound for trigrams.
        case dropped(count: Int)
        case postings(bucket: Int, count: Int)
    }

    var gramLength: Int { kind == .trigrams ? 3 : 2 }

    @inline(__always)
    static func trigramBucket(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, bits: Int) -> Int {
        let key = UInt32(b0) << 16 | UInt32(b1) << 8 | UInt32(b2)
        return Int((key &* 0x9E37_79B1) >> UInt32(32 - bits))
    }

    /// Whether a byte pair is indexed by the bigram index: two ASCII bytes, or a lead byte of a
    /// two-byte character and its continuation byte.
    @inline(__always)
    static func bigramIndexed(_ b0: UInt8, _ b1: UInt8) -> Bool {
        (b0 < 0x80 && b1 < 0x80) || (b0 >= 0xC2 && b0 <= 0xDF && b1 & 0xC0 == 0x80)
    }

    init(store: FoldedStore, kind: Kind) {
        self.kind = kind
        let n = store.count
        let bits: Int
        let threshold: Int
        switch kind {
        case .trigrams:
            var b = 10
            while b < 20 && (1 << b) < n * 4 { b += 1 }
            bits = b
            threshold = max(256, n / 64)
        case .bigrams:
            bits = 16
            threshold = Int.max
        }
        bucketBits = bits
        dropThreshold = threshold
        let buckets = 1 << bits
        var counts = [UInt32](repeating: 0, count: buckets)
        var sizes = [UInt32](repeating: 0, count: buckets)
        var last = [UInt32](repeating: 0, count: buckets)
        // Pass 1: per bucket, the number of names and the bytes their gaps take.
        Self.forEachGram(store, kind: kind, bits: bits) { bucket, rank in
            let tag = UInt32(rank + 1)
            if last[bucket] == tag { return }
            let gap = tag - last[bucket] - 1
            last[bucket] = tag
            counts[bucket] &+= 1
            sizes[bucket] &+= UInt32(Self.varintSize(gap))
        }
        var offsets = [UInt32](repeating: 0, count: buckets + 1)
        var total = 0
        for b in 0..<buckets {
            offsets[b] = UInt32(total)
            if Int(counts[b]) <= threshold { total += Int(sizes[b]) }
        }
        offsets[buckets] = UInt32(total)
        precondition(total < Int(UInt32.max), "gram index exceeds 4 GiB")
        sizes = []
        // Pass 2: write the varints.
        var data = [UInt8](repeating: 0, count: total)
        var cursor = offsets
        for b in 0..<buckets { last[b] = 0 }
        data.withUnsafeMutableBufferPointer { data in
            Self.forEachGram(store, kind: kind, bits: bits) { bucket, rank in
                let tag = UInt32(rank + 1)
                if last[bucket] == tag { return }
                var gap = tag - last[bucket] - 1
                last[bucket] = tag
                guard Int(counts[bucket]) <= threshold else { return }
                var c = Int(cursor[bucket])
                while gap >= 0x80 {
                    data[c] = UInt8(truncatingIfNeeded: gap) | 0x80
                    gap >>= 7
                    c += 1
                }
                data[c] = UInt8(gap)
                cursor[bucket] = UInt32(c + 1)
            }
        }
        self.counts = counts
        self.offsets = offsets
        self.data = data
    }

    @inline(__always)
    static func varintSize(_ value: UInt32) -> Int {
        value < 1 << 7 ? 1 : value < 1 << 14 ? 2 : value < 1 << 21 ? 3 : value < 1 << 28 ? 4 : 5
    }

    /// Calls `body(bucket, rank)` for every gram of every name, rank by rank.
    @inline(__always)
    private static func forEachGram(_ store: FoldedStore, kind: Kind, bits: Int, _ body: (Int, Int) -> Void) {
        store.bytes.withUnsafeBufferPointer { bytes in
            store.starts.withUnsafeBufferPointer { starts in
                for rank in 0..<store.count {
                    let from = Int(starts[rank]), to = Int(starts[rank + 1]) - 1
                    switch kind {
                    case .trigrams:
                        guard to - from >= 3 else { continue }
                        for i in from..<(to - 2) {
                            body(trigramBucket(bytes[i], bytes[i + 1], bytes[i + 2], bits: bits), rank)
                        }
                    case .bigrams:
                        guard to - from >= 2 else { continue }
                        for i in from..<(to - 1) where bigramIndexed(bytes[i], bytes[i + 1]) {
                            body(Int(bytes[i]) << 8 | Int(bytes[i + 1]), rank)
                        }
                    }
                }
            }
        }
    }

    /// The bucket of the gram starting at `pattern[i]`.
    func lookup(_ pattern: [UInt8], at i: Int) -> Lookup {
        let bucket: Int
        switch kind {
        case .trigrams: bucket = Self.trigramBucket(pattern[i], pattern[i + 1], pattern[i + 2], bits: bucketBits)
        case .bigrams: bucket = Int(pattern[i]) << 8 | Int(pattern[i + 1])
        }
        let count = Int(counts[bucket])
        if count == 0 { return .absent }
        if count > dropThreshold { return .dropped(count: count) }
        return .postings(bucket: bucket, count: count)
    }

    /// The ranks of a bucket, ascending.
    func decode(_ bucket: Int) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(Int(counts[bucket]))
        forEach(bucket) { out.append($0) }
        return out
    }

    @inline(__always)
    func forEach(_ bucket: Int, _ body: (UInt32) -> Void) {
        forEachWhile(bucket) { body($0); return true }
    }

    /// Calls `body` with the bucket's ranks in order until it returns false.
    @inline(__always)
    func forEachWhile(_ bucket: Int, _ body: (UInt32) -> Bool) {
        data.withUnsafeBufferPointer { data in
            var p = Int(offsets[bucket])
            let end = Int(offsets[bucket + 1])
            var previous: UInt32 = 0
            while p < end {
                var value: UInt32 = 0
                var shift: UInt32 = 0
                var byte: UInt8
                repeat {
                    byte = data[p]
                    p += 1
                    value |= UInt32(byte & 0x7F) << shift
                    shift += 7
                } while byte & 0x80 != 0
                previous &+= value &+ 1
                if !body(previous &- 1) { return }
            }
        }
    }

    /// The members of `candidates` (ascending) that are also in `bucket`.
    func intersect(_ candidates: [UInt32], _ bucket: Int) -> [UInt32] {
        var kept: [UInt32] = []
        kept.reserveCapacity(candidates.count)
        var k = 0
        candidates.withUnsafeBufferPointer { candidates in
            forEach(bucket) { rank in
                while k < candidates.count && candidates[k] < rank { k += 1 }
                if k < candidates.count && candidates[k] == rank {
                    kept.append(rank)
                    k += 1
                }
            }
        }
        return kept
    }

    /// Bytes held, for memory accounting.
    var byteCount: Int { counts.capacity * 4 + offsets.capacity * 4 + data.capacity }
}
