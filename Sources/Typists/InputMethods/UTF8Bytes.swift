/// Small UTF-8 helpers on byte buffers, so the field is edited without building Strings.
enum UTF8Bytes {
    @inline(__always)
    static func append(_ scalar: UInt32, to bytes: inout RawBuffer<UInt8>) {
        switch scalar {
        case 0..<0x80:
            bytes.append(UInt8(scalar))
        case 0x80..<0x800:
            bytes.append(UInt8(0xC0 | scalar >> 6))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            bytes.append(UInt8(0xE0 | scalar >> 12))
            bytes.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        default:
            bytes.append(UInt8(0xF0 | scalar >> 18))
            bytes.append(UInt8(0x80 | (scalar >> 12) & 0x3F))
            bytes.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// The scalar at `offset` of valid UTF-8 and its length in bytes.
    @inline(__always)
    static func decode(_ bytes: [UInt8], at offset: Int) -> (scalar: UInt32, width: Int) {
        let b0 = UInt32(bytes[offset])
        if b0 < 0x80 { return (b0, 1) }
        if b0 < 0xE0 { return ((b0 & 0x1F) << 6 | UInt32(bytes[offset + 1]) & 0x3F, 2) }
        if b0 < 0xF0 {
            return ((b0 & 0x0F) << 12 | (UInt32(bytes[offset + 1]) & 0x3F) << 6 | UInt32(bytes[offset + 2]) & 0x3F, 3)
        }
        return ((b0 & 0x07) << 18 | (UInt32(bytes[offset + 1]) & 0x3F) << 12
                | (UInt32(bytes[offset + 2]) & 0x3F) << 6 | UInt32(bytes[offset + 3]) & 0x3F, 4)
    }

    /// Remove the last scalar; `false` if empty.
    @inline(__always)
    static func removeLastScalar(_ bytes: inout RawBuffer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
        return true
    }
}
