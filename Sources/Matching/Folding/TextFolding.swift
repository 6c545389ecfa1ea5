import CUtf8proc

/// Unicode folding: the one definition of "case-insensitive" that the engine and the reference
/// filter share.
///
/// A text is folded to NFKC + full case folding + removal of default-ignorable code points
/// (utf8proc with `STABLE | COMPOSE | COMPAT | CASEFOLD | IGNORE`, i.e. Unicode's
/// NFKC_Casefold), then:
/// - U+0307 COMBINING DOT ABOVE right after `i` is dropped, so Turkish `İ` (which folds to
///   `i` + U+0307) matches `i` and `I`; the text is then folded again, because dropping it can
///   put `i` next to a mark that composes with it (`İ` + U+0301 folds to `í`, as `í` does);
/// - U+0000 is dropped before folding, because the folded store uses it to separate names
///   (`l`, U+0000, U+0301 folds to `ĺ`).
///
/// Folding a folded text changes nothing (the `folding` fuzz target checks it), so a name and
/// a query that fold alike match however often either was folded.
///
/// So full-width `ＡＢＣ` folds to `abc`, `ß` to `ss`, and Hangul written as conjoining jamo
/// (NFD) folds to the same precomposed syllables as NFC input. Text made only of ASCII, Hangul
/// syllables and CJK unified ideographs, the common case, takes a byte path that gives the same
/// result without calling utf8proc (`isPlain`).
package enum TextFolding {
    static let options = utf8proc_option_t(rawValue:
        UTF8PROC_STABLE.rawValue | UTF8PROC_COMPOSE.rawValue | UTF8PROC_COMPAT.rawValue |
        UTF8PROC_CASEFOLD.rawValue | UTF8PROC_IGNORE.rawValue)

    /// Appends the folded form of the UTF-8 `text` to `output`.
    ///
    /// Bytes that are not UTF-8 (a `String` never has them; raw bytes might) are kept as they
    /// are, without U+0000.
    ///
    /// - Complexity: O(n); ASCII text does not allocate.
    package static func fold(_ text: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        if isPlain(text) {
            // Bytes of Hangul and CJK characters are all ≥ 0x80 and stay as they are.
            for byte in text where byte != 0 {
                output.append(byte &- 0x41 < 26 ? byte | 0x20 : byte)
            }
            return
        }
        // U+0000 goes before normalizing: dropped after, it would leave apart a letter and a
        // mark that a second fold composes.
        if text.contains(0) {
            let kept = text.filter { $0 != 0 }
            kept.withUnsafeBufferPointer { foldUnicode($0, into: &output) }
        } else {
            foldUnicode(text, into: &output)
        }
    }

    /// Whether `text` is only ASCII, Hangul syllables (U+AC00–U+D7A3) and CJK unified
    /// ideographs (U+4E00–U+9FFF), as well-formed UTF-8.
    ///
    /// NFKC_Casefold leaves such text alone but for ASCII capitals: none of these characters
    /// decomposes, has a case, is default-ignorable or composes with another of them (a Hangul
    /// syllable composes only with a following conjoining jamo, which is not among them). So
    /// lowering ASCII capitals and dropping U+0000 folds it; `TextFoldingTests` checks every
    /// such character against utf8proc.
    @inline(__always)
    static func isPlain(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = text.count
        while i < n {
            let byte = text[i]
            if byte < 0x80 {
                i += 1
                continue
            }
            // U+4E00–U+9FFF and U+AC00–U+D7A3 are three bytes led by 0xE4–0xE9 and 0xEA–0xED.
            guard byte >= 0xE4, byte <= 0xED, i + 2 < n else { return false }
            let b1 = text[i + 1], b2 = text[i + 2]
            guard b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80 else { return false }
            let scalar = UInt32(byte & 0x0F) << 12 | UInt32(b1 & 0x3F) << 6 | UInt32(b2 & 0x3F)
            guard (0x4E00...0x9FFF).contains(scalar) || (0xAC00...0xD7A3).contains(scalar) else { return false }
            i += 3
        }
        return true
    }

    /// NFKC_Casefold of `text` (no U+0000 in it), then U+0307 after `i` dropped, appended to
    /// `output`: the general path, which `isPlain` text need not take.
    static func foldUnicode(_ text: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        guard let base = text.baseAddress else { return }
        var mapped: UnsafeMutablePointer<UInt8>? = nil
        let length = utf8proc_map(base, text.count, &mapped, options)
        guard length >= 0, let mapped else {
            output.append(contentsOf: text)
            return
        }
        defer { free(mapped) }
        var folded = UnsafeBufferPointer(start: UnsafePointer(mapped), count: length)
        // Dropping U+0307 joins `i` to the mark after it, which normalizing composes (`i`,
        // U+0307, U+0301 → `i`, U+0301 → `í`), so the rest is folded again until nothing is
        // dropped. Each round is shorter than the one before (composing never lengthens a
        // folded text), so this ends; in practice after one extra round.
        var rest: [UInt8] = []
        var round: UnsafeMutablePointer<UInt8>? = nil
        defer { free(round) }
        while dropDotAboveAfterI(folded, into: &rest) {
            // `folded` is copied into `rest`, so the previous round's buffer can go.
            free(round)
            round = nil
            let length = rest.withUnsafeBufferPointer { utf8proc_map($0.baseAddress!, $0.count, &round, options) }
            // `rest` is folded UTF-8, which utf8proc always maps.
            guard length >= 0, let buffer = round else {
                output.append(contentsOf: rest)
                return
            }
            folded = UnsafeBufferPointer(start: UnsafePointer(buffer), count: length)
            rest.removeAll(keepingCapacity: true)
        }
        output.append(contentsOf: folded)
    }

    /// Copies `folded` into `rest` without U+0307 right after `i` (several in a row all go) and
    /// tells whether there was any; `rest` is left empty when there was none.
    private static func dropDotAboveAfterI(_ folded: UnsafeBufferPointer<UInt8>, into rest: inout [UInt8]) -> Bool {
        var i = 0
        var found = false
        var previous: UInt8 = 0
        while i < folded.count {
            let byte = folded[i]
            if byte == 0xCC, i + 1 < folded.count, folded[i + 1] == 0x87, previous == 0x69 {
                if !found {
                    found = true
                    rest.append(contentsOf: UnsafeBufferPointer(rebasing: folded[..<i]))
                }
                i += 2
                continue
            }
            if found { rest.append(byte) }
            previous = byte
            i += 1
        }
        return found
    }

    /// The folded UTF-8 bytes of `text`.
    package static func fold(_ text: String) -> [UInt8] {
        var text = text
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        text.withUTF8 { fold($0, into: &output) }
        return output
    }

    /// A query as the engine matches it: folded, with white space trimmed at both ends.
    ///
    /// A query that is empty after trimming matches every name.
    package static func foldQuery(_ query: String) -> [UInt8] {
        let folded = fold(query)
        let scalars = String(decoding: folded, as: UTF8.self).unicodeScalars
        var start = scalars.startIndex, end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace { end = scalars.index(before: end) }
        return Array(String(scalars[start..<end]).utf8)
    }

    /// The folded form as a `String`, for display and tests.
    package static func foldedString(_ text: String) -> String {
        String(decoding: fold(text), as: UTF8.self)
    }
}
