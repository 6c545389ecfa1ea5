extension Array where Element: BitwiseCopyable {
    /// Appends `source[range]` by copying from its buffer: no `ArraySlice` is made, which
    /// costs generation a reference count and the generic append's slower path.
    @inline(__always)
    mutating func append(copying range: Range<Int>, of source: [Element]) {
        source.withUnsafeBufferPointer { append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Appends all of `source` by copying from its buffer.
    @inline(__always)
    mutating func append(copying source: [Element]) {
        guard !source.isEmpty else { return }
        source.withUnsafeBufferPointer { append(contentsOf: $0) }
    }
}
