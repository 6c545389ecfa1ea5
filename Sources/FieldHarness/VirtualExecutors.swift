// The only file that touches Swift's experimental executor API (underscored, SPI): a later
// toolchain that changes it is one edit here. Everything else talks to `VirtualScheduler`.
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import SearchField
#if canImport(Glibc)
import Glibc
#endif

/// The main executor: every `@MainActor` job goes to the scheduler's one FIFO.
final class VirtualMainExecutor: MainExecutor, @unchecked Sendable {
    func enqueue(_ job: consuming ExecutorJob) { VirtualScheduler.shared.enqueue(UnownedJob(job), main: true) }
    /// The runtime calls it when an async `main` returns to it; the harness drives its own loop.
    func run() throws { VirtualScheduler.shared.runHost(until: { false }) }
    func stop() {}
    var isMainExecutor: Bool { true }
    func checkIsolated() {
        precondition(VirtualScheduler.shared.onSchedulerThread, "a @MainActor job ran off the harness's thread")
    }
}

/// The default (global) executor: jobs of `Task {}`, `Task.detached`, actors and child tasks go to
/// the same FIFO; `Task.sleep` and the real clocks' sleeps arrive here with a deadline.
final class VirtualGlobalExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    func enqueue(_ job: consuming ExecutorJob) { VirtualScheduler.shared.enqueue(UnownedJob(job), main: false) }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        let delay = clock.now.duration(to: instant)
        VirtualScheduler.shared.realClockSleep(UnownedJob(job), delayNs: (delay as? Duration)?.wholeNanoseconds ?? 0, clock: "\(C.self)")
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        VirtualScheduler.shared.realClockSleep(UnownedJob(job), delayNs: (delay as? Duration)?.wholeNanoseconds ?? 0, clock: "\(C.self)")
    }

    var isMainExecutor: Bool { false }
}

struct VirtualExecutorFactory: ExecutorFactory {
    static let main = VirtualMainExecutor()
    static let global = VirtualGlobalExecutor()
    static var mainExecutor: any MainExecutor { main }
    static var defaultExecutor: any TaskExecutor { global }
}

/// The main actor's executor, as a `@MainActor` job runs on it (looked up at its first use,
/// once the harness's executors are installed).
let mainActorExecutor = MainActor.sharedUnownedExecutor

/// The executor a global job runs on (the runtime's "generic" one: no actor isolation).
let genericSerialExecutor = unsafeBitCast((0, 0), to: UnownedSerialExecutor.self)

enum ExecutorInstallation {
    /// Replaces the main and the default executor with the harness's. Must run as the first
    /// statement of a synchronous `main`, before any task exists.
    static func install() {
        VirtualScheduler.shared.adoptCurrentThread()
        _createExecutors(factory: VirtualExecutorFactory.self)
        precondition(MainActor.executor is VirtualMainExecutor && Task.defaultExecutor is VirtualGlobalExecutor,
                     "the virtual executors did not take effect: install them as the first statement of a synchronous main")
    }

    static var isInstalled: Bool { Task.defaultExecutor is VirtualGlobalExecutor }
}
