import FieldRuntime
import Foundation
import SearchField
import Simulation
import Synchronization
import TypestormMetrics
import Typists

/// What went wrong with a field in a virtual run, in words that name the field and the typists.
public struct FieldRunError: Error, CustomStringConvertible, Sendable {
    public var description: String
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
        parameters: FieldParameters = FieldParameters(), settleInterval: Int64 = 1_000_000_000
    ) async throws -> Recorder {
        guard ExecutorInstallation.isInstalled else {
            throw FieldRunError(description: """
            field '\(name)' cannot run in virtual time: the virtual executors are not installed (call \
            TypestormTool.main(fields:) or installVirtualExecutors() as the first statement of a synchronous main)
            """)
        }
        precondition(sessions.count == typists.count, "one session per typist")
        let run = VirtualFieldRun(definition, name: name, globalIndices: Array(typists), sessions: sessions, backend: backend,
                                  seed: seed, parameters: parameters, settleInterval: settleInterval)
        return try await withUnsafeThrowingContinuation { continuation in
            run.completion = continuation
            VirtualScheduler.shared.start(run)
        }
    }
}

/// A search of one typist's field that the backend model has not ended yet.
final class PendingSearch: @unchecked Sendable {
    let id: RequestID
    let query: QueryIdentity
    let key: QueryKey
    let handle: Int32
    var continuation: UnsafeContinuation<SearchAnswer, any Error>?
    var cancelled = false

    init(id: RequestID, query: QueryIdentity, key: QueryKey, handle: Int32) {
        self.id = id
        self.query = query
        self.key = key
        self.handle = handle
    }
}

/// One typist's side of the run: the field's input, its open searches and what it was told.
struct TypistState {
    var input = FieldInput()
    var nextRequest: RequestID = 0
    var nextWait: UInt64 = 0
    var open: [PendingSearch] = []
    /// Per query, the last request whose outcome reached the field, and whether a screen
    /// applied it: the screen that shows the query next is that request's answer.
    var delivered: [(key: QueryKey, id: RequestID, applied: Bool)] = []
    var shows = 0
    var answersDelivered = 0
}

final class VirtualFieldRun: VirtualSession, @unchecked Sendable {
    let definition: FieldDefinition
    let name: String
    let globalIndices: [Int]
    var sessions: [any TypistSession]
    var pendingTyping: [TypingEvent?]
    var world: ModelledWorld
    var recorder: Recorder
    var typists: [TypistState]
    var fields: [(any MeasuredField)?]
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
        recorder = Recorder(typists: sessions.count, expectsBackend: true, settleInterval: settleInterval)
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
                    scheduler.jobsRun.add(1, ordering: .relaxed)
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
            let environment = FieldEnvironment(
                typist: globalIndices[typist], clock: VirtualClock(waits: TypistWaits(run: self, typist: typist)), parameters: parameters,
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
            nondeterminism: \(foreign) jobs were enqueued from other threads during the virtual run (real I/O, a \
            Dispatch queue or a thread behind the field's back), so the result depends on real timing; search only \
            through env.search and sleep on env.clock or Task.sleep
            """)
        }
        let silent = typists.indices.filter { typists[$0].answersDelivered > 0 && typists[$0].shows == 0 }
        if !silent.isEmpty {
            problems.append("""
            the field never reported what it shows for \(silent.count) of \(typists.count) typists (\(names(silent))): \
            they got answers, but the field never called env.show(…), so nothing can be measured
            """)
        }
        if !problems.isEmpty { failure = "field '\(name)': " + problems.joined(separator: "; ") }
    }

    func names(_ typists: [Int]) -> String {
        let shown = typists.prefix(8).map { "typist \(globalIndices[$0])" }.joined(separator: ", ")
        return typists.count > 8 ? shown + ", …" : shown
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
        switch typed.action {
        case let .edit(_, text):
            typists[typist].input.text = text
            recordInput(typist)
            MainActor.assumeIsolated { field.textChanged(text) }
        case let .scope(scope):
            typists[typist].input.scope = scope
            recordInput(typist)
            MainActor.assumeIsolated { field.scopeChanged(scope) }
        case let .tokens(tokens):
            typists[typist].input.tokens = tokens
            recordInput(typist)
            MainActor.assumeIsolated { field.tokensChanged(tokens) }
        case .submit:
            recorder.record(.submit, typist: typist, at: time)
            MainActor.assumeIsolated { field.submitted() }
        case .end:
            recorder.record(.sessionEnd, typist: typist, at: time)
            return
        }
        scheduleNextTyping(typist)
    }

    private func recordInput(_ typist: Int) {
        let input = typists[typist].input
        let query = expected.identity(text: input.text, scope: input.scope, tokens: input.tokens).map { QueryKey($0, alreadyTrimmed: true) }
        recorder.keystroke(query, typist: typist, at: world.now)
    }

    // MARK: Searching

    func search(_ query: QueryIdentity, typist: Int) async throws -> SearchAnswer {
        guard VirtualScheduler.shared.session === self, VirtualScheduler.shared.onSchedulerThread else {
            throw FieldRunError(description: "field '\(name)' searched outside its virtual run (from another thread, or after the run ended)")
        }
        typists[typist].nextRequest += 1
        let id = typists[typist].nextRequest
        let key = QueryKey(query)
        recorder.commit(key, cached: false, typist: typist, at: world.now)
        recorder.requestStarted(id: id, query: key, lag: nil, typist: typist, at: world.now)
        let pending = PendingSearch(id: id, query: query, key: key, handle: world.send(id, query: query, typist: typist))
        typists[typist].open.append(pending)
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in pending.continuation = continuation }
        } onCancel: { [unowned self] in
            self.cancel(pending, typist: typist)
        }
    }

    private func cancel(_ pending: PendingSearch, typist: Int) {
        guard !pending.cancelled, typists[typist].open.contains(where: { $0 === pending }) else { return }
        pending.cancelled = true
        recorder.cancelRequested(id: pending.id, wait: false, typist: typist, at: world.now)
        world.cancel(pending.handle, typist: typist)
    }

    private func finished(_ typist: Int, _ id: RequestID, _ result: RequestResult) {
        guard let index = typists[typist].open.firstIndex(where: { $0.id == id }) else { return }
        let pending = typists[typist].open.remove(at: index)
        let time = world.now
        recorder.record(.scheduleLag(0), typist: typist, at: time)
        var state = typists[typist]
        if let known = state.delivered.firstIndex(where: { $0.key == pending.key }) { state.delivered.remove(at: known) }
        state.delivered.append((pending.key, id, false))
        state.answersDelivered += 1
        typists[typist] = state
        switch result {
        case let .results(count):
            // The modelled backend always knows its count.
            guard let count else { preconditionFailure("the modelled backend answered request \(id) without a count") }
            recorder.record(.workStopped(id: id, reason: .completed), typist: typist, at: time)
            pending.continuation?.resume(returning: SearchAnswer(query: pending.query, count: count))
        case let .failed(reason):
            recorder.record(.workStopped(id: id, reason: StopReason(reason)), typist: typist, at: time)
            if reason == .cancelled {
                pending.continuation?.resume(throwing: CancellationError())
            } else {
                pending.continuation?.resume(throwing: SearchFailure(reason: reason, query: pending.query))
            }
        }
        pending.continuation = nil
    }

    // MARK: Showing

    func show(_ screen: FieldScreen, typist: Int) {
        guard VirtualScheduler.shared.session === self else { return }
        typists[typist].shows += 1
        let time = world.now
        func answer(_ query: QueryIdentity, _ kind: DisplayKind) -> QueryKey {
            let key = QueryKey(query)
            if let index = typists[typist].delivered.firstIndex(where: { $0.key == key }), !typists[typist].delivered[index].applied {
                typists[typist].delivered[index].applied = true
                recorder.apply(id: typists[typist].delivered[index].id, query: key, kind: kind, typist: typist, at: time)
            }
            return key
        }
        switch screen {
        case .idle: recorder.display(.idle, query: nil, typist: typist, at: time)
        case .loading: recorder.display(.loading, query: nil, typist: typist, at: time)
        case .stalled: recorder.display(.stalled, query: nil, typist: typist, at: time)
        case let .results(query, count):
            let kind: DisplayKind = count == 0 ? .empty : .results
            recorder.display(kind, query: answer(query, kind), typist: typist, at: time)
        case let .empty(query):
            recorder.display(.empty, query: answer(query, .empty), typist: typist, at: time)
        case let .error(query):
            recorder.display(.error, query: answer(query, .error), typist: typist, at: time)
        }
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

    func waitStarted() -> UInt64? {
        let input = run.typists[typist].input
        guard let query = run.expected.identity(text: input.text, scope: input.scope, tokens: input.tokens) else { return nil }
        run.typists[typist].nextWait += 1
        let id = run.typists[typist].nextWait
        run.recorder.waitStarted(id: id, query: QueryKey(query, alreadyTrimmed: true), typist: typist, at: run.world.now)
        return id
    }

    func waitFired(_ id: UInt64) { run.recorder.waitFired(id: id, lateness: 0, typist: typist, at: run.world.now) }

    func waitCancelled(_ id: UInt64) { run.recorder.cancelRequested(id: id, wait: true, typist: typist, at: run.world.now) }
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
