/// The text of the search field after a key, as UTF-8 bytes: what `TypingEvent.Action.edit`
/// carries.
///
/// A generated session writes the texts of one query into one byte buffer, and a `FieldText` is a
/// view of its part of it (the buffer is shared, never copied), so handing a text out neither
/// validates UTF-8 nor allocates; the session reuses the buffer for its next query once no text
/// of the last one is kept. Keeping a text is safe: it keeps its buffer alive, and the session
/// then writes the next query into a new one. ``string`` makes a `String` when one is needed.
///
/// The bytes are always valid UTF-8: a generated session writes whole scalars, and
/// ``init(_:)`` copies a String's own UTF-8.
public struct FieldText: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The buffer this text is part of.
    @usableFromInline let storage: FieldBytes
    @usableFromInline let start: Int32
    @usableFromInline let count: Int32

    /// The field's text as a String (made on each call: the UTF-8 is copied, and a text over
    /// 15 bytes is allocated on the heap).
    ///
    /// A text of up to 15 bytes (most of a search field's) is copied straight into the small
    /// String, which for ASCII is then made with no UTF-8 validation, where
    /// `String(decoding:as:)` validates it and copies it once more; a longer text, which the
    /// String keeps on the heap, is cheaper made by `String(decoding:as:)`.
    ///
    /// - Complexity: O(``utf8Count``).
    @inlinable
    public var string: String {
        withUTF8 { utf8 in
            guard utf8.count <= 15 else { return String(decoding: utf8, as: UTF8.self) }
            return String(unsafeUninitializedCapacity: utf8.count) { buffer in
                if let source = utf8.baseAddress { copyBytes(from: source, to: buffer.baseAddress!, count: utf8.count) }
                return utf8.count
            }
        }
    }

    /// The text (the same as ``string``).
    public var description: String { string }

    /// The text's UTF-8 bytes (copied into a new array on each call; ``withUTF8(_:)`` reads
    /// them in place).
    ///
    /// - Complexity: O(``utf8Count``).
    @inlinable
    public var utf8: ArraySlice<UInt8> { withUTF8 { ArraySlice($0) } }

    /// Length of the text in UTF-8 bytes.
    @inlinable
    public var utf8Count: Int { Int(count) }

    /// Whether the field is empty.
    @inlinable
    public var isEmpty: Bool { count == 0 }

    /// A text with the characters of `string`.
    public init(_ string: String) {
        var string = string
        let bytes = string.withUTF8 { utf8 in
            let bytes = FieldBytes(capacity: utf8.count)
            if let base = utf8.baseAddress { bytes.base.initialize(from: base, count: utf8.count) }
            return bytes
        }
        storage = bytes
        start = 0
        count = Int32(bytes.capacity)
    }

    /// A text with the characters of a string literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Bytes `start..<start + count` of `storage`, which must be valid UTF-8 and never be
    /// written again.
    @inlinable @inline(__always)
    init(storage: FieldBytes, start: Int32, count: Int32) {
        self.storage = storage
        self.start = start
        self.count = count
    }

    /// Bytes `start..<start + count` of a copy of `bytes`, which must be valid UTF-8.
    init(copying bytes: [UInt8], start: Int32, count: Int32) {
        let storage = FieldBytes(capacity: Int(count))
        bytes.withUnsafeBufferPointer { storage.base.initialize(from: $0.baseAddress! + Int(start), count: Int(count)) }
        self.init(storage: storage, start: 0, count: count)
    }

    /// Calls `body` with the text's UTF-8 bytes, valid only during the call.
    @inlinable
    public func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withExtendedLifetime(storage) {
            try body(UnsafeBufferPointer(start: storage.base + Int(start), count: Int(count)))
        }
    }

    /// Texts are equal when their bytes are.
    public static func == (lhs: FieldText, rhs: FieldText) -> Bool {
        lhs.count == rhs.count && lhs.withUTF8 { a in rhs.withUTF8 { b in a.elementsEqual(b) } }
    }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) {
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Reads a text written as a JSON string.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Writes the text as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(string)
    }
}

/// Bytes that field texts are views of: a generated session writes the texts of a query into
/// one of these, each byte once, and hands out ``FieldText``s of its parts; a text keeps it
/// alive. Nothing writes a byte that a text shows (a session writes past every text it has
/// made, and starts over only in a buffer no text holds), so texts read it from any thread.
@usableFromInline
final class FieldBytes: @unchecked Sendable {
    // @unchecked: see above; the bytes a text views are written before the text exists and
    // never after.
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    /// Bytes allocated at `base`.
    let capacity: Int

    init(capacity: Int) {
        base = .allocate(capacity: max(capacity, 1))
        self.capacity = capacity
    }

    deinit { base.deallocate() }

    /// A buffer of no bytes, for sessions that have not typed yet.
    static let empty = FieldBytes(capacity: 0)
}
