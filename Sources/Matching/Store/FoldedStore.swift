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
    let bytes: PageBuffer<UInt8>
    /// `count + 1` entries: rank `r`'s name is `bytes[starts[r] ..< starts[r + 1] - 1]`.
    let starts: NameStarts
    /// The catalog index of each rank (the inverse map is not needed per query, so not kept).
    let rankToIndex: PackedIndices
    /// How often each byte value occurs in the folded names (for the packed-pair choice).
    let byteFrequency: [Int]

    package var count: Int { rankToIndex.count }
    /// Bytes of folded names plus separators (what a full scan reads).
    package var scannedByteCount: Int { starts[count] }

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
        let rankToIndex = PackedIndices(count: n) { UInt32(truncatingIfNeeded: keys[$0]) }
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
        var total = 0
        for part in 0..<parts { total += results.get(part).0.count }
        guard total <= min(byteLimit, Self.byteLimit) else {
            throw SearchEngine.CapacityError(part: "folded names", bytes: total, limit: min(byteLimit, Self.byteLimit), items: n)
        }
        let bytes = PageBuffer<UInt8>(zeroed: total + Self.padding)
        var starts: [UInt32] = []
        starts.reserveCapacity(n + 1)
        var frequency = [Int](repeating: 0, count: 256)
        var position = 0
        for part in 0..<parts {
            let (folded, lengths, partFrequency) = results.take(part)
            for byte in 0..<256 { frequency[byte] &+= partFrequency[byte] }
            let partStart = position
            for length in lengths {
                starts.append(UInt32(position))
                position += Int(length)
            }
            folded.withUnsafeBufferPointer { folded in
                if let source = folded.baseAddress { (bytes.base + partStart).update(from: source, count: folded.count) }
            }
        }
        starts.append(UInt32(position))
        self.bytes = bytes
        self.starts = NameStarts(starts)
        self.rankToIndex = rankToIndex
        self.byteFrequency = frequency
    }

    package func catalogIndex(rank: Int) -> Int { rankToIndex[rank] }

    /// Bytes held (names, offsets, rank map), for memory accounting.
    package var byteCount: Int { bytes.byteCount + starts.byteCount + rankToIndex.byteCount }

    /// Of `byteCount`, the bytes mapped from the kernel rather than allocated.
    package var mappedByteCount: Int { bytes.mappedByteCount + starts.mappedByteCount + rankToIndex.mappedByteCount }
}

/// Where each rank's name starts in the folded bytes, in two levels: per block of `1 << shift`
/// ranks a 32-bit start, per rank a 16-bit distance from its block's start. That is 2 bytes
/// per name instead of 4; `shift` is the largest (at most 6, 64 names a block) for which every
/// distance fits 16 bits, 0 (a 32-bit start per name) only for names of 64 KiB and more.
struct NameStarts: Sendable {
    let shift: Int
    /// Per block: the start of its first rank.
    let blocks: [UInt32]
    /// Per rank, and one past the last: its start minus its block's.
    let within: PageBuffer<UInt16>

    init(_ starts: [UInt32]) {
        var shift = 6
        func fits(_ shift: Int) -> Bool {
            for i in starts.indices where starts[i] - starts[(i >> shift) << shift] > UInt32(UInt16.max) { return false }
            return true
        }
        while shift > 0 && !fits(shift) { shift -= 1 }
        self.shift = shift
        let blockCount = (starts.count + (1 << shift) - 1) >> shift
        blocks = (0..<blockCount).map { starts[$0 << shift] }
        let within = PageBuffer<UInt16>(zeroed: starts.count)
        for i in starts.indices { within.base[i] = UInt16(truncatingIfNeeded: starts[i] - starts[(i >> shift) << shift]) }
        self.within = within
    }

    /// Where the name of `rank` starts (`rank` up to the number of names, whose entry is the end).
    subscript(_ rank: Int) -> Int {
        @inline(__always) get { Int(blocks[rank >> shift]) + Int(within.base[rank]) }
    }

    /// Calls `body` with a view for hot loops (no bounds checks).
    @inline(__always)
    func withView<R>(_ body: (View) throws -> R) rethrows -> R {
        try blocks.withUnsafeBufferPointer { blocks in
            try body(View(blocks: blocks.baseAddress!, within: within.base, shift: shift))
        }
    }

    struct View {
        let blocks: UnsafePointer<UInt32>
        let within: UnsafeMutablePointer<UInt16>
        let shift: Int

        subscript(_ rank: Int) -> Int {
            @inline(__always) get { Int(blocks[rank &>> shift]) &+ Int(within[rank]) }
        }
    }

    var byteCount: Int { blocks.capacity * 4 + within.byteCount }
    var mappedByteCount: Int { within.mappedByteCount }
}

/// `count` numbers below `count`, each in the fewest whole bytes that hold `count - 1` (3 bytes
/// up to 16,777,216 products, instead of 4).
struct PackedIndices: Sendable {
    let count: Int
    /// Bytes per number, 1 to 4.
    let width: Int
    /// The numbers, little-endian, then 3 zero bytes so that a 4-byte read of the last stays inside.
    let bytes: PageBuffer<UInt8>

    init(count: Int, _ value: (Int) -> UInt32) {
        self.count = count
        var width = 1
        while width < 4 && (count - 1) >> (8 * width) > 0 { width += 1 }
        self.width = width
        let bytes = PageBuffer<UInt8>(zeroed: count * width + 3)
        for i in 0..<count {
            var v = value(i)
            for k in 0..<width {
                bytes.base[i * width + k] = UInt8(truncatingIfNeeded: v)
                v >>= 8
            }
        }
        self.bytes = bytes
    }

    subscript(_ i: Int) -> Int {
        @inline(__always) get {
            let word = UInt32(littleEndian: UnsafeRawPointer(bytes.base + i * width).loadUnaligned(as: UInt32.self))
            return Int(width == 4 ? word : word & (1 << UInt32(8 * width) - 1))
        }
    }

    var byteCount: Int { bytes.byteCount }
    var mappedByteCount: Int { bytes.mappedByteCount }
}
