#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex: the project's one lock type, used by every module in
/// place of `Synchronization.Mutex`, with the same `withLock` shape.
///
/// Why not `Mutex`: on Linux, ThreadSanitizer does not see `Synchronization.Mutex` lock and
/// unlock (they happen inside the toolchain's uninstrumented library), so every access made under
/// it from two threads is reported as a race, and a real race cannot be told from those. A
/// pthread mutex is intercepted by ThreadSanitizer, so under `Locked` a report is a real race.
/// The uncontended cost is one `pthread_mutex_lock`/`unlock` call pair (docs/reliability.md,
/// "Sanitizers", has the instruction counts on the hot paths).
///
/// The mutex lives in memory allocated once by `init` and freed by `deinit`, so its address
/// never changes, as POSIX requires. A class rather than a `~Copyable` struct so that it can be
/// captured by escaping closures like any other reference.
///
/// `@unchecked Sendable`: `value` is read and written only inside `withLock`, that is only while
/// `mutex` is held; `init` and `withLock` take and give values as `sending`, as `Mutex` does, so a
/// non-`Sendable` value cannot stay reachable from outside the lock.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Unchecked: the lock already makes every access exclusive, and Swift's dynamic check on
    /// a class's stored property would cost about as much as the lock itself on each `withLock`.
    @exclusivity(unchecked) @usableFromInline var value: Value

    /// A lock holding `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// Not reentrant: calling `withLock` on the same lock from inside `body` deadlocks, as with
    /// `Mutex`.
    @inlinable @inline(__always)
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        lock()
        defer { unlock() }
        return try body(&value)
    }

    /// Like `withLock`, but returns `nil` at once, without running `body`, when another thread
    /// holds the lock.
    @inlinable @inline(__always)
    package func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard tryLock() else { return nil }
        defer { unlock() }
        return try body(&value)
    }

    @inlinable
    func lock() {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "pthread_mutex_lock failed with \(status)")
    }

    @inlinable
    func tryLock() -> Bool {
        pthread_mutex_trylock(mutex) == 0
    }

    @inlinable
    func unlock() {
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "pthread_mutex_unlock failed with \(status)")
    }
}
