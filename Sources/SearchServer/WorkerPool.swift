import Dispatch
import Foundation
import Locking
import TypestormMetrics
import Synchronization

/// A fixed set of threads taking jobs from a bounded FIFO queue.
///
/// Searches block and spin the CPU, so they run here rather than on the cooperative pool or on
/// libmicrohttpd's I/O threads (which must keep accepting, timing out and answering `/healthz`
/// while every worker is busy). A slot is reserved before the connection is suspended so that a
/// full queue can still be answered with a 503.
final class WorkerPool: Sendable {
    private struct State {
        /// Jobs in arrival order; nil tells a thread to exit.
        var queue = Deque<(@Sendable () -> Void)?>()
        var reserved = 0
        var running = 0
    }

    let capacity: Int
    let threadCount: Int
    private let state = Locked(State())
    private let available = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    init(threads: Int, capacity: Int, name: String) {
        self.capacity = capacity
        threadCount = threads
        for index in 0..<threads {
            let thread = Thread { [self] in self.workLoop() }
            thread.name = "\(name)-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Jobs waiting, reserved slots included.
    var depth: Int { state.withLock { $0.queue.count + $0.reserved } }
    /// Jobs waiting or running.
    var busy: Int { state.withLock { $0.queue.count + $0.reserved + $0.running } }

    /// Reserves a queue slot; false when the queue is full.
    func reserve() -> Bool {
        state.withLock { s in
            guard s.queue.count + s.reserved < capacity else { return false }
            s.reserved += 1
            return true
        }
    }

    /// Enqueues a job into a slot taken with `reserve()`.
    func enqueueReserved(_ job: @escaping @Sendable () -> Void) {
        state.withLock { s in
            precondition(s.reserved > 0, "enqueueReserved without a reservation")
            s.reserved -= 1
            s.queue.append(job)
        }
        available.signal()
    }

    /// Stops the threads after the queued jobs ran; blocks until they exited.
    func shutdown() {
        state.withLock { s in for _ in 0..<threadCount { s.queue.append(nil) } }
        for _ in 0..<threadCount { available.signal() }
        for _ in 0..<threadCount { exited.wait() }
    }

    private func workLoop() {
        while true {
            available.wait()
            let job = state.withLock { s -> (@Sendable () -> Void)? in
                // The queue lets go of the job: a job captures the server, which owns this pool.
                let job = s.queue.popFirst() ?? nil
                if job != nil { s.running += 1 }
                return job
            }
            guard let job else { break }
            job()
            state.withLock { $0.running -= 1 }
        }
        exited.signal()
    }
}
