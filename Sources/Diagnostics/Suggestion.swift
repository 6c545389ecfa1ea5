/// "Did you mean": the one place that decides which known name a mistyped one was meant to be,
/// for command names, options, scenario keys and values, and thresholds files.
package enum Suggestion {
    /// The closest candidate to `word`, if it is close enough to be a likely typo: within an edit
    /// distance of a third of the word's length (1 to 3), or else a candidate the word is a
    /// prefix of (for words of two characters or more).
    ///
    /// `ignoringCase`: compare lower-cased (scenario keys and values, where `Seed` for `seed` is
    /// a typo too).
    package static func closest(to word: String, among candidates: [String], ignoringCase: Bool = false) -> String? {
        let fold: (String) -> String = ignoringCase ? { $0.lowercased() } : { $0 }
        let folded = fold(word)
        let scored = candidates.map { ($0, editDistance(folded, fold($0))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let limit = max(1, min(3, word.count / 3))
        if best.1 <= limit { return best.0 }
        return candidates.first { fold($0).hasPrefix(folded) && word.count >= 2 }
    }

    /// The candidate nearest to `word` by edit distance, however far (the first of equals).
    package static func nearest(to word: String, among candidates: [String]) -> String? {
        candidates.min { editDistance(word, $0) < editDistance(word, $1) }
    }

    /// Edit distance between the characters of `a` and `b`: insertions, deletions,
    /// substitutions and swaps of two neighbouring characters (the commonest typo: `rnu` → `run`
    /// is 1) each cost 1 (optimal string alignment).
    ///
    /// - Complexity: O(a.count × b.count).
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
