/// A query as the recorder's per-typist state holds it: a number standing for one `QueryKey`.
///
/// Two refs are equal exactly when their keys are equal (one interner hands them all out), so
/// every comparison the metrics make stays the same while costing an integer compare, and the
/// per-typist state (units, waits, the field, the display) holds no reference-counted strings.
struct QueryRef: Hashable, Sendable {
    var raw: UInt32
}

/// Hands out one `QueryRef` per distinct `QueryKey` seen by a recorder.
///
/// Most of a typist's records name the same query as that typist's record before (a keystroke,
/// then the debounce wait for it; a commit, then its request, its apply, its display), so each
/// typist's last key is compared first, in place, before any hashing.
///
/// - Complexity: O(1) expected per lookup; memory O(distinct queries of the run + typists).
struct QueryInterner: Sendable {
    private var refs: [QueryKey: QueryRef] = [:]
    /// The key of each ref, by `raw`.
    private var keys: [QueryKey] = []
    /// Per typist, the ref of its last key plus one (0: none yet).
    private var recent: [UInt32]

    init(typists: Int) {
        recent = Array(repeating: 0, count: typists)
    }

    mutating func ref(_ key: QueryKey, typist: Int) -> QueryRef {
        intern(key, typist: typist)
    }

    mutating func ref(_ key: QueryKey?, typist: Int) -> QueryRef? {
        guard let key else { return nil }
        return intern(key, typist: typist)
    }

    private mutating func intern(_ key: QueryKey, typist: Int) -> QueryRef {
        let last = recent[typist]
        if last != 0, keys[Int(last &- 1)] == key { return QueryRef(raw: last &- 1) }
        let ref: QueryRef
        if let known = refs[key] {
            ref = known
        } else {
            ref = QueryRef(raw: UInt32(keys.count))
            refs[key] = ref
            keys.append(key)
        }
        recent[typist] = ref.raw &+ 1
        return ref
    }
}
