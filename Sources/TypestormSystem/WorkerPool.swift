import Dispatch
import Foundation
import Locking
import TypestormMetrics

/// A fixed set of threads taking jobs from one FIFO queue (`Deque`), optionally bounded: the one
/// thread pool for blocking, CPU-bound work. The HTTP search server's workers and the in-process
/// engine backend both run their searches here, because searches block and spin the CPU: never
/// on the cooperative pool (which runs the typists' timers) nor on an I/O thread (which must keep
/// accepting, timing out and answering while every worker is busy).
///
/// A job leaves the queue when a thread takes it, so the pool holds no job that ran (jobs often
/// capture their owner, which owns the pool).
package final class WorkerPool<Job: Sendable>: Sendable {
    private struct State {
        var queue = Deque<Job>()
        /// Slots taken with `reserve()` and not yet filled.
        var reserved = 0
        var running = 0
        /// No job is accepted any more.
        var stopping = false
        /// `shutdown` told the threads to exit.
        var joined = false
    }

    /// Jobs that may wait at once, reserved slots included.
    package let capacity: Int
    package let threadCount: Int
    private let state = Locked(State())
    private let available = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    private let perform: @Sendable (Job) -> Void
    /// Set for a pool made with `performBatch`: a thread takes up to `batchLimit` waiting jobs
    /// at once and runs them in one call.
    private let performBatch: (@Sendable (inout [Job]) -> Void)?
    private let batchLimit: Int

    /// `threads` threads named `name-0`, `name-1`, … calling `perform` for each job in arrival
    /// order. `capacity`: jobs that may wait (`Int.max`: unbounded). `startSuspended`: the threads
    /// take no job until `resume()`, so tests can queue and cancel jobs deterministically.
    package init(threads: Int, capacity: Int = .max, name: String, startSuspended: Bool = false,
                 perform: @escaping @Sendable (Job) -> Void) {
        precondition(threads >= 1, "a worker pool needs at least one thread")
        self.capacity = capacity
        threadCount = threads
        self.perform = perform
        performBatch = nil
        batchLimit = 1
        startThreads(name: name, startSuspended: startSuspended)
    }

    /// `threads` threads that each take the jobs waiting when it wakes (up to `batchLimit`,
    /// shared out fairly between the threads) and hand them to `performBatch` in arrival order,
    /// in one call: a caller that hands the pool several jobs at once wakes a thread once, and
    /// the thread can answer them together. Unbounded queue.
    package init(threads: Int, name: String, startSuspended: Bool = false, batchLimit: Int,
                 performBatch: @escaping @Sendable (inout [Job]) -> Void) {
        precondition(threads >= 1, "a worker pool needs at least one thread")
        capacity = .max
        threadCount = threads
        perform = { _ in preconditionFailure("a batch pool runs its jobs through performBatch") }
        self.performBatch = performBatch
        self.batchLimit = max(1, batchLimit)
        startThreads(name: name, startSuspended: startSuspended)
    }

    private func startThreads(name: String, startSuspended: Bool) {
        if !startSuspended { resume() }
        for index in 0..<threadCount {
            let thread = Thread { [self] in
                gate.wait()
                if performBatch != nil { batchLoop() } else { workLoop() }
            }
            thread.name = "\(name)-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Jobs waiting, reserved slots included.
    package var depth: Int { state.withLock { $0.queue.count + $0.reserved } }
    /// Jobs waiting or running.
    package var busy: Int { state.withLock { $0.queue.count + $0.reserved + $0.running } }

    /// Lets threads started suspended take jobs.
    package func resume() {
        for _ in 0..<threadCount { gate.signal() }
    }

    /// Reserves a queue slot (for a job that comes later, `enqueueReserved`); false when the
    /// queue is full or the pool is stopping.
    package func reserve() -> Bool {
        state.withLock { s in
            guard !s.stopping, s.queue.count + s.reserved < capacity else { return false }
            s.reserved += 1
            return true
        }
    }

    /// Enqueues a job into a slot taken with `reserve()`.
    package func enqueueReserved(_ job: Job) {
        state.withLock { s in
            precondition(s.reserved > 0, "enqueueReserved without a reservation")
            s.reserved -= 1
            s.queue.append(job)
        }
        available.signal()
    }

    /// Enqueues `jobs` in order under one lock and wakes one thread for them (a batch pool's
    /// threads take every waiting job when they wake); false (and none queued) when the pool
    /// is stopping or the queue has no room for all of them.
    package func enqueue(contentsOf jobs: [Job]) -> Bool {
        guard !jobs.isEmpty else { return true }
        let accepted = state.withLock { s -> Bool in
            guard !s.stopping, s.queue.count + s.reserved <= capacity - jobs.count else { return false }
            for job in jobs { s.queue.append(job) }
            return true
        }
        if accepted {
            if performBatch != nil {
                available.signal()
            } else {
                for _ in jobs { available.signal() }
            }
        }
        return accepted
    }

    /// Enqueues `job`; false (and not queued) when the queue is full or the pool is stopping.
    package func enqueue(_ job: Job) -> Bool {
        let accepted = state.withLock { s -> Bool in
            guard !s.stopping, s.queue.count + s.reserved < capacity else { return false }
            s.queue.append(job)
            return true
        }
        if accepted { available.signal() }
        return accepted
    }

    /// Takes the first waiting job that matches out of the queue (it will not run).
    package func removeQueued(where matches: (Job) -> Bool) -> Job? {
        state.withLock { $0.queue.removeFirst(where: matches) }
    }

    /// Stops accepting jobs and takes every waiting one out of the queue (they will not run),
    /// for the owner to answer; `shutdown()` then stops the threads.
    package func takeQueued() -> [Job] {
        state.withLock { s in
            s.stopping = true
            return s.queue.removeAll()
        }
    }

    /// Stops accepting jobs and stops the threads once the queued jobs ran; blocks until they
    /// exited. Idempotent.
    package func shutdown() {
        let first = state.withLock { s -> Bool in
            s.stopping = true
            defer { s.joined = true }
            return !s.joined
        }
        guard first else { return }
        resume()
        for _ in 0..<threadCount { available.signal() }
        for _ in 0..<threadCount { exited.wait() }
    }

    private func workLoop() {
        while true {
            available.wait()
            let next = state.withLock { s -> Job?? in
                if let job = s.queue.popFirst() {
                    s.running += 1
                    return .some(job)
                }
                return s.stopping ? .none : .some(nil)
            }
            guard let next else { break }
            // A job removed from the queue after its signal leaves nothing to do.
            guard let job = next else { continue }
            perform(job)
            state.withLock { $0.running -= 1 }
        }
        exited.signal()
    }

    /// `workLoop` for a batch pool: each wake-up takes the jobs waiting then (its share of them,
    /// at most `batchLimit`). A signal whose jobs an earlier wake-up took finds none and waits
    /// again.
    private func batchLoop() {
        guard let performBatch else { return }
        var jobs: [Job] = []
        while true {
            available.wait()
            let (stop, more) = state.withLock { s -> (Bool, Bool) in
                let share = min(batchLimit, max(1, (s.queue.count + threadCount - 1) / threadCount))
                while jobs.count < share, let job = s.queue.popFirst() { jobs.append(job) }
                s.running += jobs.count
                return (jobs.isEmpty && s.stopping, !s.queue.isEmpty)
            }
            if stop { break }
            // Jobs left for the other threads (or this one, next): one wake-up for them.
            if more { available.signal() }
            guard !jobs.isEmpty else { continue }
            let count = jobs.count
            performBatch(&jobs)
            jobs.removeAll(keepingCapacity: true)
            state.withLock { $0.running -= count }
        }
        exited.signal()
    }
}
