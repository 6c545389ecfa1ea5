import TypestormMetrics
import TypestormSystem
import SearchField
import Locking
import Synchronization
import Typists

/// One typist of a live run: when it arrives and what it types.
public struct LiveTypist<Session: TypistSession & Sendable>: Sendable {
    /// Arrival, in nanoseconds after the run starts.
    public var arrivalNanos: Int64
    /// What the typist types.
    public var session: Session

    /// A typist arriving `arrivalNanos` after the run starts and typing `session`.
    public init(arrivalNanos: Int64, session: Session) {
        self.arrivalNanos = arrivalNanos
        self.session = session
    }
}

/// Knobs of a live run that are not the strategy's.
public struct LiveRunOptions: Sendable {
    /// How long to wait, once every typist has stopped typing, for outstanding timers and
    /// requests; what is still open then is cancelled and counted as unfinished.
    public var drainTimeoutNanos: Int64
    /// S in docs/metrics.md: a burst ends once the input stays unchanged this long.
    public var settleIntervalNanos: Int64

    /// Options, in nanoseconds: by default a 10 s drain and a 1 s settle interval.
    public init(drainTimeoutNanos: Int64 = 10_000_000_000, settleIntervalNanos: Int64 = 1_000_000_000) {
        self.drainTimeoutNanos = drainTimeoutNanos
        self.settleIntervalNanos = settleIntervalNanos
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
    public var elapsedNanos: Int64
    /// Fields that still had timers or requests open when the drain timed out.
    public var undrainedTypists: Int
    /// The run stopped early (`LiveRunMonitor.requestStop()`).
    public var stoppedEarly: Bool

    package init(metrics: MetricSet, elapsedNanos: Int64, undrainedTypists: Int, stoppedEarly: Bool) {
        self.metrics = metrics
        self.elapsedNanos = elapsedNanos
        self.undrainedTypists = undrainedTypists
        self.stoppedEarly = stoppedEarly
    }
}

/// Runs a search-field strategy in real time: every typist types at its intended times, the
/// strategy's timers are real timers, and its requests go to a live backend (the filter engine
/// in this process, or an HTTP server).
///
/// Each typist's field is an actor: the app's UI thread, so the strategy sees its events one at
/// a time, as in an app. Every event and effect goes to the one `Recorder` through the same
/// mapping the virtual-time runner uses, so the metrics mean the same in both.
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
        await run(typists: typists, prototype: strategy.make(configuration ?? strategy.defaultConfiguration), backend: backend,
                  options: options, monitor: monitor)
    }

    /// Runs any strategy value (each typist's field starts as a copy of `prototype`).
    public static func run<Strategy: SearchFieldStrategy, Session: TypistSession & Sendable>(
        typists: [LiveTypist<Session>],
        prototype: Strategy,
        backend: any LiveSearchBackend,
        options: LiveRunOptions = LiveRunOptions(),
        monitor: LiveRunMonitor = LiveRunMonitor()
    ) async -> LiveRunResult {
        let shared = LiveRunShared(
            typists: typists.count, backend: backend, settleInterval: options.settleIntervalNanos, monitor: monitor)
        let fields = typists.indices.map { LiveField(slot: $0, strategy: prototype, shared: shared) }
        monitor.attach { [weak shared] in shared?.metricsSoFar() }
        defer { monitor.attach(nil) }

        // Typing tasks, plus one that waits for a stop request and then cancels them all, so a
        // typist asleep before its next key stops at once instead of at that key.
        await withTaskGroup(of: Bool.self) { group in
            for (slot, typist) in typists.enumerated() {
                let field = fields[slot]
                group.addTask {
                    await Self.type(typist, into: field, shared: shared)
                    return true
                }
            }
            group.addTask {
                await monitor.waitForStop()
                return false
            }
            var typing = typists.count
            while typing > 0, let isTyping = await group.next() {
                if isTyping {
                    typing -= 1
                } else {
                    group.cancelAll()
                }
            }
            group.cancelAll()
        }

        let drained = await shared.quiet.wait(timeoutNanos: options.drainTimeoutNanos)
        var undrained = 0
        if !drained {
            for field in fields where await field.abandonOutstandingWork() { undrained += 1 }
        }
        let (metrics, end) = shared.close()
        return LiveRunResult(metrics: metrics, elapsedNanos: end, undrainedTypists: undrained,
                             stoppedEarly: monitor.isStopRequested)
    }

    private static func type<Strategy: SearchFieldStrategy, Session: TypistSession & Sendable>(
        _ typist: LiveTypist<Session>, into field: LiveField<Strategy>, shared: LiveRunShared
    ) async {
        var session = typist.session
        let monitor = shared.monitor
        var active = false
        while !monitor.isStopRequested, let event = session.next() {
            let intended = typist.arrivalNanos + event.at
            let wait = intended - shared.now()
            if wait > 0 {
                do {
                    try await Task.sleep(for: .nanoseconds(wait))
                } catch {
                    break
                }
            }
            if monitor.isStopRequested { break }
            if !active {
                active = true
                monitor.typistsActive.add(1, ordering: .relaxed)
            }
            if case .end = event.action { break }
            await field.type(event.action, intendedAt: intended)
        }
        await field.endSession()
        if active { monitor.typistsActive.subtract(1, ordering: .relaxed) }
    }
}

/// What every field of one run shares: the clock's origin, the recorder, the backend.
final class LiveRunShared: Sendable {
    let startNanos: UInt64
    let backend: any LiveSearchBackend
    let monitor: LiveRunMonitor
    let quiet: QuietLatch
    private let recorder: Locked<Recorder?>

    init(typists: Int, backend: any LiveSearchBackend, settleInterval: Int64, monitor: LiveRunMonitor) {
        self.backend = backend
        self.monitor = monitor
        quiet = QuietLatch(count: typists)
        recorder = Locked(Recorder(typists: typists, expectsBackend: backend.reportsBackendWork, settleInterval: settleInterval))
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

    /// Runs `body` on the recorder unless the run is closed (late completions after the drain
    /// are not recorded: the recorder already counted that work as unfinished).
    func record(_ body: (inout Recorder) -> Void) {
        recorder.withLock { recorder in
            guard recorder != nil else { return }
            body(&recorder!)
        }
    }

    /// The recorder's metrics so far (not finished: open work is not yet counted), `nil` once
    /// the run is closed.
    func metricsSoFar() -> MetricSet? {
        recorder.withLock { $0?.metrics() }
    }

    /// Finishes the recorder and returns its metrics; later records are dropped.
    func close() -> (MetricSet, Int64) {
        recorder.withLock { recorder in
            let end = now()
            guard var finished = recorder else { return (MetricSet(), end) }
            recorder = nil
            finished.finish(at: end)
            return (finished.metrics(), end)
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

    func arrive() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.remaining -= 1
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

    private func waitForAll() async -> Bool {
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
