import FieldRuntime
import Foundation
import SearchField
import Simulation
import Synchronization
import TypestormMetrics
import Typists

/// What went wrong with a field in a virtual run, in words that name the field and the typists.
public struct FieldRunError: Error, CustomStringConvertible, Sendable {
    /// The message, naming the field and what went wrong.
    public var description: String

    package init(description: String) { self.description = description }
}

/// Runs user fields (`MeasuredField`) in virtual time under a population of typists and the
/// modelled backend, recording through the same `Recorder` (and the same records) as a preset
/// run by `FieldHost`, so every metric means the same.
///
/// Needs the virtual executors (`TypestormTool.main(fields:)` installs them, or
/// `installVirtualExecutors()` as the first statement of a synchronous `main`).
public enum VirtualFieldRunner {
    /// Types `sessions` (the typists of global indices `typists`) into one field each, made by
    /// `definition`, against `backend`; returns the finished recorder.
    public static func run<Session: TypistSession>(
        _ definition: FieldDefinition, name: String, typists: Range<Int>, sessions: [Session], backend: BackendModel, seed: UInt64,
        parameters: FieldParameters = FieldParameters(), settleInterval: Duration = .seconds(1)
    ) async throws -> Recorder {
        try SetupError.checkNotNegative(settleInterval, "settleInterval")
        return try await run(definition, name: name, typists: typists, sessions: sessions, backend: backend, seed: seed,
                             parameters: parameters, settleIntervalNanos: settleInterval.wholeNanoseconds, timelineOf: nil).recorder
    }

    /// The same run, with the timeline of typist `timelineOf` (a global index in `typists`):
    /// every key, search, answer, sleep and screen of its field, in the `replay` command's terms.
    package static func run<Session: TypistSession>(
        _ definition: FieldDefinition, name: String, typists: Range<Int>, sessions: [Session], backend: BackendModel, seed: UInt64,
        parameters: FieldParameters = FieldParameters(), settleIntervalNanos: Int64 = 1_000_000_000, timelineOf: Int?
    ) async throws -> (recorder: Recorder, timeline: [(time: Int64, entry: TimelineEntry)]?) {
        guard ExecutorInstallation.isInstalled else {
            throw FieldRunError(description: """
            field '\(name)' cannot run in virtual time: the virtual executors are not installed (call \
            TypestormTool.main(fields:) or installVirtualExecutors() as the first statement of a synchronous main)
            """)
        }
        guard sessions.count == typists.count else {
            throw SetupError(description: "sessions: expected one session per typist (\(typists.count)), found \(sessions.count)")
        }
        let run = VirtualFieldRun(definition, name: name, globalIndices: Array(typists), sessions: sessions, backend: backend,
                                  seed: seed, parameters: parameters, settleInterval: settleIntervalNanos)
        let local = timelineOf.flatMap { typists.contains($0) ? $0 - typists.lowerBound : nil }
        if let local { run.typists[local].ledger = FieldLedger(recordsTimeline: true) }
        let recorder: Recorder = try await withUnsafeThrowingContinuation { continuation in
            run.completion = continuation
            VirtualScheduler.shared.start(run)
        }
        return (recorder, local.flatMap { run.typists[$0].ledger.timeline })
    }
}

/// A search of one typist's field that the backend model has not ended yet.
final class PendingSearch: @unchecked Sendable {
    let id: RequestID
    let query: QueryIdentity
    let key: QueryIdentity
    let handle: Int32
    var continuation: UnsafeContinuation<SearchAnswer, any Error>?
    var cancelled = false

    init(id: RequestID, query: QueryIdentity, key: QueryIdentity, handle: Int32) {
        self.id = id
        self.query = query
        self.key = key
        self.handle = handle
    }
}

/// One typist's side of the run: what the field did (its ledger) and its open searches.
struct TypistState {
    var ledger = FieldLedger()
    var open: [PendingSearch] = []
}

final class VirtualFieldRun: VirtualSession, @unchecked Sendable {
    let definition: FieldDefinition
    let name: String
    let globalIndices: [Int]
    // The run's state is touched only on the scheduler's one thread, and no access to one of
    // these overlaps another access to the same one (a field's callbacks reach them only
    // between the run's own accesses), so they take no dynamic exclusivity check.
    @exclusivity(unchecked) var sessions: [any TypistSession]
    @exclusivity(unchecked) var pendingTyping: [TypingEvent?]
    @exclusivity(unchecked) var world: ModelledWorld
    @exclusivity(unchecked) var recorder: Recorder
    @exclusivity(unchecked) var typists: [TypistState]
    @exclusivity(unchecked) var fields: [(any MeasuredField)?]
    let expected: QueryNormalizer
    let parameters: FieldParameters
    var completion: UnsafeContinuation<Recorder, any Error>?
    var failure: String?

    init<Session: TypistSession>(
        _ definition: FieldDefinition, name: String, globalIndices: [Int], sessions: [Session], backend: BackendModel, seed: UInt64,
        parameters: FieldParameters, settleInterval: Int64
    ) {
        self.definition = definition
        self.name = name
        self.globalIndices = globalIndices
        self.sessions = sessions
        self.parameters = parameters
        pendingTyping = Array(repeating: nil, count: sessions.count)
        world = ModelledWorld(backend: backend, seed: seed, globalIndices: globalIndices)
        recorder = Recorder(typists: sessions.count, expectsBackend: true, settleIntervalNanos: settleInterval)
        typists = Array(repeating: TypistState(), count: sessions.count)
        fields = Array(repeating: nil, count: sessions.count)
        expected = QueryNormalizer(trims: true, minimumLength: definition.minimumLength)
    }

    var now: Int64 { world.now }

    func scheduleWake(at time: Int64, token: UInt64) { world.scheduleWake(at: time, token: token) }

    // MARK: Driving

    func drive() {
        let scheduler = VirtualScheduler.shared
        scheduler.enter(self)
        let watchdog = Watchdog(run: self)
        watchdog.start()
        makeFields()
        if failure == nil {
            for typist in typists.indices { scheduleNextTyping(typist) }
            scheduler.drain()
            while failure == nil, let step = world.next(recorder: &recorder) {
                switch step {
                case let .typing(typist):
                    // The field's own code runs here, outside any job: the watchdog watches it too.
                    scheduler.inJob.store(true, ordering: .relaxed)
                    typing(typist)
                    scheduler.inJob.store(false, ordering: .relaxed)
                    scheduler.countJob()
                case let .wake(token): scheduler.fire(token)
                case let .finished(typist, id, result): finished(typist, id, result)
                case .internalStep: break
                }
                scheduler.drain()
            }
        }
        watchdog.stop()
        if let first = scheduler.firstRealSleep {
            FileHandle.standardError.write(Data("""
            note: field '\(name)': \(scheduler.realSleeps) sleeps on a real clock (\(first.clock)), the first at virtual time \
            \(first.at / 1_000_000) ms, were virtualised (each delay rounded to whole milliseconds from virtual now); inject \
            env.clock to make the delays exact

            """.utf8))
        }
        check()
        for typist in typists.indices { typists[typist].ledger.recordWriteBacks(typist: typist, at: world.now, recorder: &recorder) }
        recorder.finish(at: world.now)
        scheduler.leave()
        for index in fields.indices { fields[index] = nil }
        if let failure {
            completion?.resume(throwing: FieldRunError(description: failure))
        } else {
            completion?.resume(returning: recorder)
        }
        completion = nil
    }

    private func makeFields() {
        for typist in typists.indices {
            let waits = TypistWaits(run: self, typist: typist)
            let environment = FieldEnvironment(
                typist: globalIndices[typist], clock: VirtualClock(waits: waits), parameters: parameters, facts: waits,
                search: { [unowned self] query in try await self.search(query, typist: typist) },
                show: { [unowned self] screen in self.show(screen, typist: typist) })
            do {
                nonisolated(unsafe) var made: (any MeasuredField)?
                try MainActor.assumeIsolated { made = try definition.make(environment) }
                fields[typist] = made
            } catch {
                failure = "field '\(name)' threw while being made for typist \(globalIndices[typist]): \(error)"
                return
            }
        }
    }

    /// The bad uses that end a run without hanging it, as one message.
    private func check() {
        guard failure == nil else { return }
        let scheduler = VirtualScheduler.shared
        var problems: [String] = []
        let foreign = scheduler.foreignEnqueues
        if foreign > 0 {
            problems.append("""
            field '\(name)': nondeterminism: \(foreign) jobs were enqueued from other threads during the virtual run (real I/O, a \
            Dispatch queue or a thread behind the field's back), so the result depends on real timing; search only \
            through env.search and sleep on env.clock or Task.sleep
            """)
        }
        if let problem = fieldProblems(typists.map(\.ledger), indices: globalIndices, name: name) { problems.append(problem) }
        if !problems.isEmpty { failure = problems.joined(separator: "; ") }
    }

    // MARK: Typing

    private func scheduleNextTyping(_ typist: Int) {
        if let next = sessions[typist].next() {
            pendingTyping[typist] = next
            world.scheduleTyping(at: next.at, typist: typist)
        } else {
            recorder.record(.sessionEnd, typist: typist, at: world.now)
        }
    }

    private func typing(_ typist: Int) {
        guard let typed = pendingTyping[typist].take() else { return }
        let time = world.now
        recorder.record(.inputLag(max(0, time - typed.at)), typist: typist, at: time)
        guard let field = fields[typist] else { return }
        typists[typist].ledger.typed(typed.action, expected: expected, typist: typist, at: time, recorder: &recorder)
        switch typed.action {
        case .edit:
            let text = typists[typist].ledger.input.text  // the edit's text, as the ledger took it
            MainActor.assumeIsolated { field.textChanged(text) }
        case let .scope(scope): MainActor.assumeIsolated { field.scopeChanged(scope) }
        case let .tokens(tokens): MainActor.assumeIsolated { field.tokensChanged(tokens) }
        case .submit: MainActor.assumeIsolated { field.submitted() }
        case .end: return
        }
        scheduleNextTyping(typist)
    }

    // MARK: Searching

    /// Runs on the caller's actor `isolation`, its operation and resumption too (no hop).
    func search(_ query: QueryIdentity, typist: Int, isolation: isolated (any Actor)? = #isolation) async throws -> SearchAnswer {
        guard VirtualScheduler.shared.session === self, VirtualScheduler.shared.onSchedulerThread else {
            throw FieldRunError(description: "field '\(name)' searched outside its virtual run (from another thread, or after the run ended)")
        }
        let id = typists[typist].ledger.searchStarted(query, typist: typist, at: world.now, recorder: &recorder)
        let key = query.trimmed()
        let pending = PendingSearch(id: id, query: query, key: key, handle: world.send(id, query: query, typist: typist))
        typists[typist].open.append(pending)
        return try await withTaskCancellationHandler {
            _ = isolation
            return try await withUnsafeThrowingContinuation { continuation in pending.continuation = continuation }
        } onCancel: { [unowned self] in
            self.cancel(pending, typist: typist)
        }
    }

    private func cancel(_ pending: PendingSearch, typist: Int) {
        guard !pending.cancelled, typists[typist].ledger.cancelRequested(pending.id, typist: typist, at: world.now, recorder: &recorder)
        else { return }
        pending.cancelled = true
        world.cancel(pending.handle, typist: typist)
    }

    private func finished(_ typist: Int, _ id: RequestID, _ result: RequestResult) {
        guard let index = typists[typist].open.firstIndex(where: { $0.id == id }) else { return }
        let pending = typists[typist].open.remove(at: index)
        _ = typists[typist].ledger.finished(id, result, typist: typist, at: world.now, recorder: &recorder)
        switch result {
        case let .results(count):
            pending.continuation?.resume(returning: SearchAnswer(query: pending.query, count: count))
        case .failed(.cancelled):
            pending.continuation?.resume(throwing: CancellationError())
        case let .failed(reason):
            pending.continuation?.resume(throwing: SearchFailure(reason: reason, query: pending.query))
        }
        pending.continuation = nil
    }

    // MARK: Showing

    func show(_ screen: FieldScreen, typist: Int) {
        guard VirtualScheduler.shared.session === self else { return }
        typists[typist].ledger.show(screen, typist: typist, at: world.now, recorder: &recorder)
    }
}

/// A typist's sleeps on its environment's clock, recorded as debounce waits for the query the
/// field asks for when the sleep starts (none below the minimum length): every sleep on
/// `env.clock` counts as a wait, as a `Task.sleep` does not.
final class TypistWaits: WaitObserver, @unchecked Sendable {
    unowned let run: VirtualFieldRun
    let typist: Int

    init(run: VirtualFieldRun, typist: Int) {
        self.run = run
        self.typist = typist
    }

    // Each takes the run once (one strong reference for the call, not one per use).
    func waitStarted(delay: Int64) -> UInt64? {
        let run = run
        return run.typists[typist].ledger.waitStarted(delay: delay, expected: run.expected, typist: typist, at: run.world.now,
                                                      recorder: &run.recorder)
    }

    func waitFired(_ id: UInt64) {
        let run = run
        run.typists[typist].ledger.waitEnded(id, lateness: 0, typist: typist, at: run.world.now, recorder: &run.recorder)
    }

    func waitCancelled(_ id: UInt64) {
        let run = run
        run.typists[typist].ledger.waitEnded(id, lateness: nil, typist: typist, at: run.world.now, recorder: &run.recorder)
    }
}

/// Stops the process when a job of the field has run for 2 s of real time without returning (a
/// blocking wait or a busy loop cannot be preempted), saying where virtual time stood.
final class Watchdog: @unchecked Sendable {
    let run: VirtualFieldRun
    let running = Atomic<Bool>(false)
    private var thread: Thread?

    init(run: VirtualFieldRun) { self.run = run }

    func start() {
        running.store(true, ordering: .relaxed)
        let name = run.name
        let thread = Thread { [self] in
            let scheduler = VirtualScheduler.shared
            var seen = -1
            var stuck = 0
            while running.load(ordering: .relaxed) {
                usleep(100_000)
                let jobs = scheduler.jobsRun.load(ordering: .relaxed)
                if scheduler.inJob.load(ordering: .relaxed), jobs == seen { stuck += 1 } else { stuck = 0; seen = jobs }
                if stuck >= 20 {
                    let at = run.world.now / 1_000_000
                    FileHandle.standardError.write(Data("""
                    error: field '\(name)': a job blocked the harness's only thread for 2 s of real time at virtual time \
                    \(at) ms (job #\(jobs + 1) never returned: a blocking wait such as DispatchSemaphore.wait(), or a busy loop); \
                    in virtual time every job runs on one thread, so nothing it waits for can ever run. Stopped.

                    """.utf8))
                    exit(70)
                }
            }
        }
        self.thread = thread
        thread.start()
    }

    func stop() { running.store(false, ordering: .relaxed) }
}
