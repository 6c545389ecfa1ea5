#if canImport(Glibc)
import Glibc
#endif

/// Per-part results of a parallel loop, each slot written by exactly one iteration.
///
/// `@unchecked Sendable`: each slot is written once by the iteration that owns it and read only
/// after `concurrentPerform` returns (which orders the writes before the reads).
final class PartResults<T>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<T?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        _ = slots.deinitialize()
        slots.deallocate()
    }

    func set(_ i: Int, _ value: T) { slots[i] = value }
    func get(_ i: Int) -> T { slots[i]! }
    func take(_ i: Int) -> T {
        let value = slots[i]!
        slots[i] = nil
        return value
    }
}

/// Read-only views of the catalog's name storage for worker threads.
///
/// `@unchecked Sendable`: the buffers are only read, and the catalog that owns them outlives
/// the `concurrentPerform` call that uses them.
struct SendableNames: @unchecked Sendable {
    let bytes: UnsafeBufferPointer<UInt8>
    let offsets: UnsafeBufferPointer<Int>
}
