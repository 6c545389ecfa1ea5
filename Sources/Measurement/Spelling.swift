/// "Did you mean" for every name a user types: commands, options, scenario keys, metric names.
///
/// One edit distance for the whole tool, so a typo gets the same suggestion wherever it is made.
public enum Spelling {
    /// Edit distance ignoring case: insertions, deletions, substitutions and swaps of two
    /// neighbouring letters (the commonest typo: `rnu` → `run` is 1) each cost 1 (optimal string
    /// alignment).
    ///
    /// - Complexity: O(a.count × b.count).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
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

    /// The candidate closest to `word` when it is close enough to be a likely typo (at most a
    /// third of the word's letters off, 1 to 3), else the first candidate `word` begins.
    public static func suggestion(for word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let limit = max(1, min(3, word.count / 3))
        if best.1 <= limit { return best.0 }
        return candidates.first { $0.lowercased().hasPrefix(word.lowercased()) && word.count >= 2 }
    }

    /// The candidate nearest to `word`, however far (for a hint when any is better than none).
    public static func nearest(to word: String, among candidates: [String]) -> String? {
        candidates.min { distance(word, $0) < distance(word, $1) }
    }
}
