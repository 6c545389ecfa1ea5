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
    @usableFromInline let storage: [UInt8]
    @usableFromInline let start: Int32
    @usableFromInline let count: Int32

    /// The field's text as a String (made on each call: the UTF-8 is copied, and a text over
    /// 15 bytes is allocated on the heap).
    ///
    /// - Complexity: O(``utf8Count``).
    @inlinable
    public var string: String {
        withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    /// The text (the same as ``string``).
    public var description: String { string }

    /// The text's UTF-8 bytes, without copying them.
    @inlinable
    public var utf8: ArraySlice<UInt8> { storage[Int(start)..<Int(start + count)] }

    /// Length of the text in UTF-8 bytes.
    @inlinable
    public var utf8Count: Int { Int(count) }

    /// Whether the field is empty.
    @inlinable
    public var isEmpty: Bool { count == 0 }

    /// A text with the characters of `string`.
    public init(_ string: String) {
        storage = Array(string.utf8)
        start = 0
        count = Int32(storage.count)
    }

    /// A text with the characters of a string literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Bytes `start..<start + count` of `storage`, which must be valid UTF-8.
    @inlinable
    init(storage: [UInt8], start: Int32, count: Int32) {
        self.storage = storage
        self.start = start
        self.count = count
    }

    /// Calls `body` with the text's UTF-8 bytes, valid only during the call.
    @inlinable
    public func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer {
            try body(UnsafeBufferPointer(rebasing: $0[Int(start)..<Int(start + count)]))
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
