import Dispatch
import Glibc
import Locking
import Testing
@testable import TypestormSystem

@Suite("Worker pool", .timeLimit(.minutes(5)))
struct WorkerPoolTests {
    @Test func workerPoolBoundsItsQueue() {
        let pool = WorkerPool<@Sendable () -> Void>(threads: 1, capacity: 2, name: "test-pool") { $0() }
        let gate = DispatchSemaphore(value: 0)
        let ran = DispatchSemaphore(value: 0)
        #expect(pool.reserve())
        pool.enqueueReserved { gate.wait(); ran.signal() }
        // The running job left the queue; two more fit, a third does not.
        var waited = 0
        while pool.depth > 0, waited < 1_000_000 { waited += 1; sched_yield() }
        #expect(pool.reserve())
        #expect(pool.reserve())
        #expect(!pool.reserve())
        pool.enqueueReserved { ran.signal() }
        pool.enqueueReserved { ran.signal() }
        #expect(pool.busy == 3)
        gate.signal()
        for _ in 0..<3 { #expect(ran.wait(timeout: .now() + 5) == .success) }
        pool.shutdown()
        #expect(pool.busy == 0)
    }

    /// A job that ran must not stay in the queue: the server's jobs capture the server, which
    /// owns the pool, so a kept job leaked every stopped server (found by LeakSanitizer).
    @Test func workerPoolLetsGoOfAJobThatRan() {
        final class Token: Sendable {}
        let pool = WorkerPool<@Sendable () -> Void>(threads: 1, capacity: 2, name: "test-pool") { $0() }
        let ran = DispatchSemaphore(value: 0)
        weak var released: Token?
        do {
            let token = Token()
            released = token
            #expect(pool.reserve())
            pool.enqueueReserved { [token] in _ = token; ran.signal() }
        }
        #expect(ran.wait(timeout: .now() + 5) == .success)
        pool.shutdown()
        #expect(released == nil, "the pool still holds the job that ran")
    }

    /// The engine backend's use: queued jobs taken out (never run) while a job runs, then the
    /// threads stop once it returned; a job enqueued after that is refused.
    @Test func queuedJobsCanBeTakenOutAndAStoppedPoolRefusesWork() {
        let gate = DispatchSemaphore(value: 0)
        let ran = Locked<[Int]>([])
        let pool = WorkerPool<Int>(threads: 1, name: "test-pool", startSuspended: true) { job in
            if job == 0 { gate.wait() }
            ran.withLock { $0.append(job) }
        }
        for job in 0..<4 { #expect(pool.enqueue(job)) }
        #expect(pool.removeQueued(where: { $0 == 2 }) == 2)
        pool.resume()
        var waited = 0
        while pool.depth > 2, waited < 1_000_000 { waited += 1; sched_yield() }
        #expect(pool.takeQueued() == [1, 3])
        #expect(!pool.enqueue(5))
        gate.signal()
        pool.shutdown()
        pool.shutdown()
        #expect(ran.withLock { $0 } == [0])
    }

    /// A batch pool's thread takes every job waiting when it wakes, in order, in one call; a
    /// stopped pool refuses a batch.
    @Test func aBatchPoolRunsTheWaitingJobsInOneCall() {
        let batches = Locked<[[Int]]>([])
        let ran = DispatchSemaphore(value: 0)
        let pool = WorkerPool<Int>(threads: 1, name: "test-pool", startSuspended: true, batchLimit: 8) { jobs in
            batches.withLock { $0.append(jobs) }
            for _ in jobs { ran.signal() }
        }
        #expect(pool.enqueue(contentsOf: [1, 2, 3]))
        #expect(pool.enqueue(4))
        #expect(pool.enqueue(contentsOf: []))
        pool.resume()
        for _ in 0..<4 { ran.wait() }
        #expect(batches.withLock { $0 } == [[1, 2, 3, 4]])
        pool.shutdown()
        #expect(!pool.enqueue(contentsOf: [5]))
    }

    /// A batch pool takes at most its limit per call, the rest on the next.
    @Test func aBatchPoolTakesAtMostItsLimit() {
        let batches = Locked<[[Int]]>([])
        let ran = DispatchSemaphore(value: 0)
        let pool = WorkerPool<Int>(threads: 1, name: "test-pool", startSuspended: true, batchLimit: 2) { jobs in
            batches.withLock { $0.append(jobs) }
            for _ in jobs { ran.signal() }
        }
        #expect(pool.enqueue(contentsOf: [1, 2, 3, 4, 5]))
        pool.resume()
        for _ in 0..<5 { ran.wait() }
        #expect(batches.withLock { $0 } == [[1, 2], [3, 4], [5]])
        pool.shutdown()
    }
}
