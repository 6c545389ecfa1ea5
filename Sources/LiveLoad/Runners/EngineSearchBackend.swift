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
/// (queue time), and a cancelled request is dropped from the queue at once or, when it is
/// already scanning, stops at the engine's next cancellation check (stop latency). Searches spin
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
        let owner: EngineSearchBackend

        init(request: LiveSearchRequest, enqueuedNanos: UInt64, completion: @escaping @Sendable (LiveSearchOutcome) -> Void, owner: EngineSearchBackend) {
            self.request = request
            self.enqueuedNanos = enqueuedNanos
            self.completion = completion
            self.owner = owner
        }

        func cancel() {
            flag.cancel()
            owner.dropIfQueued(self)
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
            let before = CPUTime.thread()
            Self.run(job, engine: engine, reference: reference, limit: limit, countsTotal: countsTotal, forcedPath: forcedPath)
            searchCPU.nanos.add(CPUTime.thread() - before, ordering: .relaxed)
        }
    }

    /// Queues `request` for the engine's search threads; `completion` is called exactly once, with
    /// the engine's queue and service time.
    public func start(_ request: LiveSearchRequest, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) -> any LiveSearchTicket {
        let job = Job(request: request, enqueuedNanos: MonotonicClock.now(), completion: completion, owner: self)
        if !pool.enqueue(job) {
            completion(LiveSearchOutcome(result: .failed(.transport), startedNanos: job.enqueuedNanos))
        }
        return job
    }

    /// Removes a cancelled job that no worker has taken yet and completes it as cancelled.
    private func dropIfQueued(_ job: Job) {
        guard pool.removeQueued(where: { $0 === job }) != nil else { return }
        let now = MonotonicClock.now()
        job.completion(LiveSearchOutcome(
            result: .failed(.cancelled), startedNanos: job.enqueuedNanos,
            backendWork: BackendWork(queueNanos: Int64(now - job.enqueuedNanos), serviceNanos: 0)))
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
        for job in pool.takeQueued() {
            job.completion(LiveSearchOutcome(result: .failed(.cancelled), startedNanos: job.enqueuedNanos))
        }
        pool.shutdown()
    }
}
