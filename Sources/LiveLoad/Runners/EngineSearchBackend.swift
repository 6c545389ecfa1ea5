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
///
/// Hand-offs between threads are batched, because waking a sleeping thread costs more CPU
/// than a first-page search: a search thread takes every request waiting when it wakes and
/// delivers their answers together after the last (an answer waits at most 50 µs for the
/// searches after it), and the live runner's field threads hand over the requests of each batch
/// of events at once (`prepare` and `submit`).
public final class EngineSearchBackend: LiveSearchBackend {
    /// True: the engine reports queue and service time for every request.
    public let reportsBackendWork = true

    /// One request: its ticket, and what a search thread takes from the queue.
    package final class Job: LiveSearchTicket {
        let request: LiveSearchRequest
        /// When the job was handed to the search threads (monotonic ns); 0 while a caller that
        /// made it with `prepare` has not submitted it yet.
        private let queued = Atomic<UInt64>(0)
        let flag = CancellationFlag()
        let completion: @Sendable (LiveSearchOutcome) -> Void
        /// Who answers the job: 0 while it waits, then `taken` (a search thread runs it) or
        /// `dropped` (its cancel or the shutdown answered it), whichever comes first.
        private let claim = Atomic<UInt8>(0)
        private static let taken: UInt8 = 1, dropped: UInt8 = 2

        init(request: LiveSearchRequest, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) {
            self.request = request
            self.completion = completion
        }

        /// When the job was handed to the search threads: when the request left.
        var enqueuedNanos: UInt64 { queued.load(ordering: .relaxed) }

        /// The job leaves now (before it is queued: the queue's lock publishes it).
        func markQueued(at nanos: UInt64) { queued.store(nanos, ordering: .relaxed) }

        /// A search thread takes the job: false when it was answered already.
        func take() -> Bool {
            claim.compareExchange(expected: 0, desired: Self.taken, ordering: .acquiringAndReleasing).exchanged
        }

        /// Answers a job no search thread has taken as cancelled, at once; false when one has.
        /// A job cancelled before it was submitted never left: no start time, no queue time.
        func drop() -> Bool {
            guard claim.compareExchange(expected: 0, desired: Self.dropped, ordering: .acquiringAndReleasing).exchanged else {
                return false
            }
            let now = MonotonicClock.now()
            let enqueued = enqueuedNanos
            completion(LiveSearchOutcome(
                result: .failed(.cancelled), startedNanos: enqueued,
                backendWork: BackendWork(queueNanos: enqueued == 0 ? 0 : Int64(now - enqueued), serviceNanos: 0)))
            return true
        }

        /// O(1): a waiting job stays in the queue, answered, and the thread that comes to it
        /// skips it (a queue of thousands is not searched on every keystroke's cancel).
        package func cancel() {
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
        pool = WorkerPool(threads: workers, name: "typestorm-search", startSuspended: startSuspended,
                          batchLimit: Self.batchLimit) { jobs in
            Self.run(&jobs, engine: engine, reference: reference, limit: limit, countsTotal: countsTotal,
                     forcedPath: forcedPath, searchCPU: searchCPU)
        }
    }

    /// Jobs a search thread takes at once at most.
    private static var batchLimit: Int { 32 }
    /// How long answers of one batch may wait for the batch's later searches (ns): beyond
    /// this, those ready are delivered before the next search starts.
    private static var answerHoldNanos: UInt64 { 50_000 }

    /// Queues `request` for the engine's search threads; `completion` is called exactly once, with
    /// the engine's queue and service time.
    public func start(_ request: LiveSearchRequest, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) -> any LiveSearchTicket {
        var jobs = [prepare(request, completion: completion)]
        let job = jobs[0]
        submit(&jobs)
        return job
    }

    /// The job of `request`, not yet queued: `submit(_:)` queues the jobs a caller made in a
    /// batch of its events in one hand-off, which wakes a search thread once rather than once
    /// each. The job is also the request's ticket: cancelled before it is submitted, it is
    /// answered at once and never searched.
    package func prepare(_ request: LiveSearchRequest, completion: @escaping @Sendable (LiveSearchOutcome) -> Void) -> Job {
        Job(request: request, completion: completion)
    }

    /// Queues `jobs` (from `prepare(_:completion:)`), in order, all leaving now, and empties
    /// the array; after a shutdown they fail as `transport`.
    package func submit(_ jobs: inout [Job]) {
        guard !jobs.isEmpty else { return }
        let now = MonotonicClock.now()
        for job in jobs { job.markQueued(at: now) }
        if !pool.enqueue(contentsOf: jobs) {
            for job in jobs where job.take() {
                job.completion(LiveSearchOutcome(result: .failed(.transport), startedNanos: now))
            }
        }
        jobs.removeAll(keepingCapacity: true)
    }

    /// Runs a search thread's batch in order and answers it: the answers are delivered after
    /// the batch's last search (or once the first waited `answerHoldNanos`), so that a field
    /// thread with several answers in the batch is woken once for them. The search threads' CPU
    /// is read around the searches of the batch, not each one (a thread's CPU clock is a
    /// system call).
    private static func run(_ jobs: inout [Job], engine: SearchEngine, reference: ReferenceFilter, limit: Int,
                            countsTotal: Bool, forcedPath: ForcedPath?, searchCPU: CPUCount) {
        var answers: [(Job, LiveSearchOutcome)] = []
        answers.reserveCapacity(jobs.count)
        var firstAnswer: UInt64 = 0
        var cpuBefore = CPUTime.thread()
        func deliver() {
            searchCPU.nanos.add(CPUTime.thread() - cpuBefore, ordering: .relaxed)
            for (job, outcome) in answers { job.completion(outcome) }
            answers.removeAll(keepingCapacity: true)
            cpuBefore = CPUTime.thread()
        }
        for job in jobs where job.take() {
            if !answers.isEmpty, MonotonicClock.now() &- firstAnswer >= answerHoldNanos { deliver() }
            let outcome = search(job, engine: engine, reference: reference, limit: limit, countsTotal: countsTotal,
                                 forcedPath: forcedPath)
            if answers.isEmpty { firstAnswer = MonotonicClock.now() }
            answers.append((job, outcome))
        }
        if answers.isEmpty {
            searchCPU.nanos.add(CPUTime.thread() - cpuBefore, ordering: .relaxed)
        } else {
            deliver()
        }
    }

    private static func search(_ job: Job, engine: SearchEngine, reference: ReferenceFilter, limit: Int, countsTotal: Bool,
                               forcedPath: ForcedPath?) -> LiveSearchOutcome {
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
        return LiveSearchOutcome(result: result, startedNanos: job.enqueuedNanos, backendWork: work)
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
