import CUtf8proc

/// Unicode folding: the one definition of "case-insensitive" that the engine and the reference
/// filter share.
///
/// A text is folded to NFKC + full case folding + removal of default-ignorable code points
/// (utf8proc with `STABLE | COMPOSE | COMPAT | CASEFOLD | IGNORE`, i.e. Unicode's
/// NFKC_Casefold), then:
/// - U+0307 COMBINING DOT ABOVE right after `i` is dropped, so Turkish `İ` (which folds to
///   `i` + U+0307) matches `i` and `I`;
/// - U+0000 is dropped, because the folded store uses it to separate names.
///
/// So full-width `ＡＢＣ` folds to `abc`, `ß` to `ss`, and Hangul written as conjoining jamo
/// (NFD) folds to the same precomposed syllables as NFC input. ASCII-only text, the common case,
/// takes a byte-table path that gives the same result without calling utf8proc.
public enum TextFolding {
    static let options = utf8proc_option_t(rawValue:
        UTF8PROC_STABLE.rawValue | UTF8PROC_COMPOSE.rawValue | UTF8PROC_COMPAT.rawValue |
        UTF8PROC_CASEFOLD.rawValue | UTF8PROC_IGNORE.rawValue)

    /// Appends the folded form of the UTF-8 `text` to `output`.
    ///
    /// - Complexity: O(n); ASCII text does not allocate.
    public static func fold(_ text: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        var ascii = true
        for byte in text where byte >= 0x80 { ascii = false; break }
        if ascii {
            for byte in text where byte != 0 {
                output.append(byte &- 0x41 < 26 ? byte | 0x20 : byte)
            }
            return
        }
        guard let base = text.baseAddress else { return }
        var mapped: UnsafeMutablePointer<UInt8>? = nil
        let length = utf8proc_map(base, text.count, &mapped, options)
        guard length >= 0, let mapped else {
            // Not valid UTF-8 (a String never is; raw bytes might be): keep the bytes.
            output.append(contentsOf: text)
            return
        }
        defer { free(mapped) }
        var previous: UInt8 = 0
        var i = 0
        while i < length {
            let byte = mapped[i]
            if byte == 0xCC, i + 1 < length, mapped[i + 1] == 0x87, previous == 0x69 {
                i += 2
                continue
            }
            if byte != 0 { output.append(byte) }
            previous = byte
            i += 1
        }
    }

    /// The folded UTF-8 bytes of `text`.
    public static func fold(_ text: String) -> [UInt8] {
        var text = text
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        text.withUTF8 { fold($0, into: &output) }
        return output
    }

    /// A query as the engine matches it: folded, with white space trimmed at both ends.
    ///
    /// A query that is empty after trimming matches every name.
    public static func foldQuery(_ query: String) -> [UInt8] {
        let folded = fold(query)
        let scalars = String(decoding: folded, as: UTF8.self).unicodeScalars
        var start = scalars.startIndex, end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace { end = scalars.index(before: end) }
        return Array(String(scalars[start..<end]).utf8)
    }

    /// The folded form as a `String`, for display and tests.
    public static func foldedString(_ text: String) -> String {
        String(decoding: fold(text), as: UTF8.self)
    }
}
