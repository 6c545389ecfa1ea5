import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A stretch of virtual time the scheduler's thread drives to its end (a population of typists
/// typing into user fields): it owns the agenda that wake-ups go into.
protocol VirtualSession: AnyObject {
    /// Runs the session to its end on the scheduler's thread, then resumes whoever awaited it.
    func drive()
    /// Files a wake-up for timer `token` at virtual time `time` (nanoseconds) in the agenda.
    func scheduleWake(at time: Int64, token: UInt64)
    /// Virtual now, in nanoseconds.
    var now: Int64 { get }
}

/// A sleep on the virtual clock, resumed by its timer or by its task's cancellation.
final class Sleeper: @unchecked Sendable {
    var continuation: UnsafeContinuation<Void, any Error>?
    var done = false
    /// Who records this sleep as a wait (nil: nobody), and its number there once it started
    /// (nil: not recorded).
    let observer: (any WaitObserver)?
    var waitID: UInt64?

    init(observer: (any WaitObserver)?) { self.observer = observer }
}

/// Records a field's sleeps on its clock as waits (started, fired, cancelled).
protocol WaitObserver: AnyObject, Sendable {
    /// A sleep of `delay` (nanoseconds) starts now; returns its wait number, or nil when it is
    /// not recorded.
    func waitStarted(delay: Int64) -> UInt64?
    func waitFired(_ id: UInt64)
    func waitCancelled(_ id: UInt64)
}

/// One FIFO of runnable jobs for the whole process, drained on one thread (the one that called
/// `installVirtualExecutors`), and timers.
///
/// Outside a session (host mode) it is an ordinary single-threaded executor: it waits for work
/// from other threads and sleeps in real time. During a session, nothing else runs: jobs are
/// drained after every step of the session's agenda, and time advances to the next step only
/// when no job is runnable (drain, then advance); every sleep is a wake-up in the agenda.
final class VirtualScheduler: @unchecked Sendable {
    static let shared = VirtualScheduler()

    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    /// Jobs enqueued on the scheduler's thread, in order, with whether each runs on the main
    /// actor. Only that thread touches them, so they take no lock (and, being this class's own
    /// state that no callback reaches while it is accessed, no dynamic exclusivity check).
    @exclusivity(unchecked) private var queue: [(job: UnownedJob, main: Bool)] = []
    @exclusivity(unchecked) private var head = 0
    /// Guarded by `mutex`: jobs enqueued from other threads, moved to the end of `queue` when
    /// the scheduler's thread next looks for work; `foreignCount` says whether there are any
    /// without taking the lock.
    private var foreign: [(job: UnownedJob, main: Bool)] = []
    private let foreignCount = Atomic<Int>(0)
    private var offThreadEnqueues = 0

    private(set) var thread = pthread_self()
    /// Timer payloads by token (the token is the slot's index); reused through `freeSlots`.
    @exclusivity(unchecked) private var slots: [TimerPayload?] = []
    @exclusivity(unchecked) private var freeSlots: [Int] = []
    /// Host mode: real-clock sleeps (monotonic deadline, token), earliest last.
    private var realTimers: [(deadline: UInt64, token: Int)] = []

    @exclusivity(unchecked) private(set) var session: (any VirtualSession)?
    private var pendingSessions: [any VirtualSession] = []
    /// Screens to read again right after the current job, in order (`ScreenTracker`).
    @exclusivity(unchecked) private var posted: [ScreenTracker] = []
    /// The reads being run by `runPosted`, swapped with `posted` so neither is copied.
    @exclusivity(unchecked) private var running: [ScreenTracker] = []

    /// Jobs run so far, and whether one is running now (the watchdog reads both).
    let jobsRun = Atomic<Int>(0)
    let inJob = Atomic<Bool>(false)
    /// During the current session: sleeps on a real clock (virtualised), the first one's virtual
    /// time and clock, and jobs enqueued from other threads.
    private(set) var realSleeps = 0
    private(set) var firstRealSleep: (at: Int64, clock: String)?

    enum TimerPayload {
        case sleeper(Sleeper)
        case job(UnownedJob)
    }

    private init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    func adoptCurrentThread() { thread = pthread_self() }

    var onSchedulerThread: Bool { pthread_equal(pthread_self(), thread) != 0 }

    // MARK: Jobs

    func enqueue(_ job: UnownedJob, main: Bool) {
        if onSchedulerThread {
            queue.append((job, main))
            return
        }
        pthread_mutex_lock(&mutex)
        foreign.append((job, main))
        foreignCount.add(1, ordering: .releasing)
        if session != nil { offThreadEnqueues += 1 }
        pthread_cond_signal(&condition)
        pthread_mutex_unlock(&mutex)
    }

    /// Moves the jobs other threads enqueued to the end of the scheduler thread's queue.
    private func takeForeign() {
        pthread_mutex_lock(&mutex)
        queue.append(contentsOf: foreign)
        foreign.removeAll(keepingCapacity: true)
        foreignCount.store(0, ordering: .relaxed)
        pthread_mutex_unlock(&mutex)
    }

    /// Whether a job is waiting (the scheduler's thread only).
    private var hasJob: Bool { head < queue.count || foreignCount.load(ordering: .acquiring) > 0 }

    private func popJob() -> (job: UnownedJob, main: Bool)? {
        if foreignCount.load(ordering: .acquiring) > 0 { takeForeign() }
        guard head < queue.count else {
            if head > 0 { queue.removeAll(keepingCapacity: true); head = 0 }
            return nil
        }
        let next = queue[head]
        head += 1
        if head > 4096, head * 2 > queue.count { queue.removeFirst(head); head = 0 }
        return next
    }

    /// Runs every runnable job, and what each job posted right after it.
    func drain() {
        runPosted()
        while let (job, main) = popJob() {
            inJob.store(true, ordering: .relaxed)
            job.runSynchronously(on: main ? mainActorExecutor : genericSerialExecutor)
            inJob.store(false, ordering: .relaxed)
            countJob()
            runPosted()
        }
    }

    /// Counts a job run (only this thread writes the count: no atomic read-modify-write).
    func countJob() { jobsRun.store(jobsRun.load(ordering: .relaxed) + 1, ordering: .relaxed) }

    private func runPosted() {
        while !posted.isEmpty {
            swap(&posted, &running)
            for index in running.indices {
                let tracker = running[index]
                MainActor.assumeIsolated { tracker.read() }
            }
            running.removeAll(keepingCapacity: true)
        }
    }

    /// Reads `tracker`'s screen again right after the current job (a job just changed what it
    /// read).
    func post(_ tracker: ScreenTracker) { posted.append(tracker) }

    /// Jobs enqueued from another thread during the current session.
    var foreignEnqueues: Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return offThreadEnqueues
    }

    // MARK: Timers

    private func store(_ payload: TimerPayload) -> Int {
        if let slot = freeSlots.popLast() {
            slots[slot] = payload
            return slot
        }
        slots.append(payload)
        return slots.count - 1
    }

    /// A `Task.sleep` or a real clock's sleep: during a session virtualised (the delay, rounded to
    /// whole milliseconds to absorb the real time that passed while computing it, from virtual
    /// now) and counted; in host mode a real sleep.
    func realClockSleep(_ job: UnownedJob, delayNs: Int64, clock: String) {
        let delay = max(0, (delayNs + 500_000) / 1_000_000 * 1_000_000)
        if let session, onSchedulerThread {
            realSleeps += 1
            if firstRealSleep == nil { firstRealSleep = (session.now, clock) }
            session.scheduleWake(at: session.now + delay, token: UInt64(store(.job(job))))
            return
        }
        pthread_mutex_lock(&mutex)
        let token = store(.job(job))
        realTimers.append((DispatchTime.now().uptimeNanoseconds + UInt64(max(0, delayNs)), token))
        realTimers.sort { $0.deadline > $1.deadline }
        pthread_cond_signal(&condition)
        pthread_mutex_unlock(&mutex)
    }

    /// A sleep on the virtual clock until `deadline` (virtual nanoseconds).
    func sleep(_ sleeper: Sleeper, _ continuation: UnsafeContinuation<Void, any Error>, until deadline: Int64) {
        guard let session else {
            continuation.resume(throwing: VirtualClockError.noSession)
            return
        }
        if sleeper.done { return continuation.resume(throwing: CancellationError()) }
        if deadline <= session.now {
            sleeper.done = true
            return continuation.resume()
        }
        sleeper.continuation = continuation
        if let observer = sleeper.observer { sleeper.waitID = observer.waitStarted(delay: deadline - session.now) }
        session.scheduleWake(at: deadline, token: UInt64(store(.sleeper(sleeper))))
    }

    /// The sleeping task was cancelled: it resumes now with `CancellationError`; its wake-up is
    /// skipped when it comes up.
    func cancel(_ sleeper: Sleeper) {
        guard !sleeper.done else { return }
        sleeper.done = true
        let continuation = sleeper.continuation
        sleeper.continuation = nil
        if continuation != nil, let id = sleeper.waitID, let observer = sleeper.observer { observer.waitCancelled(id) }
        continuation?.resume(throwing: CancellationError())
    }

    /// The session's agenda reached wake-up `token`.
    func fire(_ token: UInt64) {
        let slot = Int(token)
        guard let payload = slots[slot] else { return }
        slots[slot] = nil
        freeSlots.append(slot)
        switch payload {
        case let .job(job):
            inJob.store(true, ordering: .relaxed)
            job.runSynchronously(on: genericSerialExecutor)
            inJob.store(false, ordering: .relaxed)
            countJob()
        case let .sleeper(sleeper):
            guard !sleeper.done else { return }
            sleeper.done = true
            let continuation = sleeper.continuation
            sleeper.continuation = nil
            if let id = sleeper.waitID, let observer = sleeper.observer { observer.waitFired(id) }
            continuation?.resume()
        }
    }

    // MARK: Sessions

    /// Hands a session to the scheduler's loop; `drive()` runs once the current job returns.
    func start(_ session: any VirtualSession) {
        pendingSessions.append(session)
    }

    /// Begins driving `session`: wake-ups go to it, counters start from zero.
    func enter(_ session: any VirtualSession) {
        self.session = session
        realSleeps = 0
        firstRealSleep = nil
        pthread_mutex_lock(&mutex)
        offThreadEnqueues = 0
        pthread_mutex_unlock(&mutex)
    }

    func leave() { session = nil }

    /// The loop of the process: runs jobs, sessions and real sleeps until `done()` holds after a
    /// drain, waiting for other threads' work in between.
    func runHost(until done: () -> Bool) {
        while true {
            drain()
            if !pendingSessions.isEmpty {
                let next = pendingSessions.removeFirst()
                next.drive()
                continue
            }
            if done() { return }
            if hasJob { continue }
            pthread_mutex_lock(&mutex)
            if foreign.isEmpty {
                if let first = realTimers.last {
                    let now = DispatchTime.now().uptimeNanoseconds
                    if first.deadline > now {
                        var wallNow = timespec()
                        clock_gettime(CLOCK_REALTIME, &wallNow)
                        let wait = first.deadline - now
                        var until = timespec(tv_sec: wallNow.tv_sec + Int(wait / 1_000_000_000),
                                             tv_nsec: wallNow.tv_nsec + Int(wait % 1_000_000_000))
                        if until.tv_nsec >= 1_000_000_000 { until.tv_sec += 1; until.tv_nsec -= 1_000_000_000 }
                        pthread_cond_timedwait(&condition, &mutex, &until)
                    }
                } else {
                    pthread_cond_wait(&condition, &mutex)
                }
            }
            var due: [Int] = []
            let now = DispatchTime.now().uptimeNanoseconds
            while let last = realTimers.last, last.deadline <= now { due.append(realTimers.removeLast().token) }
            pthread_mutex_unlock(&mutex)
            for token in due { fire(UInt64(token)) }
        }
    }
}

/// Misuse of the virtual clock.
public enum VirtualClockError: Error, CustomStringConvertible {
    /// The clock was used outside a virtual run (it has no time of its own).
    case noSession

    public var description: String {
        "the virtual clock was used outside a virtual run: a field's environment clock only ticks while Typestorm types into it"
    }
}
