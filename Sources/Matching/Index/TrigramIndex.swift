/// A byte-trigram index over the folded store: for each trigram bucket, the ranks whose names
/// contain it (Russ Cox's "Regular Expression Matching with a Trigram Index", on bytes).
///
/// Trigrams hash into 2^k buckets (k grows with the catalog, 24 = every trigram its own bucket
/// from 1M names up); a collision only adds candidates, and every candidate is verified, so
/// answers stay exact. Buckets holding more than `1/64` of the catalog are *dropped* (only
/// marked): a query made only of such trigrams is common and the scan answers it faster than a
/// long posting list would, and dropping them keeps the index a fraction of the name bytes.
struct TrigramIndex: Sendable {
    let bucketBits: Int
    /// `2^bucketBits + 1` entries into `postings`.
    let bucketStarts: [UInt32]
    /// Ranks, ascending within each bucket.
    let postings: [UInt32]
    /// Buckets too common to keep.
    let dropped: Bitset
    let dropThreshold: Int

    enum Lookup: Equatable {
        /// No name contains this trigram.
        case absent
        /// Too common to be indexed.
        case dropped
        case postings(Range<Int>)
    }

    @inline(__always)
    static func bucket(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, bits: Int) -> Int {
        let key = UInt32(b0) << 16 | UInt32(b1) << 8 | UInt32(b2)
        if bits >= 24 { return Int(key) }
        return Int((key &* 0x9E37_79B1) >> UInt32(32 - bits))
    }

    /// - Complexity: two passes over the folded bytes.
    init(store: FoldedStore) {
        let n = store.count
        var bits = 10
        while bits < 24 && (1 << bits) < n * 16 { bits += 1 }
        bucketBits = bits
        let buckets = 1 << bits
        let threshold = max(256, n / 64)
        dropThreshold = threshold
        var counts = [UInt32](repeating: 0, count: buckets + 1)
        var lastSeen = [UInt32](repeating: 0, count: buckets)
        store.bytes.withUnsafeBufferPointer { bytes in
            store.starts.withUnsafeBufferPointer { starts in
                counts.withUnsafeMutableBufferPointer { counts in
                    lastSeen.withUnsafeMutableBufferPointer { lastSeen in
                        for rank in 0..<n {
                            let from = Int(starts[rank]), to = Int(starts[rank + 1]) - 1
                            guard to - from >= 3 else { continue }
                            let tag = UInt32(rank + 1)
                            for i in from..<(to - 2) {
                                let b = Self.bucket(bytes[i], bytes[i + 1], bytes[i + 2], bits: bits)
                                if lastSeen[b] != tag {
                                    lastSeen[b] = tag
                                    counts[b] &+= 1
                                }
                            }
                        }
                    }
                }
            }
        }
        var dropped = Bitset(count: buckets)
        var starts = [UInt32](repeating: 0, count: buckets + 1)
        var total = 0
        for b in 0..<buckets {
            starts[b] = UInt32(total)
            if Int(counts[b]) > threshold {
                dropped.insert(b)
            } else {
                total += Int(counts[b])
            }
        }
        starts[buckets] = UInt32(total)
        counts = []
        var postings = [UInt32](repeating: 0, count: total)
        var cursor = starts
        for b in 0..<buckets { lastSeen[b] = 0 }
        store.bytes.withUnsafeBufferPointer { bytes in
            store.starts.withUnsafeBufferPointer { storeStarts in
                postings.withUnsafeMutableBufferPointer { postings in
                    cursor.withUnsafeMutableBufferPointer { cursor in
                        lastSeen.withUnsafeMutableBufferPointer { lastSeen in
                            for rank in 0..<n {
                                let from = Int(storeStarts[rank]), to = Int(storeStarts[rank + 1]) - 1
                                guard to - from >= 3 else { continue }
                                let tag = UInt32(rank + 1)
                                for i in from..<(to - 2) {
                                    let b = Self.bucket(bytes[i], bytes[i + 1], bytes[i + 2], bits: bits)
                                    if lastSeen[b] != tag {
                                        lastSeen[b] = tag
                                        if !dropped.contains(b) {
                                            let c = Int(cursor[b])
                                            postings[c] = UInt32(rank)
                                            cursor[b] = UInt32(c + 1)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        bucketStarts = starts
        self.postings = postings
        self.dropped = dropped
    }

    func lookup(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8) -> Lookup {
        let b = Self.bucket(b0, b1, b2, bits: bucketBits)
        if dropped.contains(b) { return .dropped }
        let range = Int(bucketStarts[b])..<Int(bucketStarts[b + 1])
        return range.isEmpty ? .absent : .postings(range)
    }

    /// Bytes held, for memory accounting.
    var byteCount: Int { bucketStarts.capacity * 4 + postings.capacity * 4 + dropped.byteCount }
}
