import SearchField
/// A query as the recorder's per-typist state holds it: a number standing for one `QueryIdentity`.
///
/// Two refs are equal exactly when their keys are equal (one interner hands them all out), so
/// every comparison the metrics make stays the same while costing an integer compare, and the
/// per-typist state (units, waits, the field, the display) holds no reference-counted strings.
struct QueryRef: Hashable, Sendable {
    var raw: UInt32

    /// Refs of retired typists (`QueryInterner.retire`) have this bit set: they name a key of
    /// the retired list, not of the table typing uses.
    static let retiredBit: UInt32 = 1 << 31

    var isRetired: Bool { raw & Self.retiredBit != 0 }
}

/// Hands out one `QueryRef` per distinct `QueryIdentity` seen by a recorder.
///
/// Most of a typist's records name the same query as that typist's record before (a keystroke,
/// then the debounce wait for it; a commit, then its request, its apply, its display), so each
/// typist's last key is compared first, in place: those records mostly carry the same text
/// (the field's one string, or one inline small string), which compares equal by its bits
/// without reading its bytes. An equal text in another string takes the last key's place, as
/// the records after it carry that string. Other keys go through a small open-addressing table hashed with
/// FNV-1a over the key's bytes: a query is a few bytes, and `Hasher`'s SipHash through
/// `Dictionary` cost several times more per keystroke.
///
/// A runner whose typists finish in groups (the virtual runner's server cells) retires each
/// group when it is done: the refs its typists still hold move to a plain list, and the table
/// starts over, so it only ever holds the queries of the typists still typing and stays in
/// cache however long the run.
///
/// - Complexity: O(1) expected per lookup; memory O(distinct queries of the run + typists).
struct QueryInterner: Sendable {
    /// Each ref's key, by `raw`, with its hash and its text's length in UTF-8 (which tells most
    /// new texts apart from old ones without a string comparison): one array, so that a lookup
    /// reads one line and an insert appends once.
    private var entries: [Entry] = []
    /// Open addressing, linear probing: a ref plus one in the low 32 bits (0 for an empty slot),
    /// the high 32 bits of its key's hash above them, so that a probe passes other keys without
    /// reading their hashes or keys (the table outgrows the caches in a long run, and each of
    /// those reads was a miss). A power of two in size, at most half full.
    private var slots: [UInt64] = Array(repeating: 0, count: 1024)
    /// Per typist, the ref of its last key plus one (0: none yet).
    private var recent: [UInt32]

    struct Entry: Sendable {
        var key: QueryIdentity
        var hash: UInt64
        var length: Int
    }
    /// The keys of refs moved out of the table by `retire`, by `raw` without `retiredBit`.
    private var retired: [QueryIdentity] = []
    /// Compaction is due once this many keys are held (see `Recorder.compactQueries()`).
    private var limit: Int
    private let floor: Int

    /// - Parameter floor: the fewest keys held before a compaction is considered.
    init(typists: Int, floor: Int = 1 << 16) {
        recent = Array(repeating: 0, count: typists)
        self.floor = max(1, floor)
        limit = self.floor
    }

    /// Keys dropped by compactions so far.
    private(set) var dropped = 0

    /// Number of keys held in the table (live or not), retired ones not counted.
    var count: Int { entries.count }

    /// A run with millions of typists types millions of distinct prefixes; most are dead (no
    /// typist state refers to them) soon after they were typed, so the recorder compacts.
    var needsCompaction: Bool { entries.count >= limit }

    func key(_ ref: QueryRef) -> QueryIdentity {
        ref.isRetired ? retired[Int(ref.raw & ~QueryRef.retiredBit)] : entries[Int(ref.raw)].key
    }

    /// Moves the table's keys that `refs` (each typist's refs, visited once) still name to the
    /// retired list and empties the table: `refs` must visit every ref of the table still held,
    /// and gets each one's retired ref to hold instead. Equal refs stay equal and different
    /// refs different, so every comparison gives the same answer as before. `typists`: the
    /// typists whose last keys `recent` remembers (the ones just retired).
    mutating func retire(typists: Range<Int>, _ refs: ((QueryRef) -> QueryRef) -> Void) {
        var moved = [UInt32](repeating: .max, count: entries.count)
        let retiredBefore = retired.count
        refs { ref in
            if ref.isRetired { return ref }
            let raw = Int(ref.raw)
            if moved[raw] == .max {
                precondition(retired.count < Int(QueryRef.retiredBit), "too many retired queries")
                moved[raw] = UInt32(retired.count) | QueryRef.retiredBit
                retired.append(entries[raw].key)
            }
            return QueryRef(raw: moved[raw])
        }
        // Each key moved was appended once: the rest are dropped.
        dropped += entries.count - (retired.count - retiredBefore)
        entries.removeAll(keepingCapacity: true)
        slots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        for typist in typists { recent[typist] = 0 }
    }

    /// Starts over with `live` as refs `0..<live.count`: the recorder has renumbered every ref
    /// it holds to match. The next compaction is due when the table has grown fourfold.
    mutating func rebuild(keeping live: [QueryIdentity]) {
        dropped += entries.count - live.count
        entries = []
        var size = 1024
        while size < live.count * 2 { size *= 2 }
        slots = Array(repeating: 0, count: size)
        for index in recent.indices { recent[index] = 0 }
        for key in live {
            let hash = Self.hash(key)
            var slot = Int(truncatingIfNeeded: hash) & (size - 1)
            while slots[slot] != 0 { slot = (slot &+ 1) & (size - 1) }
            slots[slot] = Self.entry(raw: UInt32(entries.count), hash: hash)
            entries.append(Entry(key: key, hash: hash, length: key.text.utf8.count))
        }
        limit = max(floor, live.count * 4)
    }

    /// Inlined: the typist's last key again, the common case, costs a few loads and compares
    /// when its text is the same string.
    @inline(__always)
    mutating func ref(_ key: QueryIdentity, typist: Int) -> QueryRef {
        let last = recent[typist]
        if last != 0, entries[Int(last &- 1)].key.isSameValue(as: key) { return QueryRef(raw: last &- 1) }
        return intern(key, typist: typist)
    }

    @inline(__always)
    mutating func ref(_ key: QueryIdentity?, typist: Int) -> QueryRef? {
        switch key {
        case .none: nil
        case let .some(key): ref(key as QueryIdentity, typist: typist) as QueryRef
        }
    }

    /// `ref` past the typist's last key held as the same value.
    @inline(never)
    private mutating func intern(_ key: QueryIdentity, typist: Int) -> QueryRef {
        let length = key.text.utf8.count
        let last = recent[typist]
        if last != 0 {
            let raw = Int(last &- 1)
            // A keystroke's query is usually new: texts of different lengths differ without a
            // string comparison.
            if entries[raw].length == length, entries[raw].key == key {
                // The records after this one carry this string: matched by value from now on.
                entries[raw].key = key
                return QueryRef(raw: last &- 1)
            }
        }
        let hash = Self.hash(key)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        let high = hash & 0xFFFF_FFFF_0000_0000
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            if entry & 0xFFFF_FFFF_0000_0000 == high {
                let raw = UInt32(truncatingIfNeeded: entry) &- 1
                if entries[Int(raw)].length == length, entries[Int(raw)].key == key {
                    if !entries[Int(raw)].key.isSameValue(as: key) { entries[Int(raw)].key = key }
                    recent[typist] = raw &+ 1
                    return QueryRef(raw: raw)
                }
            }
            slot = (slot &+ 1) & mask
        }
        let raw = UInt32(entries.count)
        entries.append(Entry(key: key, hash: hash, length: length))
        slots[slot] = Self.entry(raw: raw, hash: hash)
        if entries.count * 2 > slots.count { grow() }
        recent[typist] = raw &+ 1
        return QueryRef(raw: raw)
    }

    private mutating func grow() {
        var bigger = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = bigger.count - 1
        for raw in entries.indices {
            var slot = Int(truncatingIfNeeded: entries[raw].hash) & mask
            while bigger[slot] != 0 { slot = (slot &+ 1) & mask }
            bigger[slot] = Self.entry(raw: UInt32(raw), hash: entries[raw].hash)
        }
        slots = bigger
    }

    /// A slot's entry for ref `raw` whose key hashes to `hash`.
    @inline(__always)
    private static func entry(raw: UInt32, hash: UInt64) -> UInt64 {
        hash & 0xFFFF_FFFF_0000_0000 | UInt64(raw &+ 1)
    }

    /// The text's UTF-8 a word at a time (`hash(bytes:)`), then the number standing for its
    /// scope and tokens (equal numbers, equal scopes and tokens: `QueryIdentity.extrasNumber`),
    /// then a final mix so that the low bits (the slot) spread well.
    static func hash(_ key: QueryIdentity) -> UInt64 {
        var hash: UInt64
        #if (arch(x86_64) || arch(arm64)) && _endian(little)
        // A string is two words on these platforms; a small one (bit 61 of the second word) holds
        // its UTF-8 in them, zero past its count, and its count in the top byte's low four bits:
        // its words are the ones `hash(bytes:)` gathers from the same bytes, without a copy to
        // the stack. Most queries are that short.
        let words = unsafeBitCast(key.text, to: (UInt64, UInt64).self)
        if words.1 & (1 &<< 61) != 0 {
            hash = Self.hash(count: Int(truncatingIfNeeded: words.1 &>> 56) & 0xF, words.0, words.1 & 0x00FF_FFFF_FFFF_FFFF)
        } else {
            hash = Self.hash(text: key.text)
        }
        #else
        hash = Self.hash(text: key.text)
        #endif
        hash = (hash ^ UInt64(key.extrasNumber)) &* 0x100_0000_01B3
        hash ^= hash >> 29
        hash = hash &* 0xBF58_476D_1CE4_E5B9
        return hash ^ (hash >> 32)
    }

    @inline(__always)
    private static func hash(text: String) -> UInt64 {
        // Native strings hand out their UTF-8 in place; walking the view byte by byte, or
        // `withUTF8` on a copy, cost several times more.
        text.utf8.withContiguousStorageIfAvailable { bytes in
            Self.hash(bytes: UnsafeRawBufferPointer(bytes))
        } ?? Array(text.utf8).withUnsafeBytes { Self.hash(bytes: $0) }
    }

    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The length, then a multiply and a shift per eight bytes: a query is a few words long, and
    /// FNV-1a's multiply per byte cost three times as much. Up to 15 bytes are two words, the
    /// bytes in little-endian order and zero past the end (as a small string holds them); longer
    /// texts are read a word at a time, the last word being the text's last eight bytes,
    /// overlapping the one before, so every load stays inside the text. Equal bytes, equal hash.
    @inline(__always)
    private static func hash(bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        if count < 16 {
            var words: (UInt64, UInt64) = (0, 0)
            var index = 0
            while index < count {
                let byte = UInt64(bytes[index]) &<< UInt64(truncatingIfNeeded: (index & 7) &* 8)
                if index < 8 { words.0 |= byte } else { words.1 |= byte }
                index &+= 1
            }
            return hash(count: count, words.0, words.1)
        }
        var hash = 0xCBF2_9CE4_8422_2325 ^ UInt64(truncatingIfNeeded: count)
        var offset = 0
        while offset &+ 8 < count {
            hash = (hash ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) &* multiplier
            hash ^= hash >> 32
            offset &+= 8
        }
        hash = (hash ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))) &* multiplier
        return hash ^ (hash >> 32)
    }

    /// A text of up to 15 bytes as two words (see `hash(bytes:)`).
    @inline(__always)
    private static func hash(count: Int, _ first: UInt64, _ second: UInt64) -> UInt64 {
        var hash = (0xCBF2_9CE4_8422_2325 ^ UInt64(truncatingIfNeeded: count) ^ first) &* multiplier
        hash ^= hash >> 32
        hash = (hash ^ second) &* multiplier
        return hash ^ (hash >> 32)
    }
}
