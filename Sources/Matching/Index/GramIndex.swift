import Dispatch
import TypestormSystem

/// An n-gram index over the folded store: for each gram bucket, the ranks whose names contain
/// it, as an Elias–Fano coded ascending list (Russ Cox's "Regular Expression Matching with a
/// Trigram Index", on bytes; FTS5 trigram and pg_trgm keep the same lists).
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
/// Elias–Fano: a list of `c` ranks below `n` keeps the low `L = ⌊log2(n / c)⌋` bits of each
/// rank packed side by side, and the high bits as a unary bit vector (rank `k` with high part
/// `h` sets bit `h + k`), so a list takes about `c · (L + 2)` bits: 3 bits per posting in a list
/// holding half the catalog, 9 in one holding 1/128 of it. It is read in order with one
/// trailing-zero count per posting. The two parts of a bucket are each whole bytes, so buckets
/// never share a byte and are built on several cores at once.
struct GramIndex: Sendable {
    enum Kind: Sendable { case trigrams, bigrams }

    let kind: Kind
    let bucketBits: Int
    /// The number of ranks (the lists' universe).
    let universe: Int
    /// Per bucket: how many names hold the gram (kept for dropped buckets too).
    let counts: [UInt32]
    /// `buckets + 1` byte offsets into `data`; a dropped bucket has an empty range.
    let offsets: [UInt32]
    /// The lists, then `Self.padding` zero bytes so that 8-byte reads near the end stay inside.
    let data: [UInt8]
    /// Buckets with more names than this are dropped.
    let dropThreshold: Int

    static let padding = 8
    /// The most bytes of lists an index holds: what its 32-bit offsets address.
    static let byteLimit = Int(UInt32.max) - padding

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

    /// The low-bit width of a list of `count` ranks below `universe`.
    @inline(__always)
    static func lowBits(count: Int, universe: Int) -> Int {
        guard count > 0, universe > count else { return 0 }
        return Int.bitWidth - 1 - (universe / count).leadingZeroBitCount
    }

    /// Bytes of a list's low part and of its high part.
    @inline(__always)
    static func partSizes(count: Int, universe: Int) -> (low: Int, high: Int) {
        guard count > 0 else { return (0, 0) }
        let l = lowBits(count: count, universe: universe)
        return ((count * l + 7) / 8, (count + (universe >> l) + 1 + 7) / 8)
    }

    /// Builds the index of `kind` over `store`, on `parts` threads (each owns a share of the
    /// buckets and reads every name; default: one per core, one for a store under 1 MiB).
    ///
    /// - Throws: `SearchEngine.CapacityError` when the lists would not fit the 32-bit offsets.
    init(store: FoldedStore, kind: Kind, parts requestedParts: Int? = nil, byteLimit: Int = GramIndex.byteLimit) throws(SearchEngine.CapacityError) {
        self.kind = kind
        let n = store.count
        universe = n
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
        let parts = max(1, requestedParts ?? (store.scannedByteCount < 1 << 20 ? 1 : Processors.active))
        let counts = BucketTable(count: buckets)
        let last = BucketTable(count: buckets)
        defer { counts.free(); last.free() }
        // Pass 1: per bucket, the number of names holding the gram.
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            Self.forEachGram(store, kind: kind, bits: bits) { bucket, rank in
                guard Self.owner(of: bucket, kind: kind, bits: bits, parts: parts) == part else { return }
                let tag = UInt32(rank + 1)
                if last[bucket] == tag { return }
                last[bucket] = tag
                counts[bucket] &+= 1
            }
        }
        var offsets = [UInt32](repeating: 0, count: buckets + 1)
        var total = 0
        for b in 0..<buckets {
            offsets[b] = UInt32(truncatingIfNeeded: total)
            let c = Int(counts[b])
            if c <= threshold {
                let (low, high) = Self.partSizes(count: c, universe: n)
                total += low + high
            }
        }
        guard total <= byteLimit else {
            throw SearchEngine.CapacityError(part: kind == .trigrams ? "trigram index" : "bigram index", bytes: total, limit: byteLimit, items: n)
        }
        offsets[buckets] = UInt32(total)
        // Pass 2: write the lists (`last` again for repeats, `counts` reused as the cursor
        // after each bucket's total is copied out).
        var data = [UInt8](repeating: 0, count: total + Self.padding)
        let finalCounts = counts.array()
        for b in 0..<buckets { last[b] = 0; counts[b] = 0 }
        offsets.withUnsafeBufferPointer { offsets in
            finalCounts.withUnsafeBufferPointer { finalCounts in
                data.withUnsafeMutableBufferPointer { data in
                    let shared = SharedLists(data: data.baseAddress!, offsets: offsets, counts: finalCounts)
                    DispatchQueue.concurrentPerform(iterations: parts) { part in
                        Self.forEachGram(store, kind: kind, bits: bits) { bucket, rank in
                            guard Self.owner(of: bucket, kind: kind, bits: bits, parts: parts) == part else { return }
                            let tag = UInt32(rank + 1)
                            if last[bucket] == tag { return }
                            last[bucket] = tag
                            let c = Int(shared.counts[bucket])
                            guard c <= threshold else { return }
                            let k = Int(counts[bucket])
                            counts[bucket] = UInt32(k + 1)
                            shared.write(rank: rank, index: k, count: c, universe: n, at: Int(shared.offsets[bucket]))
                        }
                    }
                }
            }
        }
        self.counts = finalCounts
        self.offsets = offsets
        self.data = data
    }

    /// The build thread owning `bucket`: contiguous ranges of hashed trigram buckets (each thread
    /// touches its own part of the tables), alternating bigram buckets (their lead bytes are
    /// mostly lowercase letters, so ranges would be uneven).
    @inline(__always)
    static func owner(of bucket: Int, kind: Kind, bits: Int, parts: Int) -> Int {
        parts == 1 ? 0 : kind == .trigrams ? bucket &* parts >> bits : bucket % parts
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
        let count = Int(counts[bucket])
        let start = Int(offsets[bucket])
        guard count > 0, count <= dropThreshold, Int(offsets[bucket + 1]) > start else { return }
        let l = Self.lowBits(count: count, universe: universe)
        let lowBytes = (count * l + 7) / 8
        let mask: UInt64 = (1 << UInt64(l)) &- 1
        data.withUnsafeBytes { raw in
            let low = raw.baseAddress! + start
            let high = low + lowBytes
            var k = 0
            var wordStart = 0
            while true {
                // Reads past the list's last set bit see only later buckets' bytes, which are
                // never reached: the loop ends at the list's `count`-th bit.
                var word = (high + wordStart >> 3).loadUnaligned(as: UInt64.self)
                while word != 0 {
                    let position = wordStart + word.trailingZeroBitCount
                    let bitOffset = k * l
                    let lowPart = ((low + bitOffset >> 3).loadUnaligned(as: UInt64.self) >> UInt64(bitOffset & 7)) & mask
                    let rank = UInt64(position - k) << UInt64(l) | lowPart
                    if !body(UInt32(truncatingIfNeeded: rank)) { return }
                    k += 1
                    if k == count { return }
                    word &= word &- 1
                }
                wordStart += 64
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

/// A per-bucket table of counters shared by the build threads: each bucket is read and written
/// by the one thread owning it.
///
/// `@unchecked Sendable`: threads touch disjoint entries, and the table outlives the
/// `concurrentPerform` calls that use it.
private final class BucketTable: @unchecked Sendable {
    let slots: UnsafeMutableBufferPointer<UInt32>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: 0)
    }

    subscript(_ i: Int) -> UInt32 {
        @inline(__always) get { slots[i] }
        @inline(__always) set { slots[i] = newValue }
    }

    func array() -> [UInt32] { Array(slots) }

    func free() { slots.deallocate() }
}

/// The lists' bytes while the build threads write them: each bucket's bytes are written only
/// by the thread owning the bucket, and buckets never share a byte.
///
/// `@unchecked Sendable`: disjoint writes, and the buffers outlive the `concurrentPerform` call.
private struct SharedLists: @unchecked Sendable {
    let data: UnsafeMutablePointer<UInt8>
    let offsets: UnsafeBufferPointer<UInt32>
    let counts: UnsafeBufferPointer<UInt32>

    /// Writes `rank`, the `index`-th member of a list of `count` starting at byte `start`,
    /// touching only bytes that hold its bits.
    @inline(__always)
    func write(rank: Int, index: Int, count: Int, universe: Int, at start: Int) {
        let l = GramIndex.lowBits(count: count, universe: universe)
        if l > 0 {
            let bitOffset = index * l
            var value = UInt64(rank & (1 << l - 1)) << UInt64(bitOffset & 7)
            var byte = start + bitOffset >> 3
            let end = start + (bitOffset + l + 7) >> 3
            while byte < end {
                data[byte] |= UInt8(truncatingIfNeeded: value)
                value >>= 8
                byte += 1
            }
        }
        let position = (rank >> l) + index
        let high = start + (count * l + 7) / 8
        data[high + position >> 3] |= UInt8(1) << UInt8(position & 7)
    }
}
