/// A device's within-word key-pair factors as one table: the factor on a key's interval for each
/// pair of hands (this key's and the previous key's) and for the same key pressed twice, found
/// by index with no branch per key (which hand typed the last key is as good as a coin toss, so
/// a branch on it is mispredicted about every other key).
///
/// The index is `hand | previousHand >> 2`, plus 16 when the physical key is the previous one.
/// Entries where either hand is unknown are 1, so multiplying by them changes nothing.
struct KeyPairFactors: @unchecked Sendable {
    // @unchecked: written only in `init`, before the settings that hold it are shared.
    let table: UnsafeMutablePointer<Double>

    /// Entries in the table: two halves (another key, the same key) of 16.
    static let count = 32

    /// The factors of `times`, normalised by the mix of pairs in running text (about half
    /// alternating) so that they move keys around the typist's mean without changing it; all 1
    /// for a device without key-pair times.
    init(_ times: KeyPairTimes?) {
        table = .allocate(capacity: Self.count)
        table.initialize(repeating: 1, count: Self.count)
        guard let pair = times else { return }
        let mix = 0.5 * pair.alternating + 0.25 * pair.leftLeft + 0.22 * pair.rightRight + 0.03 * pair.sameKey
        let left = PlanKey.leftHand, right = PlanKey.rightHand
        for hand in [left, right] {
            for previous in [left, right] {
                let index = Self.index(hand: hand, previousHand: previous, sameKey: false)
                table[index] = hand != previous ? pair.alternating / mix : (hand == left ? pair.leftLeft / mix : pair.rightRight / mix)
                table[Self.index(hand: hand, previousHand: previous, sameKey: true)] = pair.sameKey / mix
            }
        }
    }

    /// The table index of a key typed by `hand` after one typed by `previousHand` (either 0
    /// when unknown).
    @inline(__always)
    static func index(hand: UInt8, previousHand: UInt8, sameKey: Bool) -> Int {
        Int(hand | previousHand >> 2) | (sameKey ? 16 : 0)
    }

    /// The factor for a key typed by `hand` after one typed by `previousHand`.
    @inline(__always)
    func factor(hand: UInt8, previousHand: UInt8, sameKey: Bool) -> Double {
        table[Self.index(hand: hand, previousHand: previousHand, sameKey: sameKey)]
    }

    func deallocate() { table.deallocate() }
}
