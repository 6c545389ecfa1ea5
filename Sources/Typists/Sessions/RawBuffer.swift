/// A growable buffer of trivial values (no references: plain numbers and structs of them) in
/// memory it does not free by itself: a session's
/// per-query buffers, written once per key with no uniqueness check and no bounds check in
/// release builds (an `Array` checks both on every write).
///
/// Whoever holds one frees it with `free()`: a session's state does (`SessionStorage`), and a
/// thread's spare sets do (`SessionBuffers`). A copy of the value shares the memory, so a
/// buffer is copied with `copy()` where two owners need their own.
struct RawBuffer<Element> {
    /// The elements, `base[0..<count]`; `capacity` allocated (none while `capacity` is 0).
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private(set) var capacity = 0
    /// Whether `base` was allocated here (and is freed here); memory lent with
    /// `init(lending:capacity:)` is not, and the buffer moves to memory of its own to grow.
    private var ownsMemory = true

    /// An empty buffer that has allocated nothing.
    init() {
        assert(_isPOD(Element.self), "RawBuffer holds trivial values only: it never deinitializes them")
        base = UnsafeMutablePointer(bitPattern: MemoryLayout<Element>.alignment)!
    }

    /// An empty buffer in `capacity` elements at `memory`, which its lender keeps allocated
    /// while the buffer is used and frees itself.
    init(lending memory: UnsafeMutablePointer<Element>, capacity: Int) {
        assert(_isPOD(Element.self), "RawBuffer holds trivial values only: it never deinitializes them")
        base = memory
        self.capacity = capacity
        ownsMemory = false
    }

    var isEmpty: Bool { count == 0 }
    var last: Element? { count > 0 ? base[count - 1] : nil }
    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    subscript(index: Int) -> Element {
        @inline(__always) get {
            assert(index >= 0 && index < count, "RawBuffer index out of range")
            return base[index]
        }
        @inline(__always) set {
            assert(index >= 0 && index < count, "RawBuffer index out of range")
            base[index] = newValue
        }
    }

    /// (The count's arithmetic wraps rather than traps: it is below `capacity`, which fits in
    /// memory, so it cannot overflow.)
    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow(to: count &+ 1) }
        base[count] = element
        count &+= 1
    }

    /// Appends three elements, with one check for room.
    @inline(__always)
    mutating func append(_ first: Element, _ second: Element, _ third: Element) {
        if count &+ 3 > capacity { grow(to: count &+ 3) }
        base[count] = first
        base[count &+ 1] = second
        base[count &+ 2] = third
        count &+= 3
    }

    @inline(__always)
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress, elements.count > 0 else { return }
        if count &+ elements.count > capacity { grow(to: count &+ elements.count) }
        (base + count).update(from: source, count: elements.count)
        count &+= elements.count
    }

    /// Appends `source[range]`, copied from its buffer.
    @inline(__always)
    mutating func append(copying range: Range<Int>, of source: [Element]) {
        source.withUnsafeBufferPointer { append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
    }

    func firstIndex(where predicate: (Element) -> Bool) -> Int? {
        var i = 0
        while i < count {
            if predicate(base[i]) { return i }
            i += 1
        }
        return nil
    }

    func lastIndex(where predicate: (Element) -> Bool) -> Int? {
        var i = count - 1
        while i >= 0 {
            if predicate(base[i]) { return i }
            i -= 1
        }
        return nil
    }

    /// Empties the buffer, keeping its memory.
    @inline(__always)
    mutating func removeAll() { count = 0 }

    @inline(__always)
    mutating func removeLast() {
        assert(count > 0, "removeLast of an empty RawBuffer")
        count -= 1
    }

    @inline(__always)
    mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        count -= 1
        return base[count]
    }

    /// Keeps the first `newCount` elements.
    @inline(__always)
    mutating func truncate(to newCount: Int) {
        assert(newCount >= 0 && newCount <= count, "RawBuffer truncated past its count")
        count = newCount
    }

    mutating func reserveCapacity(_ minimum: Int) {
        if minimum > capacity { grow(to: minimum) }
    }

    /// Room for at least `minimum` elements: doubles, keeping the elements.
    @inline(never)
    mutating func grow(to minimum: Int) {
        let newCapacity = Swift.max(minimum, 2 * capacity, 16)
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if count > 0 { grown.update(from: base, count: count) }
        if capacity > 0 && ownsMemory { base.deallocate() }
        base = grown
        capacity = newCapacity
        ownsMemory = true
    }

    /// A buffer with the same elements in memory of its own.
    func copy() -> RawBuffer {
        var copy = RawBuffer()
        copy.append(contentsOf: elements)
        return copy
    }

    /// Frees the memory; the buffer is empty after it.
    mutating func free() {
        if capacity > 0 && ownsMemory { base.deallocate() }
        self = RawBuffer()
    }

    /// Frees the memory and leaves the buffer unusable: for an owner that is going away.
    func deallocate() {
        if capacity > 0 && ownsMemory { base.deallocate() }
    }
}
