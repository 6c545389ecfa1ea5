/// The bits of a key's name, a `String` that holds no reference (every name is a small,
/// immortal string, checked when the table is made): a `String` moved out of a copy of them is
/// owned without a retain, where one copied from a table of `String`s is retained for the
/// event (its consumer releases either, which for an immortal string does nothing).
@usableFromInline
struct KeyNameBits {
    @usableFromInline let bits: (UInt64, UInt64)

    init(_ name: String) {
        bits = unsafeBitCast(name, to: (UInt64, UInt64).self)
        // Bit 63 of a String's object word marks an immortal value (small strings and
        // literals), whose reference counting does nothing.
        precondition(MemoryLayout<String>.size == 16 && bits.1 >> 63 == 1, "a key name that is not an immortal string")
    }

    /// The name, moved out of a copy of the bits: the `String` is owned without a retain (the
    /// copy is plain bits, so nothing is left to destroy once it is moved out).
    @inlinable @inline(__always)
    var string: String {
        var copy = self
        return withUnsafeMutablePointer(to: &copy) { $0.withMemoryRebound(to: String.self, capacity: 1) { $0.move() } }
    }
}
