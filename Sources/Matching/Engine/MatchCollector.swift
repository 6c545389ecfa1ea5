/// Collects matching ranks in order: name hits as a path finds them, merged with the token
/// bitset, narrowed by scope; stops once `need` are found.
///
/// Invariant: every rank below the last one appended has been decided, so `ranks` is always
/// a prefix of the full, ordered result.
struct MatchCollector {
    let scope: Bitset?
    let tokens: Bitset?
    let need: Int?
    let count: Int
    var ranks: [UInt32] = []
    private var tokenCursor = 0
    private(set) var complete = false

    init(scope: Bitset?, tokens: Bitset?, need: Int?, count: Int) {
        self.scope = scope
        self.tokens = tokens
        self.need = need
        self.count = count
    }

    var satisfied: Bool {
        guard let need else { return false }
        return ranks.count >= need
    }

    /// A name hit at `rank` (ascending across calls). Returns false once enough are found.
    @inline(__always)
    mutating func add(_ rank: Int) -> Bool {
        if let scope, !scope.contains(rank) { return true }
        if tokens != nil { emitTokens(below: rank) }
        ranks.append(UInt32(rank))
        tokenCursor = rank + 1
        return !satisfied
    }

    private mutating func emitTokens(below end: Int) {
        guard let tokens else { return }
        while tokenCursor < end, let t = tokens.next(from: tokenCursor), t < end {
            ranks.append(UInt32(t))
            tokenCursor = t + 1
        }
        tokenCursor = max(tokenCursor, end)
    }

    /// Every name hit has been added: the token hits after the last one complete the result.
    mutating func finish() {
        emitTokens(below: count)
        complete = true
    }
}
