import TypestormSystem
import ProductCatalog
import Dispatch

/// Every product name folded once (see `TextFolding`) into one contiguous buffer, ordered by
/// result rank, so a search is a byte scan and its hits come out already in result order.
///
/// Layout: name of rank 0, a 0x00 separator, name of rank 1, 0x00, …, then 64 zero bytes of
/// padding so that 32-byte vector loads near the end stay inside the buffer. Folding drops
/// U+0000 from names and queries, so a match can never span two names. Rank order is
/// popularity descending, then catalog position ascending — the result order.
package struct FoldedStore: Sendable {
    /// The folded names, separators and padding.
    let bytes: [UInt8]
    /// `count + 1` entries: rank `r`'s name is `bytes[starts[r] ..< starts[r + 1] - 1]`.
    let starts: [UInt32]
    /// The catalog index of each rank (the inverse map is not needed per query, so not kept).
    let rankToIndex: [UInt32]
    /// How often each byte value occurs in the folded names (for the packed-pair choice).
    let byteFrequency: [Int]

    package var count: Int { rankToIndex.count }
    /// Bytes of folded names plus separators (what a full scan reads).
    package var scannedByteCount: Int { Int(starts[count]) }

    static let padding = 64
    /// The most bytes of folded names and separators a store holds: what 32-bit offsets address.
    package static let byteLimit = Int(UInt32.max)

    /// Folds every name of `catalog`, on all cores.
    ///
    /// - Parameter byteLimit: the most folded bytes (names and separators) the store accepts;
    ///   the 32-bit offsets address 4 GiB, tests pass less.
    /// - Throws: `SearchEngine.CapacityError` when the folded names take more than `byteLimit`.
    /// - Complexity: O(name bytes) plus O(n log n) to order by popularity.
    package init(catalog: Catalog, byteLimit: Int = FoldedStore.byteLimit) throws(SearchEngine.CapacityError) {
        let n = catalog.count
        // Sort keys: popularity descending in the high half, catalog index ascending below.
        var keys = [UInt64](repeating: 0, count: n)
        for i in 0..<n {
            keys[i] = UInt64(UInt32.max - UInt32(clamping: catalog.popularity(at: i))) << 32 | UInt64(i)
        }
        keys.sort()
        let rankToIndex = keys.map { UInt32(truncatingIfNeeded: $0) }
        keys = []

        let parts = n < 50_000 ? 1 : max(1, min(16, Processors.active * 4))
        let results = PartResults<([UInt8], [UInt32], [Int])>(count: parts)
        catalog.withNameStorage { nameBytes, nameOffsets in
            let names = SendableNames(bytes: nameBytes, offsets: nameOffsets)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let lo = n * part / parts, hi = n * (part + 1) / parts
                var folded: [UInt8] = []
                folded.reserveCapacity((names.offsets[hi] - names.offsets[lo]) + (hi - lo))
                var lengths: [UInt32] = []
                lengths.reserveCapacity(hi - lo)
                for rank in lo..<hi {
                    let index = Int(rankToIndex[rank])
                    let before = folded.count
                    TextFolding.fold(UnsafeBufferPointer(rebasing: names.bytes[names.offsets[index]..<names.offsets[index + 1]]), into: &folded)
                    folded.append(0)
                    lengths.append(UInt32(folded.count - before))
                }
                var frequency = [Int](repeating: 0, count: 256)
                folded.withUnsafeBufferPointer { all in
                    for byte in all { frequency[Int(byte)] &+= 1 }
                }
                results.set(part, (folded, lengths, frequency))
            }
        }
        var bytes: [UInt8] = []
        var starts: [UInt32] = []
        starts.reserveCapacity(n + 1)
        var total = 0
        for part in 0..<parts { total += results.get(part).0.count }
        guard total <= min(byteLimit, Self.byteLimit) else {
            throw SearchEngine.CapacityError(part: "folded names", bytes: total, limit: min(byteLimit, Self.byteLimit), items: n)
        }
        bytes.reserveCapacity(total + Self.padding)
        var frequency = [Int](repeating: 0, count: 256)
        for part in 0..<parts {
            let (folded, lengths, partFrequency) = results.take(part)
            for byte in 0..<256 { frequency[byte] &+= partFrequency[byte] }
            var position = UInt32(bytes.count)
            for length in lengths {
                starts.append(position)
                position += length
            }
            bytes.append(contentsOf: folded)
        }
        starts.append(UInt32(bytes.count))
        bytes.append(contentsOf: repeatElement(0, count: Self.padding))
        self.bytes = bytes
        self.starts = starts
        self.rankToIndex = rankToIndex
        self.byteFrequency = frequency
    }


    package func catalogIndex(rank: Int) -> Int { Int(rankToIndex[rank]) }

    /// Bytes held (names, offsets, rank map), for memory accounting.
    package var byteCount: Int { bytes.capacity + starts.capacity * 4 + rankToIndex.capacity * 4 }
}
