#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed-size, zero-filled buffer for the engine's large tables (folded names, name starts,
/// index lists): from 1 MiB on it is mapped from the kernel in whole pages instead of taken
/// from the allocator, which rounds a block of that size up to its next size class (up to a
/// quarter more: 422 MB of folded names took a 470 MB block). Written while the engine is
/// built, read-only afterwards.
///
/// `mappedByteCount` says how many bytes are mapped, so that memory accounting counts them
/// beside what the allocator reports.
///
/// `@unchecked Sendable`: the contents are written only before the buffer is shared.
final class PageBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    let count: Int
    let base: UnsafeMutablePointer<Element>
    /// Bytes mapped for this buffer (whole pages); 0 when it came from the allocator.
    let mappedByteCount: Int

    static var mappingThreshold: Int { 1 << 20 }

    /// A buffer of `count` zero elements.
    init(zeroed count: Int) {
        self.count = count
        let bytes = max(1, count) * MemoryLayout<Element>.stride
        if bytes >= Self.mappingThreshold {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let length = (bytes + page - 1) / page * page
            let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            if let address, address != MAP_FAILED {
                // Huge pages where the kernel grants them on request: one fault and one TLB
                // entry per 2 MiB instead of 512. Only whole, aligned 2 MiB ranges become huge
                // pages, so the mapping holds no more memory for it.
                if length >= 2 << 20 { _ = madvise(address, length, Int32(MADV_HUGEPAGE)) }
                base = address.bindMemory(to: Element.self, capacity: count)
                mappedByteCount = length
                return
            }
        }
        // Small, or the kernel refused the mapping: the allocator (which fails as every
        // allocation does when memory is gone).
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: MemoryLayout<Element>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        base = raw.bindMemory(to: Element.self, capacity: max(1, count))
        mappedByteCount = 0
    }

    deinit {
        if mappedByteCount > 0 {
            munmap(UnsafeMutableRawPointer(base), mappedByteCount)
        } else {
            UnsafeMutableRawPointer(base).deallocate()
        }
    }

    /// Bytes held: the mapped pages, or the elements when allocated.
    var byteCount: Int { mappedByteCount > 0 ? mappedByteCount : max(1, count) * MemoryLayout<Element>.stride }

    @inline(__always)
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    @inline(__always)
    func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: base, count: count))
    }

    @inline(__always)
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count * MemoryLayout<Element>.stride))
    }

    /// The elements as an array (tests).
    var elements: [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }
}
