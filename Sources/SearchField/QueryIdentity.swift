import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a search is for: the normalized text, the scope and the tokens (docs/strategies.md).
///
/// Two requests answer the same question exactly when their identities are equal, so every
/// "is this result still current?" check in Typestorm compares identities, never raw text.
public struct QueryIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The text, held directly, and the scope and tokens as a number standing for them
    /// (`QueryExtras`; 0: no scope and no tokens, as nearly every identity has). So making an
    /// identity allocates nothing of its own, copying one costs the string's reference count
    /// alone (none for a text of up to 15 UTF-8 bytes, which the string holds inline), and two
    /// compare by their texts and one integer.
    @usableFromInline var _text: String
    @usableFromInline var _extras: UInt32

    /// The query text, as the strategy searches for it (trimmed when its normalizer trims).
    @inlinable public var text: String {
        get { _text }
        set { _text = newValue }
    }
    /// The search scope (`nil`: all scopes).
    public var scope: String? {
        get { _extras == 0 ? nil : QueryExtras.shared.parts(_extras).scope }
        set { _extras = QueryExtras.shared.number(scope: newValue, tokens: tokens) }
    }
    /// Active search tokens (filter chips), in the order the field holds them; empty for none.
    public var tokens: [String] {
        get { _extras == 0 ? [] : QueryExtras.shared.parts(_extras).tokens }
        set { _extras = QueryExtras.shared.number(scope: scope, tokens: newValue) }
    }

    /// The identity of searching `text` within `scope` (`nil`: all) with `tokens`.
    @inlinable
    public init(text: String, scope: String? = nil, tokens: [String] = []) {
        _text = text
        _extras = scope == nil && tokens.isEmpty ? 0 : QueryExtras.shared.number(scope: scope, tokens: tokens)
    }

    /// Hashes the text, the scope and the tokens, in that order (equal identities hash equally).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(_text)
        hasher.combine(scope)
        hasher.combine(tokens)
    }

    /// The texts, then the numbers standing for the scope and tokens (one number per distinct
    /// pair, so equal numbers mean equal parts). Copies of one text compare equal by the
    /// string's own first check (the same bits), without reading its bytes.
    @inlinable
    public static func == (a: QueryIdentity, b: QueryIdentity) -> Bool {
        a._extras == b._extras && a._text == b._text
    }

    /// The number standing for the scope and tokens (0: neither): within one process, equal
    /// numbers mean equal scopes and tokens, so a hash of the text and this number hashes the
    /// whole identity without reading the scope's and tokens' strings.
    @inlinable
    package var extrasNumber: UInt32 { _extras }

    /// Whether `other` is this very value: the same text string (or the same inline small
    /// string) and the same scope and tokens. Enough for equality, not needed for it (equal
    /// texts in two strings are equal but not the same value); it never reads the text's bytes.
    @inlinable @inline(__always)
    package func isSameValue(as other: QueryIdentity) -> Bool {
        #if arch(x86_64) || arch(arm64)
        // A string is two words on these platforms: the same two words are the same value.
        typealias Bits = (UInt64, UInt64)
        let mine = unsafeBitCast(_text, to: Bits.self), theirs = unsafeBitCast(other._text, to: Bits.self)
        return _extras == other._extras && mine.0 == theirs.0 && mine.1 == theirs.1
        #else
        return self == other
        #endif
    }

    public var description: String {
        var parts = "\"\(text)\""
        if let scope { parts += " in \(scope)" }
        if !tokens.isEmpty { parts += " [" + tokens.joined(separator: ",") + "]" }
        return parts
    }
}

/// The scopes and token lists of query identities, each distinct pair once, numbered from 1:
/// an identity holds the number, so that the common identity (a text alone) needs no box, and
/// equal numbers mean equal pairs. A process keeps the few pairs its fields use (scopes and
/// token lists come from the scenario, not from typing), and numbers are never reused.
@usableFromInline
final class QueryExtras: @unchecked Sendable {
    @usableFromInline static let shared = QueryExtras()

    struct Parts: Hashable {
        var scope: String?
        var tokens: [String]
    }

    private struct Table {
        var parts: [Parts] = []
        var numbers: [Parts: UInt32] = [:]
        /// The pair asked for last, and its number: a field asks for the same pair on every
        /// keystroke (its scope and tokens change rarely), and comparing it with the one asked for
        /// last is cheap (the same strings and array compare equal without reading them), where
        /// the dictionary hashes every string of the pair.
        var last: (parts: Parts, number: UInt32)?
    }

    /// Read and written only while `busy` is held (`withTable`): `@unchecked Sendable` rests on it.
    private var table = Table()
    /// A spin lock of its own, as this module depends on no other module of the project: it is
    /// taken only to make or read an identity with a scope or tokens, for a dictionary lookup, so
    /// a waiter spins for a moment and yields the core if it has to wait longer. Atomics with
    /// acquiring and releasing order, which ThreadSanitizer sees.
    private let busy = Atomic<Bool>(false)

    private func withTable<Result>(_ body: (inout Table) -> Result) -> Result {
        var spins = 0
        while !busy.compareExchange(expected: false, desired: true, successOrdering: .acquiring,
                                    failureOrdering: .relaxed).exchanged {
            spins += 1
            if spins % 64 == 0 { sched_yield() }
        }
        defer { busy.store(false, ordering: .releasing) }
        return body(&table)
    }

    /// The number standing for `scope` and `tokens` (0 for neither).
    @usableFromInline
    func number(scope: String?, tokens: [String]) -> UInt32 {
        if scope == nil, tokens.isEmpty { return 0 }
        return withTable { table in
            if let last = table.last, last.parts.scope == scope, last.parts.tokens == tokens { return last.number }
            let key = Parts(scope: scope, tokens: tokens)
            let number: UInt32
            if let known = table.numbers[key] {
                number = known
            } else {
                table.parts.append(key)
                number = UInt32(table.parts.count)
                table.numbers[key] = number
            }
            table.last = (key, number)
            return number
        }
    }

    /// The pair `number` (not 0) stands for.
    func parts(_ number: UInt32) -> Parts {
        withTable { table in table.parts[Int(number) - 1] }
    }
}

extension Optional where Wrapped == QueryIdentity {
    /// The same answer as the standard library's `Optional` equality, without its tuple of two
    /// optionals, which the optimizer destroyed through the runtime's generic tuple witness (a
    /// few percent of a simulated keystroke: strategies compare optional identities constantly).
    @inlinable
    public static func == (lhs: QueryIdentity?, rhs: QueryIdentity?) -> Bool {
        switch lhs {
        case .none:
            if case .none = rhs { return true }
            return false
        case let .some(lhs):
            guard case let .some(rhs) = rhs else { return false }
            return lhs == rhs
        }
    }

    /// Whether two optional identities differ: the negation of the optional `==` above, so `nil`
    /// (no query) equals only `nil`.
    @inlinable
    public static func != (lhs: QueryIdentity?, rhs: QueryIdentity?) -> Bool {
        !(lhs == rhs)
    }
}

/// Turns what the field holds into the text a strategy searches for.
///
/// The two knobs every preset shares: trimming and the minimum length (in characters, as
/// `String.count` counts them, which is what the seed's `query.count >= 2` does).
public struct QueryNormalizer: Hashable, Sendable {
    /// Whether leading and trailing white space is removed before searching.
    public var trims: Bool
    /// The shortest query searched, in characters; shorter ones leave the field idle.
    public var minimumLength: Int

    /// A normalizer that trims when `trims` and searches from `minimumLength` characters.
    public init(trims: Bool, minimumLength: Int) {
        self.trims = trims
        self.minimumLength = minimumLength
    }

    /// The text after trimming (when on). Returns the same string, without copying, when there is
    /// nothing to trim.
    ///
    /// - Complexity: O(1) when the ends are not whitespace, else O(n).
    @inlinable
    public func normalize(_ text: String) -> String {
        trims ? Self.trimmed(text) : text
    }

    /// Whether `text` (already normalized) is long enough to search for.
    @inlinable
    public func isSearchable(_ text: String) -> Bool {
        if minimumLength <= 0 { return true }
        let utf8 = text.utf8
        if utf8.count < minimumLength { return false }
        // Between two ASCII bytes other than CR there is always a character boundary (nothing
        // in ASCII extends, prepends or joins; CR LF is the one pair that stays together). So
        // when the first `minimumLength + 1` bytes (or all of them, if fewer) are such bytes, the
        // first `minimumLength` bytes are whole characters of their own: the text is long
        // enough, whatever follows. Read in place (see `trimmed`); only that prefix is looked at.
        let prefixIsPlain = utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            let end = Swift.min(bytes.count, minimumLength + 1)
            var index = 0
            while index < end {
                let byte = bytes[index]
                if byte >= 0x80 || byte == 0x0D { return false }
                index += 1
            }
            return true
        }
        if prefixIsPlain == true { return true }
        return Self.hasCharacters(text, atLeast: minimumLength)
    }

    /// Whether `text` has at least `count` characters, counting no further than that (a
    /// character of Hangul or CJK takes the grapheme-breaking rules to find, so counting a
    /// whole query to compare it with 2 or 3 is most of the cost).
    ///
    /// Typed queries are mostly scalars that are each a character of their own whatever stands
    /// beside them (``isOwnCharacter(_:)``); while two such scalars follow each other there is
    /// a character boundary between them, so they are counted from the bytes in place. Anything
    /// else is left to the standard library's grapheme breaking.
    @inlinable
    static func hasCharacters(_ text: String, atLeast count: Int) -> Bool {
        if count <= 0 { return true }
        let simple = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard !bytes.isEmpty else { return false }
            var value = scalarValue(bytes, at: 0)
            guard isOwnCharacter(value) else { return nil }
            var index = 0
            var characters = 0
            while true {
                index += value < 0x80 ? 1 : value < 0x800 ? 2 : value < 0x10000 ? 3 : 4
                characters += 1
                if index == bytes.count { return characters >= count }
                // A boundary after the scalar just counted only if another such scalar follows.
                value = scalarValue(bytes, at: index)
                guard isOwnCharacter(value) else { return nil }
                if characters >= count { return true }
            }
        }
        if let simple, let simple { return simple }
        return text.index(text.startIndex, offsetBy: count, limitedBy: text.endIndex) != nil
    }

    /// Scalars whose Grapheme_Cluster_Break is Other, or LV / LVT for the precomposed Hangul
    /// syllables, and that are not Extended_Pictographic: printable ASCII and the space, Hangul
    /// compatibility jamo (what a Korean input method shows mid-syllable), CJK unified
    /// ideographs and extension A, Hangul syllables. Between two of them no grapheme rule joins
    /// (the Hangul rules join only conjoining jamo L, V and T), so each is a character.
    @inlinable
    static func isOwnCharacter(_ value: UInt32) -> Bool {
        (value >= 0x20 && value < 0x7F) || (value >= 0x3131 && value <= 0x318E) || (value >= 0x3400 && value <= 0x4DBF)
            || (value >= 0x4E00 && value <= 0x9FFF) || (value >= 0xAC00 && value <= 0xD7A3)
    }

    /// The identity to search for, or `nil` when the text is too short.
    @inlinable
    public func identity(text: String, scope: String?, tokens: [String]) -> QueryIdentity? {
        // The common case in one read of the bytes in place (see `trimmed` and `isSearchable`):
        // nothing to trim, and the text long enough by its first bytes alone, or too short by its
        // byte count. Anything else takes the two steps one after the other.
        let minimumLength = minimumLength, trims = trims
        let quick = text.utf8.withContiguousStorageIfAvailable { bytes -> QuickVerdict in
            let count = bytes.count
            if trims, !Self.hasNothingToTrim(bytes) { return .slow }
            if minimumLength <= 0 { return .searchable }
            if count < minimumLength { return .tooShort }
            let end = Swift.min(count, minimumLength + 1)
            var index = 0
            while index < end {
                let byte = bytes[index]
                if byte >= 0x80 || byte == 0x0D { return .countCharacters }
                index += 1
            }
            return .searchable
        }
        switch quick {
        case .searchable?:
            return QueryIdentity(text: text, scope: scope, tokens: tokens)
        case .tooShort?:
            return nil
        case .countCharacters?:
            guard Self.hasCharacters(text, atLeast: minimumLength) else { return nil }
            return QueryIdentity(text: text, scope: scope, tokens: tokens)
        case .slow?, nil:
            break
        }
        let normalized = normalize(text)
        guard isSearchable(normalized) else { return nil }
        return QueryIdentity(text: normalized, scope: scope, tokens: tokens)
    }

    /// What one read of a text's bytes tells ``identity(text:scope:tokens:)``.
    @usableFromInline
    enum QuickVerdict {
        /// Nothing to trim, and long enough.
        case searchable
        /// Nothing to trim, and fewer bytes than the minimum length in characters.
        case tooShort
        /// Nothing to trim; whether it is long enough takes counting its characters.
        case countCharacters
        /// Trimming may change it: normalize, then measure.
        case slow
    }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)` without Foundation: Unicode White_Space
    /// at both ends.
    @inlinable
    public static func trimmed(_ text: String) -> String {
        // The UTF-8 view's ends are O(1) reads, with no copy of the string (a `withUTF8` on a
        // copy cost a retain and a release per call, and this runs several times a keystroke).
        // Native and small strings hand out their UTF-8 in place (a small one on the stack):
        // reading both ends that way costs a fraction of walking the view's indices.
        let clean = text.utf8.withContiguousStorageIfAvailable { bytes in hasNothingToTrim(bytes) }
        if clean == true { return text }
        // ASCII: White_Space there is exactly tab through carriage return and the space, so the
        // bytes are trimmed in place (a trailing space after a word is the common case).
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes -> String? in
            for byte in bytes where byte >= 0x80 { return nil }
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
            guard let start = bytes.firstIndex(where: { !isSpace($0) }) else { return "" }
            let end = bytes.lastIndex(where: { !isSpace($0) })!
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start...end]), as: UTF8.self)
        }
        if let ascii, let ascii { return ascii }
        let scalars = text.unicodeScalars
        guard let start = scalars.firstIndex(where: { !isWhiteSpace($0.value) }) else { return "" }
        let end = scalars.lastIndex(where: { !isWhiteSpace($0.value) })!
        if start == scalars.startIndex, scalars.index(after: end) == scalars.endIndex { return text }
        return String(scalars[start...end])
    }

    /// Whether the UTF-8 of a string (valid, as every `String`'s is) neither begins nor ends
    /// with White_Space: the first and the last scalar decoded in place.
    @inlinable
    static func hasNothingToTrim(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return true }
        if first > 0x20 && first < 0x80 && last > 0x20 && last < 0x80 { return true }
        var start = bytes.count - 1
        while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return !isWhiteSpace(scalarValue(bytes, at: 0)) && !isWhiteSpace(scalarValue(bytes, at: start))
    }

    /// The value of the scalar whose UTF-8 begins at `index`.
    @inlinable
    static func scalarValue(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32 {
        let lead = UInt32(bytes[index])
        if lead < 0x80 { return lead }
        func tail(_ offset: Int) -> UInt32 { UInt32(bytes[index + offset] & 0x3F) }
        if lead < 0xE0 { return (lead & 0x1F) << 6 | tail(1) }
        if lead < 0xF0 { return (lead & 0x0F) << 12 | tail(1) << 6 | tail(2) }
        return (lead & 0x07) << 18 | tail(1) << 12 | tail(2) << 6 | tail(3)
    }

    /// Unicode's White_Space property (PropList.txt: 25 code points), the same answer as
    /// `Unicode.Scalar.Properties.isWhitespace` for every scalar without its table lookup (a
    /// lookup per end of a non-ASCII text would be the largest single cost of a Korean or
    /// Chinese keystroke).
    @inlinable
    static func isWhiteSpace(_ value: UInt32) -> Bool {
        if value < 0x80 { return value == 0x20 || (value >= 0x09 && value <= 0x0D) }
        switch value {
        case 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }
}

/// The search field's raw input: exactly what the text binding, scope picker and token field hold.
public struct FieldInput: Hashable, Sendable {
    /// The text binding's value, untrimmed.
    public var text: String = ""
    /// The scope picker's value; `nil` for all scopes.
    public var scope: String? = nil
    /// The token field's tokens; empty for none.
    public var tokens: [String] = []

    /// An input holding `text`, `scope` and `tokens` (an empty field by default).
    public init(text: String = "", scope: String? = nil, tokens: [String] = []) {
        self.text = text
        self.scope = scope
        self.tokens = tokens
    }

    /// Applies an input event (text, scope or tokens) to the field: `true` when it changed what
    /// the field holds, `false` when it did not (the same text set again), `nil` for events that
    /// are not input. The one place the strategies that react to every change read their input.
    @inline(__always)
    public mutating func absorb(_ event: SearchEvent) -> Bool? {
        // One case per pattern: a shared binding (`let .a(x), let .b(x)`) copied the whole event
        // out first.
        switch event {
        case let .textChanged(text, _):
            return absorb(text: text)
        case let .fieldTextSet(text):
            return absorb(text: text)
        case let .scopeChanged(scope):
            guard scope != self.scope else { return false }
            self.scope = scope
        case let .tokensChanged(tokens):
            guard tokens != self.tokens else { return false }
            self.tokens = tokens
        case .submitted, .timerFired, .responseArrived, .requestFailed:
            return nil
        }
        return true
    }

    /// The text binding's new value: whether it changed.
    @inline(__always)
    private mutating func absorb(text: String) -> Bool {
        guard text != self.text else { return false }
        self.text = text
        return true
    }
}
