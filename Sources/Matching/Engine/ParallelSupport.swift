#if canImport(Glibc)
import Glibc
#endif

/// Read-only views of the catalog's name storage for worker threads.
///
/// `@unchecked Sendable`: the buffers are only read, and the catalog that owns them outlives
/// the `concurrentPerform` call that uses them.
struct SendableNames: @unchecked Sendable {
    let bytes: UnsafeBufferPointer<UInt8>
    let offsets: UnsafeBufferPointer<Int>
}
