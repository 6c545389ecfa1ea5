import Dispatch
import Foundation
import Matching
import TypestormMetrics
import TypestormSystem
import SearchField
import Locking
import Synchronization

/// The real filter engine in this process, behind a bounded set of search threads.
///
/// The thread count stands for the backend's capacity: requests beyond it wait in a FIFO queue
/// (queue time), and a cancelled request is answered at once when no search thread has taken
/// it yet (the thread that comes to it later skips it) or, when it is already scanning, stops
/// at the engine's next cancellation check (stop latency). Searches spin
/// the CPU, so they run on their own threads, never on the cooperative pool that runs the
/// typists' timers.
public final class EngineSearchBackend: LiveSearchBackend {
    /// True: the engine reports queue and service time for every request.
    public let reportsBackendWork = true

    private final class Job: LiveSearchTicket {
        let request: LiveSearchRequest
        let enqueuedNanos: UInt64
        let flag = CancellationFlag()
        let completion: @Sendable (LiveSearchOutcome) -> Void
        /// Who answers the job: 0 while it waits, then `taken` (a search thread runs it) or
        /// `dropped` (its cancel or the shutdown answered it), whichever comes first.
        private let claim = Atomic<UInt8>(0)
        private static let taken: UInt8 = 1, dropped: UInt8 = 2

        init(request: LiveSearchRequest, enqueuedNanos: UInt64, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) {
            self.request = request
            self.enqueuedNanos = enqueuedNanos
            self.completion = completion
        }

        /// A search thread takes the job: false when it was answered already.
        func take() -> Bool {
            claim.compareExchange(expected: 0, desired: Self.taken, ordering: .acquiringAndReleasing).exchanged
        }

        /// Answers a job no search thread has taken as cancelled, at once; false when one has.
        func drop() -> Bool {
            guard claim.compareExchange(expected: 0, desired: Self.dropped, ordering: .acquiringAndReleasing).exchanged else {
                return false
            }
            let now = MonotonicClock.now()
            completion(LiveSearchOutcome(
                result: .failed(.cancelled), startedNanos: enqueuedNanos,
                backendWork: BackendWork(queueNanos: Int64(now - enqueuedNanos), serviceNanos: 0)))
            return true
        }

        /// O(1): a waiting job stays in the queue, answered, and the thread that comes to it
        /// skips it (a queue of thousands is not searched on every keystroke's cancel).
        func cancel() {
            flag.cancel()
            _ = drop()
        }
    }

    private let engine: SearchEngine
    private let reference: ReferenceFilter
    private let limit: Int
    private let forcedPath: ForcedPath?
    private let countsTotal: Bool
    /// The search threads (unbounded queue: the FIFO wait is the queue time measured).
    private let pool: WorkerPool<Job>
    private final class CPUCount: Sendable { let nanos = Atomic<Int64>(0) }
    private let searchCPU = CPUCount()

    /// CPU time the search threads spent in searches so far (ns, each search's thread CPU), so a
    /// benchmark can tell the engine's CPU from the rest of the process's.
    package var searchCPUNanos: Int64 { searchCPU.nanos.load(ordering: .relaxed) }

    /// - Parameters:
    ///   - workers: searches that run at once (the backend's capacity).
    ///   - limit: results per page, as the screen asks for them.
    /// - Parameters:
    ///   - countsTotal: count every match, not just the first page (a "1,234 results" label);
    ///     the screen itself needs only the first page, which the engine finds in microseconds.
    ///   - forcedPath: run every search on this path instead of the planner's choice
    ///     (benchmarks that measure one path, e.g. cancellation of full scans).
    public convenience init(engine: SearchEngine, reference: ReferenceFilter, workers: Int, limit: Int = 50,
                            countsTotal: Bool = false, forcedPath: ForcedPath? = nil) {
        self.init(engine: engine, reference: reference, workers: workers, limit: limit, countsTotal: countsTotal,
                  forcedPath: forcedPath, startSuspended: false)
    }

    /// `startSuspended`: the workers take no job until `resume()`, so tests can queue and cancel
    /// requests deterministically.
    init(engine: SearchEngine, reference: ReferenceFilter, workers: Int, limit: Int, countsTotal: Bool = false,
         forcedPath: ForcedPath? = nil, startSuspended: Bool) {
        precondition(workers >= 1, "at least one search worker")
        self.engine = engine
        self.reference = reference
        self.limit = limit
        self.forcedPath = forcedPath
        self.countsTotal = countsTotal
        let (engine, reference) = (engine, reference)
        let searchCPU = searchCPU
        pool = WorkerPool(threads: workers, name: "typestorm-search", startSuspended: startSuspended) { job in
            guard job.take() else { return }
            let before = CPUTime.thread()
            Self.run(job, engine: engine, reference: reference, limit: limit, countsTotal: countsTotal, forcedPath: forcedPath)
            searchCPU.nanos.add(CPUTime.thread() - before, ordering: .relaxed)
        }
    }

    /// Queues `request` for the engine's search threads; `completion` is called exactly once, with
    /// the engine's queue and service time.
    public func start(_ request: LiveSearchRequest, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) -> any LiveSearchTicket {
        let job = Job(request: request, enqueuedNanos: MonotonicClock.now(), completion: completion)
        if !pool.enqueue(job), job.take() {
            completion(LiveSearchOutcome(result: .failed(.transport), startedNanos: job.enqueuedNanos))
        }
        return job
    }

    private static func run(_ job: Job, engine: SearchEngine, reference: ReferenceFilter, limit: Int, countsTotal: Bool,
                            forcedPath: ForcedPath?) {
        let started = MonotonicClock.now()
        let queueNanos = Int64(started - job.enqueuedNanos)
        let request = SearchRequest(job.request.query, limit: limit, needsTotal: countsTotal)
        let response = job.request.local
            ? reference.search(request)
            : engine.search(request, cancellation: .flag(job.flag), forcing: forcedPath)
        let serviceNanos = Int64(MonotonicClock.since(started))
        let work = BackendWork(queueNanos: queueNanos, serviceNanos: serviceNanos, itemsScanned: Int64(response.itemsScanned))
        let result: LiveSearchOutcome.Result = response.wasCancelled
            ? .failed(.cancelled)
            : .results(count: response.total ?? response.items.count)
        job.completion(LiveSearchOutcome(result: result, startedNanos: job.enqueuedNanos, backendWork: work))
    }

    /// Lets workers started suspended take jobs.
    func resume() {
        pool.resume()
    }

    /// Completes queued jobs as failed and stops the threads once the running searches return.
    public func shutdown() {
        for job in pool.takeQueued() where job.take() {
            job.completion(LiveSearchOutcome(result: .failed(.cancelled), startedNanos: job.enqueuedNanos))
        }
        pool.shutdown()
    }
}
