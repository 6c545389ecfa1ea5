/// A growable table with reference semantics, for the world's per-typist and per-request state.
///
/// The world makes its tables when a run begins (`VirtualWorld.beginRun`) and never copies
/// them, so each has exactly one user; an array in their place paid a copy-on-write uniqueness
/// check, a call, on every write, several times per keystroke.
final class WorldTable<Element> {
    // Touched only by the table's own accessors, which never overlap.
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<Element>
    @exclusivity(unchecked) private(set) var count: Int
    @exclusivity(unchecked) private var capacity: Int

    /// An empty table.
    init(capacity: Int = 16) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
        count = 0
    }

    /// A table holding `elements`, in order.
    init(_ elements: [Element]) {
        capacity = max(1, elements.count)
        base = .allocate(capacity: capacity)
        count = elements.count
        _ = UnsafeMutableBufferPointer(start: base, count: count).initialize(from: elements)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    subscript(index: Int) -> Element {
        @inline(__always) get {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "WorldTable: index out of range")
            return base[index]
        }
        @inline(__always) _modify {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "WorldTable: index out of range")
            yield &base[index]
        }
    }

    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    @inline(__always)
    func popLast() -> Element? {
        guard count > 0 else { return nil }
        count -= 1
        return (base + count).move()
    }

    private func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}

