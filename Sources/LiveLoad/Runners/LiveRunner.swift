import TypestormMetrics
import TypestormSystem
import SearchField
import Locking
import Synchronization
import Typists

/// One typist of a live run: when it arrives and what it types.
public struct LiveTypist<Session: TypistSession & Sendable>: Sendable {
    /// Arrival, in nanoseconds after the run starts.
    package var arrivalNanos: Int64
    /// What the typist types.
    public var session: Session

    /// When the typist arrives, after the run starts.
    public var arrival: Duration { .nanoseconds(arrivalNanos) }

    /// A typist arriving `arrival` after the run starts (a negative arrival counts as 0) and
    /// typing `session`.
    public init(arrival: Duration, session: Session) {
        self.init(arrivalNanos: max(0, arrival.wholeNanoseconds), session: session)
    }

    package init(arrivalNanos: Int64, session: Session) {
        self.arrivalNanos = arrivalNanos
        self.session = session
    }
}

/// Knobs of a live run that are not the strategy's.
public struct LiveRunOptions: Sendable {
    /// How long to wait, once every typist has stopped typing, for outstanding timers and
    /// requests; what is still open then is cancelled and counted as unfinished.
    public var drainTimeout: Duration {
        get { .nanoseconds(drainTimeoutNanos) }
        set { drainTimeoutNanos = max(0, newValue.wholeNanoseconds) }
    }
    /// S in docs/metrics.md: a burst ends once the input stays unchanged this long.
    public var settleInterval: Duration {
        get { .nanoseconds(settleIntervalNanos) }
        set { settleIntervalNanos = max(0, newValue.wholeNanoseconds) }
    }
    /// Threads that run the fields, each the UI thread of its share of the typists; `nil`: one
    /// per core.
    public var fieldThreads: Int?
    /// ``drainTimeout`` in nanoseconds, as the runner keeps time.
    package var drainTimeoutNanos: Int64
    /// ``settleInterval`` in nanoseconds.
    package var settleIntervalNanos: Int64
    /// How long a field thread with nothing due sleeps at least, unless a message wakes it
    /// (nanoseconds): what falls due meanwhile runs in one wake-up, at most this late, rather
    /// than a wake-up (two context switches) each. 0: each sleep ends at the next deadline.
    package var coalescingNanos: Int64 = LiveRunOptions.defaultCoalescingNanos
    /// The default of ``coalescingNanos``: 200 µs.
    package static var defaultCoalescingNanos: Int64 { 200_000 }

    /// Options: by default a 10 s drain and a 1 s settle interval, one field thread per core.
    ///
    /// - Throws: ``SetupError`` for a negative duration or fewer than one field thread.
    public init(drainTimeout: Duration = .seconds(10), settleInterval: Duration = .seconds(1), fieldThreads: Int? = nil) throws(SetupError) {
        try SetupError.checkNotNegative(drainTimeout, "drainTimeout")
        try SetupError.checkNotNegative(settleInterval, "settleInterval")
        if let fieldThreads, fieldThreads < 1 {
            throw SetupError(description: "fieldThreads: expected at least 1 thread, found \(fieldThreads)")
        }
        self.init(drainTimeoutNanos: drainTimeout.wholeNanoseconds, settleIntervalNanos: settleInterval.wholeNanoseconds,
                  fieldThreads: fieldThreads)
    }

    /// The default options: a 10 s drain, a 1 s settle interval, one field thread per core.
    public init() {
        self.init(drainTimeoutNanos: 10_000_000_000, settleIntervalNanos: 1_000_000_000, fieldThreads: nil)
    }

    package init(drainTimeoutNanos: Int64, settleIntervalNanos: Int64 = 1_000_000_000, fieldThreads: Int? = nil) {
        self.drainTimeoutNanos = drainTimeoutNanos
        self.settleIntervalNanos = settleIntervalNanos
        self.fieldThreads = fieldThreads
    }

}

/// Counters a live run updates as it goes, readable from any thread at any time (progress lines,
/// the driver's snapshots). The metrics proper come from the recorder at the end.
public final class LiveRunMonitor: Sendable {
    /// Edit keystrokes typed so far.
    public let keystrokes = Atomic<Int>(0)
    /// Requests started so far.
    public let requestsStarted = Atomic<Int>(0)
    /// Requests that ended so far, however they ended.
    public let requestsFinished = Atomic<Int>(0)
    /// Requests that failed so far (cancellations are not failures).
    public let errors = Atomic<Int>(0)
    /// Typists currently in the field (arrived and not yet done).
    public let typistsActive = Atomic<Int>(0)
    private let stop = CancellationFlag()
    /// The running recorder's figures, attached by the run while it is open.
    private let running = Locked<(@Sendable () -> MetricSet?)?>(nil)
    private let stopWaiter = Locked<CheckedContinuation<Void, Never>?>(nil)

    /// A monitor with every count at 0, to pass to ``LiveRunner``.
    public init() {}

    /// Asks the run to stop typing now (typists asleep between keys wake at once); the run still
    /// drains and returns what it measured. Safe from any thread, e.g. a signal handler's thread.
    public func requestStop() {
        stop.cancel()
        stopWaiter.withLock { waiter in
            waiter?.resume()
            waiter = nil
        }
    }

    /// Whether ``requestStop()`` was called.
    public var isStopRequested: Bool { stop.isCancelled }

    /// Every metric the run's recorder holds so far (latency histograms included, measured on
    /// what has completed), or `nil` before the run starts and after it closed. Computed under
    /// the recorder's lock, so call it at snapshot pace (a few times a second), not per event.
    public func metricsSoFar() -> MetricSet? {
        running.withLock { $0 }?()
    }

    package func attach(_ source: (@Sendable () -> MetricSet?)?) {
        running.withLock { $0 = source }
    }

    /// Returns once a stop is requested, or when the calling task is cancelled.
    package func waitForStop() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = stopWaiter.withLock { waiter -> Bool in
                    if isStopRequested || Task.isCancelled { return true }
                    waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            stopWaiter.withLock { waiter in
                waiter?.resume()
                waiter = nil
            }
        }
    }
}

/// What a live run measured.
public struct LiveRunResult: Sendable {
    /// Every metric of the run, from its ``Recorder`` (docs/metrics.md).
    public var metrics: MetricSet
    /// Wall time from the run's start to the end of the drain.
    public var elapsed: Duration { .nanoseconds(elapsedNanos) }
    /// ``elapsed`` in nanoseconds.
    package var elapsedNanos: Int64
    /// Fields that still had timers or requests open when the drain timed out.
    public var undrainedTypists: Int
    /// The run stopped early (`LiveRunMonitor.requestStop()`).
    public var stoppedEarly: Bool
    /// CPU time the field threads spent (ns, their threads' CPU clocks summed), `nil` for a run
    /// that has none.
    package var fieldThreadCPUNanos: Int64?
    /// How long the field threads waited for a core while they had work (ns, summed): time
    /// other threads, this process's or others', had the cores. `nil` where the system does not
    /// say, or for a run without field threads.
    package var fieldThreadRunQueueWaitNanos: Int64?
    /// The whole process's CPU time (ns, every thread) from the start of the typing to the end
    /// of the drain: the run without making the fields before it (each typist's field and
    /// first key) and finishing the recorders after it, which cost per typist, not per
    /// keystroke. `nil` for a run without typists.
    package var typingProcessCPUNanos: Int64?

    package init(metrics: MetricSet, elapsedNanos: Int64, undrainedTypists: Int, stoppedEarly: Bool,
                 fieldThreadCPUNanos: Int64? = nil, fieldThreadRunQueueWaitNanos: Int64? = nil,
                 typingProcessCPUNanos: Int64? = nil) {
        self.metrics = metrics
        self.elapsedNanos = elapsedNanos
        self.undrainedTypists = undrainedTypists
        self.stoppedEarly = stoppedEarly
        self.fieldThreadCPUNanos = fieldThreadCPUNanos
        self.fieldThreadRunQueueWaitNanos = fieldThreadRunQueueWaitNanos
        self.typingProcessCPUNanos = typingProcessCPUNanos
    }
}

/// Runs a search-field strategy in real time: every typist types at its intended times, the
/// strategy's timers are real timers, and its requests go to a live backend (the filter engine
/// in this process, or an HTTP server).
///
/// Each typist's field belongs to one field thread, the app's UI thread, so the strategy sees its
/// events one at a time, as in an app; a few such threads (one per core) run every field, each
/// waiting on one wheel of deadlines (keystrokes and timers) rather than a task per wait. Every
/// event and effect goes to a `Recorder` (one per field thread, merged at the end) through the
/// same mapping the virtual-time runner uses, so the metrics mean the same in both.
///
/// Keystrokes that run late because the process is saturated are recorded as input lag, timers
/// that fire late as timer lateness; request latency counts from the moment the strategy
/// asked for the request, so a slow load generator cannot hide queueing (no coordinated
/// omission).
public enum LiveRunner {
    /// Runs preset `strategy` (with `configuration`, `nil`: the preset's default) for `typists` in
    /// real time against `backend`, and returns what was measured once every typist is done and the
    /// drain is over.
    public static func run<Session: TypistSession & Sendable>(
        typists: [LiveTypist<Session>],
        strategy: Preset,
        configuration: SearchFieldConfiguration? = nil,
        backend: any LiveSearchBackend,
        options: LiveRunOptions = LiveRunOptions(),
        monitor: LiveRunMonitor = LiveRunMonitor()
    ) async -> LiveRunResult {
        let fieldTypists = typists.map { LiveFieldTypist(arrivalNanos: $0.arrivalNanos, session: $0.session) }
        return await run(typists: typists, backend: backend, options: options, monitor: monitor) { shared, count, typingDone in
            makeThreads(fieldTypists, strategy: strategy, configuration: configuration, shared: shared, count: count, typingDone: typingDone)
        }
    }

    /// Not generic, so the preset's switch hands each field thread its strategy at a concrete
    /// type and the threads' loops are compiled for it.
    private static func makeThreads(
        _ typists: [LiveFieldTypist], strategy: Preset, configuration: SearchFieldConfiguration?, shared: LiveRunShared, count: Int,
        typingDone: @escaping @Sendable () -> Void
    ) -> [any LiveFieldThreadHandle] {
        strategy.visit(configuration, LiveFieldThreadMaker(typists: typists, count: count, shared: shared, typingDone: typingDone))
    }

    /// Runs any strategy value (each typist's field starts as a copy of `prototype`).
    public static func run<Strategy: SearchFieldStrategy, Session: TypistSession & Sendable>(
        typists: [LiveTypist<Session>],
        prototype: Strategy,
        backend: any LiveSearchBackend,
        options: LiveRunOptions = LiveRunOptions(),
        monitor: LiveRunMonitor = LiveRunMonitor()
    ) async -> LiveRunResult {
        let fieldTypists = typists.map { LiveFieldTypist(arrivalNanos: $0.arrivalNanos, session: $0.session) }
        return await run(typists: typists, backend: backend, options: options, monitor: monitor) { shared, count, typingDone in
            LiveFieldThreadMaker(typists: fieldTypists, count: count, shared: shared, typingDone: typingDone).visit(prototype)
        }
    }

    private static func run<Session: TypistSession & Sendable>(
        typists: [LiveTypist<Session>], backend: any LiveSearchBackend, options: LiveRunOptions, monitor: LiveRunMonitor,
        makeThreads: (LiveRunShared, Int, @escaping @Sendable () -> Void) -> [any LiveFieldThreadHandle]
    ) async -> LiveRunResult {
        // One field thread per core, each the UI thread of every n-th typist.
        let count = min(typists.count, max(1, options.fieldThreads ?? Processors.active))
        let shared = LiveRunShared(
            typists: typists.count, threads: count, backend: backend, settleInterval: options.settleIntervalNanos,
            coalescingNanos: options.coalescingNanos, monitor: monitor)
        monitor.attach { [weak shared] in shared?.metricsSoFar() }
        defer { monitor.attach(nil) }
        guard !typists.isEmpty else {
            let (metrics, end) = shared.close()
            return LiveRunResult(metrics: metrics, elapsedNanos: end, undrainedTypists: 0, stoppedEarly: monitor.isStopRequested)
        }

        let typingLatch = QuietLatch(count: count)
        let threads = makeThreads(shared, count) { typingLatch.arrive() }
        let cpuAtStart = CPUTime.process()
        shared.startClock()
        threads.forEach { $0.start() }
        // A stop request ends every session at once (a typist between keys stops then, not at its
        // next key).
        let stopper = Task {
            await monitor.waitForStop()
            if monitor.isStopRequested { threads.forEach { $0.queue.post(.stopTyping) } }
        }
        _ = await typingLatch.waitForAll()
        stopper.cancel()

        let drained = await shared.quiet.wait(timeoutNanos: options.drainTimeoutNanos)
        var undrained = 0
        if !drained {
            for thread in threads {
                undrained += await withCheckedContinuation { continuation in
                    thread.queue.post(.abandon { continuation.resume(returning: $0) })
                }
            }
        }
        let typingCPU = CPUTime.process() - cpuAtStart
        let (metrics, end) = shared.close()
        var cpu: Int64 = 0
        var waited: Int64? = 0
        for thread in threads {
            thread.queue.post(.exit)
            thread.join()
            cpu += thread.cpuNanos
            waited = waited.flatMap { sum in thread.runQueueWaitNanos.map { sum + $0 } }
        }
        return LiveRunResult(metrics: metrics, elapsedNanos: end, undrainedTypists: undrained,
                             stoppedEarly: monitor.isStopRequested, fieldThreadCPUNanos: cpu,
                             fieldThreadRunQueueWaitNanos: waited, typingProcessCPUNanos: typingCPU)
    }
}

/// What every field of one run shares: the clock's origin, the recorders, the backend.
final class LiveRunShared: Sendable {
    /// Set once by `startClock()`, before any field thread runs.
    nonisolated(unsafe) private(set) var startNanos: UInt64
    let backend: any LiveSearchBackend
    /// The backend when it is the engine in this process: a field thread then hands it the
    /// requests of each batch of events at once (``EngineSearchBackend/submit(_:)``).
    let engine: EngineSearchBackend?
    let monitor: LiveRunMonitor
    let quiet: QuietLatch
    /// ``LiveRunOptions/coalescingNanos``.
    let coalescingNanos: Int64
    /// One recorder per field thread, for its typists (slots `t, t + threads, …`): a thread
    /// records without waiting for another, and the shards' metrics merge into exactly those of
    /// one recorder holding every typist.
    let shards: [LiveRecorderShard]

    init(typists: Int, threads: Int, backend: any LiveSearchBackend, settleInterval: Int64,
         coalescingNanos: Int64 = LiveRunOptions.defaultCoalescingNanos, monitor: LiveRunMonitor) {
        self.backend = backend
        engine = backend as? EngineSearchBackend
        self.coalescingNanos = max(0, coalescingNanos)
        self.monitor = monitor
        quiet = QuietLatch(count: typists)
        shards = (0..<max(1, threads)).map { thread in
            LiveRecorderShard(slots: Array(Swift.stride(from: thread, to: typists, by: max(1, threads))),
                              expectsBackend: backend.reportsBackendWork, settleInterval: settleInterval)
        }
        startNanos = MonotonicClock.now()
    }

    /// Starts the run's clock: time 0 is now (the fields are made and their first actions drawn).
    func startClock() {
        startNanos = MonotonicClock.now()
    }

    /// Nanoseconds since the run started, on the monotonic clock.
    func now() -> Int64 {
        Int64(bitPattern: MonotonicClock.now() &- startNanos)
    }

    func nanos(atRunTime time: Int64) -> UInt64 {
        startNanos &+ UInt64(max(0, time))
    }

    /// The run time of an instant on the monotonic clock (the inverse of `nanos(atRunTime:)`).
    func runTime(ofNanos nanos: UInt64) -> Int64 {
        Int64(bitPattern: nanos &- startNanos)
    }

    /// The recorders' metrics so far, merged (not finished: open work is not yet counted), `nil`
    /// once the run is closed.
    func metricsSoFar() -> MetricSet? {
        var parts: [MetricSet] = []
        for shard in shards {
            guard let metrics = shard.metricsSoFar() else { return nil }
            parts.append(metrics)
        }
        return MetricSet(mergingShards: parts)
    }

    /// Finishes the recorders and returns their merged metrics; later records are not counted.
    func close() -> (MetricSet, Int64) {
        let end = now()
        return (MetricSet(mergingShards: shards.compactMap { $0.close(at: end) }), end)
    }
}

extension MetricSet {
    /// The metrics of recorders that each held some of one run's typists, merged: exactly those
    /// of one recorder holding them all (empty for no shard).
    package init(mergingShards shards: [MetricSet]) {
        guard var merged = shards.first else {
            self.init()
            return
        }
        for shard in shards.dropFirst() {
            do {
                try merged.merge(shard)
            } catch {
                // Every shard's recorder makes its histograms with the same configurations.
                preconditionFailure("recorder shards with different histogram shapes: \(error)")
            }
        }
        self = merged
    }
}

/// The recorder of one field thread's typists (typist `i` is the thread's `i`-th field; the
/// flaw examples name the run's slots), behind a lock only so that snapshots and the run's
/// end can read it from another thread.
final class LiveRecorderShard: Sendable {
    private struct State {
        var recorder: Recorder
        var closed = false
    }
    private let state: Locked<State>

    init(slots: [Int], expectsBackend: Bool, settleInterval: Int64) {
        var recorder = Recorder(typists: slots.count, expectsBackend: expectsBackend, settleIntervalNanos: settleInterval)
        recorder.globalTypists = slots
        state = Locked(State(recorder: recorder))
    }

    /// Runs `body` on the recorder. After `close(at:)` records still go in, but nothing reads
    /// them: the metrics were taken from a finished copy.
    func withRecorder<T>(_ body: (inout Recorder) -> T) -> T {
        state.withLock { body(&$0.recorder) }
    }

    func metricsSoFar() -> MetricSet? {
        state.withLock { $0.closed ? nil : $0.recorder.metrics() }
    }

    /// The metrics of the recorder finished at `end`, once (`nil` after the first close).
    func close(at end: Int64) -> MetricSet? {
        state.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            var finished = state.recorder
            finished.finish(at: end)
            return finished.metrics()
        }
    }
}

/// Counts fields down to quiet (session over, no timer or request open) and wakes one waiter.
final class QuietLatch: Sendable {
    private struct State {
        var remaining: Int
        var waiter: CheckedContinuation<Bool, Never>?
    }
    private let state: Locked<State>

    init(count: Int) {
        state = Locked(State(remaining: count))
    }

    func arrive(_ count: Int = 1) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.remaining -= count
            guard state.remaining == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: true)
    }

    /// Waits until every field is quiet (true) or the timeout passed (false).
    func wait(timeoutNanos: Int64) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitForAll() }
            group.addTask {
                try? await Task.sleep(for: .nanoseconds(max(0, timeoutNanos)))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            self.release()
            return first
        }
    }

    /// Waits until every count has arrived (false if the calling task was cancelled first).
    func waitForAll() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state -> Bool in
                    if state.remaining <= 0 { return true }
                    state.waiter = continuation
                    return false
                }
                if done { continuation.resume(returning: true) }
            }
        } onCancel: {
            self.release()
        }
    }

    /// Wakes a waiter with `false` (timeout or cancellation); harmless when there is none.
    private func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: false)
    }
}
