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
///   which have no trigram: one bucket per byte pair, indexed only where the pair is one a
///   two-byte query can be (`bigramIndexed`), so a two-byte query's list is its exact answer.
///
/// Elias–Fano: a list of `c` ranks below `n` keeps the low `L = ⌊log2(n / c)⌋` bits of each
/// rank packed side by side, and the high bits as a unary bit vector (rank `k` with high part
/// `h` sets bit `h + k`), so a list takes about `c · (L + 2)` bits: 3 bits per posting in a list
/// holding half the catalog, 9 in one holding 1/128 of it. It is read in order with one
/// trailing-zero count per posting. The two parts of a list are each whole bytes, so lists
/// never share a byte and are encoded on several cores at once.
struct GramIndex: Sendable {
    enum Kind: Sendable { case trigrams, bigrams }

    let kind: Kind
    let bucketBits: Int
    /// The number of ranks (the lists' universe).
    let universe: Int
    /// The buckets at least one name holds, ascending; a bucket's list is its position here
    /// (most of the 2^20 trigram buckets are empty, so a table per bucket would cost more than
    /// the lists of a small catalog).
    let buckets: [UInt32]
    /// Per list: how many names hold the gram (kept for dropped buckets too).
    let counts: [UInt32]
    /// `lists + 1` byte offsets into `data`; a dropped bucket's list has an empty range.
    let offsets: [UInt32]
    /// The lists, then `Self.padding` zero bytes so that 8-byte reads near the end stay inside.
    let data: PageBuffer<UInt8>
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
        /// The gram's list (a position in `buckets`) and how many names it holds.
        case postings(list: Int, count: Int)
    }

    var gramLength: Int { kind == .trigrams ? 3 : 2 }

    @inline(__always)
    static func trigramBucket(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, bits: Int) -> Int {
        let key = UInt32(b0) << 16 | UInt32(b1) << 8 | UInt32(b2)
        return Int((key &* 0x9E37_79B1) >> UInt32(32 - bits))
    }

    /// Whether a byte pair is indexed by the bigram index: a pair that a two-byte query can be.
    /// That is two ASCII bytes, or a lead byte of a two-byte character and its continuation
    /// byte, and in neither case white space: a query is trimmed of white space at both ends
    /// (`TextFolding.foldQuery`), so a two-byte query never starts or ends with it, and the
    /// pairs around spaces, a large share of all pairs, need no lists.
    @inline(__always)
    static func bigramIndexed(_ b0: UInt8, _ b1: UInt8) -> Bool {
        if b0 < 0x80 && b1 < 0x80 { return !isASCIIWhiteSpace(b0) && !isASCIIWhiteSpace(b1) }
        // U+0085 and U+00A0 are the two-byte characters that are white space.
        return b0 >= 0xC2 && b0 <= 0xDF && b1 & 0xC0 == 0x80 && !(b0 == 0xC2 && (b1 == 0x85 || b1 == 0xA0))
    }

    /// Tab, line feed, vertical tab, form feed, carriage return, space: the ASCII white space.
    @inline(__always)
    static func isASCIIWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
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

    /// Builds the index of `kind` over `store`, on `parts` threads (default: one per core, one
    /// for a store under 1 MiB).
    ///
    /// A counting sort: each thread counts the grams of its share of the ranks per bucket; the
    /// counts give every list, and every thread's part of it, a place in one buffer of ranks;
    /// the threads write their ranks there (each list comes out ascending), and then encode
    /// the lists, each thread a share of them.
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
        let bucketCount = 1 << bits
        let parts = max(1, min(n, requestedParts ?? (store.scannedByteCount < 1 << 20 ? 1 : Processors.active)))
        // Per thread and bucket: the last rank + 1 that held the gram (so a name counts once),
        // and the count, later the cursor into `ranks`.
        let tables = (0..<parts).map { _ in PageBuffer<UInt32>(zeroed: 2 * bucketCount) }
        // Pass 1: per thread and bucket, the number of the thread's names holding the gram.
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let table = tables[part].base
            Self.forEachGram(store, kind: kind, bits: bits, ranks: n * part / parts ..< n * (part + 1) / parts) { bucket, rank in
                let tag = UInt32(truncatingIfNeeded: rank + 1)
                if table[2 &* bucket] == tag { return }
                table[2 &* bucket] = tag
                table[2 &* bucket &+ 1] &+= 1
            }
        }
        // The lists: their buckets, counts, byte offsets, and where their ranks go.
        var buckets: [UInt32] = []
        var counts: [UInt32] = []
        var offsets: [UInt32] = []
        var rankStarts: [Int] = []
        var total = 0
        var rankTotal = 0
        for bucket in 0..<bucketCount {
            var count = 0
            for table in tables { count += Int(table.base[2 * bucket + 1]) }
            guard count > 0 else { continue }
            buckets.append(UInt32(bucket))
            counts.append(UInt32(count))
            offsets.append(UInt32(truncatingIfNeeded: total))
            rankStarts.append(rankTotal)
            let indexed = count <= threshold
            for table in tables {
                let own = Int(table.base[2 * bucket + 1])
                table.base[2 * bucket] = 0
                // A name is at least one byte and a separator, so a rank cursor stays below
                // `UInt32.max`, which marks a dropped bucket.
                table.base[2 * bucket + 1] = indexed ? UInt32(truncatingIfNeeded: rankTotal) : UInt32.max
                if indexed { rankTotal += own }
            }
            if indexed {
                let (low, high) = Self.partSizes(count: count, universe: n)
                total += low + high
            }
        }
        let limit = min(byteLimit, Self.byteLimit)
        guard total <= limit else {
            throw SearchEngine.CapacityError(part: kind == .trigrams ? "trigram index" : "bigram index", bytes: total, limit: limit, items: n)
        }
        offsets.append(UInt32(total))
        // Pass 2: every thread writes its ranks into its part of each list.
        let ranks = PageBuffer<UInt32>(zeroed: rankTotal)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let table = tables[part].base
            let out = ranks.base
            Self.forEachGram(store, kind: kind, bits: bits, ranks: n * part / parts ..< n * (part + 1) / parts) { bucket, rank in
                let tag = UInt32(truncatingIfNeeded: rank + 1)
                if table[2 &* bucket] == tag { return }
                table[2 &* bucket] = tag
                let cursor = table[2 &* bucket &+ 1]
                guard cursor != UInt32.max else { return }
                out[Int(cursor)] = UInt32(truncatingIfNeeded: rank)
                table[2 &* bucket &+ 1] = cursor &+ 1
            }
        }
        // Pass 3: encode the lists, each thread those starting in its share of the bytes.
        let data = PageBuffer<UInt8>(zeroed: total + Self.padding)
        let lists = counts.count
        let listBytes = total
        let encodeParts = total < 1 << 20 ? 1 : parts
        // `ranks` is read through a pointer below, so it must live to the end.
        withExtendedLifetime(ranks) {
            offsets.withUnsafeBufferPointer { offsets in
                counts.withUnsafeBufferPointer { counts in
                    rankStarts.withUnsafeBufferPointer { rankStarts in
                        data.withUnsafeMutableBufferPointer { data in
                            let shared = SharedLists(data: data.baseAddress!, offsets: offsets, counts: counts, rankStarts: rankStarts, ranks: UnsafePointer(ranks.base))
                            DispatchQueue.concurrentPerform(iterations: encodeParts) { part in
                                let from = listBytes * part / encodeParts, to = listBytes * (part + 1) / encodeParts
                                var list = shared.firstList(startingAtOrAfter: from)
                                while list < lists && Int(shared.offsets[list]) < to {
                                    let count = Int(shared.counts[list])
                                    if count <= threshold { shared.encode(list: list, count: count, universe: n) }
                                    list += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        self.buckets = buckets
        self.counts = counts
        self.offsets = offsets
        self.data = data
    }

    /// Calls `body(bucket, rank)` for every gram of every name of `ranks`, rank by rank.
    @inline(__always)
    private static func forEachGram(_ store: FoldedStore, kind: Kind, bits: Int, ranks: Range<Int>, _ body: (Int, Int) -> Void) {
        store.bytes.withUnsafeBufferPointer { bytes in
            store.starts.withView { starts in
                for rank in ranks {
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

    /// The list of `bucket`, if any name holds it.
    func list(of bucket: Int) -> Int? {
        var lo = 0, hi = buckets.count
        let key = UInt32(truncatingIfNeeded: bucket)
        while lo < hi {
            let mid = (lo + hi) / 2
            if buckets[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return lo < buckets.count && buckets[lo] == key ? lo : nil
    }

    /// The list of the gram starting at `pattern[i]`.
    func lookup(_ pattern: [UInt8], at i: Int) -> Lookup {
        let bucket: Int
        switch kind {
        case .trigrams: bucket = Self.trigramBucket(pattern[i], pattern[i + 1], pattern[i + 2], bits: bucketBits)
        case .bigrams: bucket = Int(pattern[i]) << 8 | Int(pattern[i + 1])
        }
        guard let list = list(of: bucket) else { return .absent }
        let count = Int(counts[list])
        if count > dropThreshold { return .dropped(count: count) }
        return .postings(list: list, count: count)
    }

    /// The ranks of a list, ascending.
    func decode(_ list: Int) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(Int(counts[list]))
        forEach(list) { out.append($0) }
        return out
    }

    @inline(__always)
    func forEach(_ list: Int, _ body: (UInt32) -> Void) {
        forEachWhile(list) { body($0); return true }
    }

    /// Calls `body` with the list's ranks in order until it returns false.
    @inline(__always)
    func forEachWhile(_ list: Int, _ body: (UInt32) -> Bool) {
        let count = Int(counts[list])
        let start = Int(offsets[list])
        guard count > 0, count <= dropThreshold, Int(offsets[list + 1]) > start else { return }
        let l = Self.lowBits(count: count, universe: universe)
        let lowBytes = (count * l + 7) / 8
        let mask: UInt64 = (1 << UInt64(l)) &- 1
        data.withUnsafeBytes { raw in
            let low = raw.baseAddress! + start
            let high = low + lowBytes
            var k = 0
            var wordStart = 0
            while true {
                // Reads past the list's last set bit see only later lists' bytes, which are
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

    /// The members of `candidates` (ascending) that are also in `list`.
    func intersect(_ candidates: [UInt32], _ list: Int) -> [UInt32] {
        var kept: [UInt32] = []
        kept.reserveCapacity(candidates.count)
        var k = 0
        candidates.withUnsafeBufferPointer { candidates in
            forEach(list) { rank in
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
    var byteCount: Int { buckets.capacity * 4 + counts.capacity * 4 + offsets.capacity * 4 + data.byteCount }

    /// Of `byteCount`, the bytes mapped from the kernel rather than allocated.
    var mappedByteCount: Int { data.mappedByteCount }
}

/// The lists' bytes while the build threads encode them: each list's bytes are written only by
/// the thread encoding it, and lists never share a byte.
///
/// `@unchecked Sendable`: disjoint writes, and the buffers outlive the `concurrentPerform` call.
private struct SharedLists: @unchecked Sendable {
    let data: UnsafeMutablePointer<UInt8>
    let offsets: UnsafeBufferPointer<UInt32>
    let counts: UnsafeBufferPointer<UInt32>
    /// Per list: where its ranks start in `ranks`.
    let rankStarts: UnsafeBufferPointer<Int>
    let ranks: UnsafePointer<UInt32>

    /// The first list whose bytes start at or after `byte` (the number of lists if none).
    func firstList(startingAtOrAfter byte: Int) -> Int {
        var lo = 0, hi = counts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(offsets[mid]) < byte { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Writes the Elias–Fano code of `list` (`count` ascending ranks below `universe`): the
    /// low bits packed side by side, then the high parts in unary.
    @inline(__always)
    func encode(list: Int, count: Int, universe: Int) {
        let l = GramIndex.lowBits(count: count, universe: universe)
        let ranks = self.ranks + rankStarts[list]
        let start = Int(offsets[list])
        if l > 0 {
            // `l` ≤ 32, so the bits waiting to be written stay under 40.
            var pending: UInt64 = 0
            var pendingBits = 0
            var byte = start
            let mask = UInt64(1) << UInt64(l) - 1
            for k in 0..<count {
                pending |= (UInt64(ranks[k]) & mask) << UInt64(pendingBits)
                pendingBits += l
                while pendingBits >= 8 {
                    data[byte] = UInt8(truncatingIfNeeded: pending)
                    pending >>= 8
                    pendingBits -= 8
                    byte += 1
                }
            }
            if pendingBits > 0 { data[byte] = UInt8(truncatingIfNeeded: pending) }
        }
        let high = start + (count * l + 7) / 8
        for k in 0..<count {
            let position = Int(ranks[k]) >> l + k
            data[high + position >> 3] |= UInt8(1) << UInt8(position & 7)
        }
    }
}
