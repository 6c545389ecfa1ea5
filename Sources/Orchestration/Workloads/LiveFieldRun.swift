import FieldHarness
import FieldRuntime
import Foundation
import LiveLoad
import Locking
import SearchField
import TypestormMetrics
import TypestormSystem
import Typists

/// A field of yours in real time: each typist's field is made on the main actor and typed into
/// at the typist's intended times (`LiveFieldTyping`: one thread waits for every typist's next
/// key and hands the keys due to the main actor); it sleeps on `ContinuousClock` (through `env.clock`, which
/// records its sleeps as waits, and `env.timerClock`, which records them as timers) and searches
/// the live backend (the engine in this process, or HTTP). What it does is recorded through the
/// same `FieldLedger` as in virtual time (its cache answers and write-backs too), so the numbers
/// mean the same on both clocks.
///
/// Runs on Swift's own executors: the field's `@MainActor` jobs on the main thread, its other
/// jobs on the cooperative pool, as in an app.
package enum LiveFieldRun {
    /// Runs `definition`'s field for `typists` in real time against `backend` (see above).
    package static func run<Session: TypistSession & Sendable>(
        _ definition: FieldDefinition, name: String, typists: [LiveTypist<Session>], globalIndices: [Int],
        backend: any LiveSearchBackend, parameters: FieldParameters, options: LiveRunOptions, monitor: LiveRunMonitor
    ) async throws -> LiveRunResult {
        let state = LiveFieldState(typists: typists.count, backend: backend, monitor: monitor, settleInterval: options.settleIntervalNanos,
                                   expected: QueryNormalizer(trims: true, minimumLength: definition.minimumLength),
                                   coalescingNanos: options.coalescingNanos)
        monitor.attach { [weak state] in state?.metricsSoFar() }
        defer { monitor.attach(nil) }
        // A run that fails before it closes (a field that throws while being made) ends the
        // timers' thread too.
        defer { state.timers.close() }
        let fields = try await Fields(definition, name: name, count: typists.count, globalIndices: globalIndices,
                                      parameters: parameters, state: state)
        await LiveFieldTyping(typists, fields: fields, state: state, coalescingNanos: options.coalescingNanos).run()
        // The drain: until no search is open and no sleep on the field's clock is pending, or the
        // scenario's drain time has passed.
        let drainEnd = state.now() + options.drainTimeoutNanos
        var drained = false
        while !drained, state.now() < drainEnd {
            if !state.isQuiet {
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            // Quiet as far as searches and sleeps go: let the jobs already resumed (an answer's
            // task, a screen read again after it) finish before the screens are final.
            try? await Task.sleep(for: .milliseconds(20))
            for _ in 0..<4 { await MainActor.run {} }
            drained = state.isQuiet
        }
        let (metrics, end, ledgers) = state.close()
        _ = fields
        if drained, let problem = fieldProblems(ledgers, indices: globalIndices, name: name) {
            throw FieldRunError(description: problem)
        }
        return LiveRunResult(metrics: metrics, elapsedNanos: end, undrainedTypists: ledgers.filter { !$0.open.isEmpty }.count,
                             stoppedEarly: monitor.isStopRequested)
    }

    /// The typists' fields, made and used on the main actor.
    @MainActor
    final class Fields {
        let all: [any MeasuredField]

        init(_ definition: FieldDefinition, name: String, count: Int, globalIndices: [Int], parameters: FieldParameters,
             state: LiveFieldState) throws {
            all = try (0..<count).map { slot in
            let environment = FieldEnvironment(
                typist: globalIndices[slot], clock: FieldClock(live: LiveFieldClock(state: state, typist: slot, kind: .debounce)),
                parameters: parameters, facts: LiveFieldFacts(state: state, typist: slot),
                search: { query in try await state.search(query, typist: slot) },
                show: { screen in state.show(screen, typist: slot) })
            do {
                return try definition.make(environment)
            } catch {
                throw FieldRunError(description: "field '\(name)' threw while being made for typist \(globalIndices[slot]): \(error)")
            }
            }
        }
    }

}

/// What the fields of a live run share: the recorders and the typists' ledgers, the backend and
/// the monitor.
///
/// The books are kept in shards, typist `t` in shard `t % shardCount` as its typist
/// `t / shardCount`, each shard under its own lock with its own recorder: the main actor, the
/// pool threads that end the fields' sleeps and the search threads that answer them seldom wait
/// for one another, and the shards' metrics merge into exactly those of one recorder.
final class LiveFieldState: @unchecked Sendable {
    let startNanos: UInt64
    let backend: any LiveSearchBackend
    let monitor: LiveRunMonitor
    let expected: QueryNormalizer
    /// The fields' sleeps.
    let timers: LiveFieldTimers
    private struct Books {
        var recorder: Recorder?
        var ledgers: [FieldLedger]
        /// Sleeps on the fields' clocks not yet over.
        var sleeping = 0
    }
    private let shards: [Locked<Books>]
    private let shardCount: Int
    private let typists: Int

    init(typists: Int, backend: any LiveSearchBackend, monitor: LiveRunMonitor, settleInterval: Int64, expected: QueryNormalizer,
         coalescingNanos: Int64 = LiveRunOptions.defaultCoalescingNanos) {
        self.backend = backend
        self.monitor = monitor
        self.expected = expected
        self.typists = typists
        let shardCount = max(1, min(16, typists))
        self.shardCount = shardCount
        shards = (0..<shardCount).map { shard in
            let slots = Array(stride(from: shard, to: typists, by: shardCount))
            var recorder = Recorder(typists: slots.count, expectsBackend: backend.reportsBackendWork, settleIntervalNanos: settleInterval)
            recorder.globalTypists = slots
            return Locked(Books(recorder: recorder, ledgers: Array(repeating: FieldLedger(), count: slots.count)))
        }
        startNanos = MonotonicClock.now()
        timers = LiveFieldTimers(startNanos: startNanos, coalescingNanos: coalescingNanos)
    }

    /// Nanoseconds since the run started, on the monotonic clock.
    func now() -> Int64 { Int64(bitPattern: MonotonicClock.now() &- startNanos) }

    /// Runs `body` on typist `typist`'s books (its recorder, its ledger, its shard's count of
    /// sleeps, and its number in that recorder) unless the run is closed; returns its result, or
    /// nil when closed.
    private func withBooks<T>(_ body: (inout Recorder, inout FieldLedger, inout Int, Int) -> T, typist: Int) -> T? {
        let local = typist / shardCount
        return shards[typist % shardCount].withLock { books in
            guard books.recorder != nil else { return nil }
            return body(&books.recorder!, &books.ledgers[local], &books.sleeping, local)
        }
    }

    func typed(_ action: TypingEvent.Action, intendedAt intended: Int64, typist: Int) {
        let time = now()
        _ = withBooks({ recorder, ledger, _, local in
            recorder.record(.inputLag(max(0, time - intended)), typist: local, at: time)
            ledger.typed(action, expected: expected, typist: local, at: time, recorder: &recorder)
        }, typist: typist)
    }

    func show(_ screen: FieldScreen, typist: Int) {
        let time = now()
        _ = withBooks({ recorder, ledger, _, local in ledger.show(screen, typist: local, at: time, recorder: &recorder) }, typist: typist)
    }

    /// A sleep on the field's clock until `deadline` starts: a debounce wait (its number, when
    /// recorded) or a timer (nil).
    func waitStarted(deadline: Int64, kind: LiveFieldClock.Kind, typist: Int) -> UInt64? {
        let time = now()
        return withBooks({ recorder, ledger, sleeping, local in
            sleeping += 1
            guard kind == .debounce else { return nil }
            return ledger.waitStarted(delay: max(0, deadline - time), expected: expected, typist: local, at: time, recorder: &recorder)
        }, typist: typist) ?? nil
    }

    /// A sleep until `deadline` ended: fired (late by the time since), or (nil) cancelled.
    func waitEnded(_ id: UInt64?, deadline: Int64?, kind: LiveFieldClock.Kind, typist: Int) {
        let time = now()
        let lateness = deadline.map { max(0, time - $0) }
        _ = withBooks({ recorder, ledger, sleeping, local in
            sleeping -= 1
            switch kind {
            case .debounce:
                guard let id else { return }
                ledger.waitEnded(id, lateness: lateness, typist: local, at: time, recorder: &recorder)
            case .timer:
                guard let lateness else { return }
                ledger.timerFired(lateness: lateness, typist: local, at: time, recorder: &recorder)
            }
        }, typist: typist)
    }

    func answeredFromCache(_ query: QueryIdentity, typist: Int) {
        let time = now()
        _ = withBooks({ recorder, ledger, _, local in ledger.answeredFromCache(query, typist: local, at: time, recorder: &recorder) },
                      typist: typist)
    }

    /// What the text field holds after the field's code set it (`text` once the run is closed).
    func fieldTextSet(_ text: String, typist: Int) -> String? {
        switch withBooks({ _, ledger, _, _ in ledger.fieldTextSet(text) }, typist: typist) {
        case let .some(shown): shown
        case .none: text
        }
    }

    /// The field's search: recorded, sent to the backend, cancelled with the task that awaits it.
    /// Starts on the caller's actor `isolation` (the field's), with no hop.
    func search(_ query: QueryIdentity, typist: Int, isolation: isolated (any Actor)? = #isolation) async throws -> SearchAnswer {
        let time = now()
        guard let id = withBooks({ recorder, ledger, _, local in ledger.searchStarted(query, typist: local, at: time, recorder: &recorder) },
                                 typist: typist) else {
            throw FieldRunError(description: "a field searched after its live run ended (typist \(typist))")
        }
        monitor.requestsStarted.add(1, ordering: .relaxed)
        let flight = Flight()
        return try await withTaskCancellationHandler {
            _ = isolation
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SearchAnswer, any Error>) in
                flight.set(continuation)
                let request = LiveSearchRequest(typist: typist, id: id, query: query, local: false,
                                                intendedNanos: startNanos &+ UInt64(max(0, time)))
                let ticket = backend.start(request) { [self] outcome in
                    completed(id, query: query, intended: time, outcome, typist: typist, flight: flight)
                }
                flight.set(ticket)
            }
        } onCancel: { [self] in
            let cancelled = now()
            _ = withBooks({ recorder, ledger, _, local in ledger.cancelRequested(id, typist: local, at: cancelled, recorder: &recorder) },
                          typist: typist)
            flight.cancel()
        }
    }

    private func completed(_ id: RequestID, query: QueryIdentity, intended: Int64, _ outcome: LiveSearchOutcome, typist: Int,
                           flight: Flight) {
        let time = now()
        monitor.requestsFinished.add(1, ordering: .relaxed)
        if case let .failed(reason) = outcome.result, reason != .cancelled { monitor.errors.add(1, ordering: .relaxed) }
        // The request left when the client library got round to it: the lag after the instant
        // the field asked, which latency counts from (no coordinated omission).
        let lag = outcome.startedNanos == 0 ? 0 : max(0, Int64(bitPattern: outcome.startedNanos &- startNanos) - intended)
        _ = withBooks({ recorder, ledger, _, local in
            if backend.reportsBackendWork {
                recorder.record(.backendStopped(id: id, work: outcome.backendWork ?? BackendWork(queueNanos: 0, serviceNanos: 0)),
                                typist: local, at: time)
            }
            guard ledger.finished(id, outcome.result, scheduleLag: lag, typist: local, at: time, recorder: &recorder) else { return }
            if let cause = outcome.errorCause { recorder.recordError(cause, typist: local, at: time) }
        }, typist: typist)
        switch outcome.result {
        case let .results(count): flight.resume(.success(SearchAnswer(query: query, count: count)))
        case .failed(.cancelled): flight.resume(.failure(CancellationError()))
        case let .failed(reason): flight.resume(.failure(SearchFailure(reason: reason, query: query)))
        }
    }

    /// No search open and no sleep pending.
    var isQuiet: Bool {
        shards.allSatisfy { shard in
            shard.withLock { books in books.sleeping == 0 && books.ledgers.allSatisfy { $0.open.isEmpty } }
        }
    }

    /// The shards' metrics so far, merged; nil once the run is closed.
    func metricsSoFar() -> MetricSet? {
        var parts: [MetricSet] = []
        for shard in shards {
            guard let metrics = shard.withLock({ $0.recorder?.metrics() }) else { return nil }
            parts.append(metrics)
        }
        return MetricSet(mergingShards: parts)
    }

    /// Finishes the recorders and returns their merged metrics and every typist's ledger (by
    /// slot); later records are dropped.
    func close() -> (MetricSet, Int64, [FieldLedger]) {
        timers.close()
        let end = now()
        var parts: [MetricSet] = []
        var ledgers = Array(repeating: FieldLedger(), count: typists)
        for (index, shard) in shards.enumerated() {
            let metrics = shard.withLock { books -> MetricSet? in
                for local in books.ledgers.indices { ledgers[local * shardCount + index] = books.ledgers[local] }
                guard var recorder = books.recorder else { return nil }
                books.recorder = nil
                for local in books.ledgers.indices {
                    books.ledgers[local].recordWriteBacks(typist: local, at: end, recorder: &recorder)
                    ledgers[local * shardCount + index] = books.ledgers[local]
                }
                recorder.finish(at: end)
                return recorder.metrics()
            }
            if let metrics { parts.append(metrics) }
        }
        return (MetricSet(mergingShards: parts), end, ledgers)
    }
}

/// One search in flight: its continuation and its backend ticket, whichever comes first, and a
/// cancellation that may come before the ticket does.
final class Flight: Sendable {
    private struct State {
        var continuation: CheckedContinuation<SearchAnswer, any Error>?
        var ticket: (any LiveSearchTicket)?
        var cancelled = false
        var result: Result<SearchAnswer, any Error>?
    }
    private let state = Locked(State())

    func set(_ continuation: CheckedContinuation<SearchAnswer, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func set(_ ticket: any LiveSearchTicket) {
        let cancelNow = state.withLock { state -> Bool in
            state.ticket = ticket
            return state.cancelled
        }
        if cancelNow { ticket.cancel() }
    }

    func cancel() {
        let ticket = state.withLock { state -> (any LiveSearchTicket)? in
            state.cancelled = true
            return state.ticket
        }
        ticket?.cancel()
    }

    func resume(_ result: Result<SearchAnswer, any Error>) {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }
}

/// A field's `env.clock` in a live run (behind a `FieldClock`): real time since the run
/// started, its sleeps ended by the run's timers (`LiveFieldTimers`) on the caller's actor and
/// recorded as the field's waits (started, fired with their lateness, or cancelled), as in
/// virtual time; for `env.timerClock`, a fired sleep is recorded as a timer's lateness. The
/// lateness is measured when the sleeping code resumes on its actor: how late the field's code
/// after the sleep ran.
struct LiveFieldClock: LiveSleeper {
    enum Kind { case debounce, timer }
    let state: LiveFieldState
    let typist: Int
    let kind: Kind

    var now: Duration { .nanoseconds(state.now()) }
    var minimumResolution: Duration { .nanoseconds(1) }

    nonisolated(nonsending) func sleep(until deadline: Duration) async throws {
        let deadline = deadline.wholeNanoseconds
        let id = state.waitStarted(deadline: deadline, kind: kind, typist: typist)
        do {
            try await state.timers.sleep(until: deadline)
        } catch {
            state.waitEnded(id, deadline: nil, kind: kind, typist: typist)
            throw error
        }
        state.waitEnded(id, deadline: deadline, kind: kind, typist: typist)
    }
}

/// What a field's own code tells Typestorm in a live run (its `timerClock`, cache answers and
/// write-backs), recorded through the typist's ledger as in virtual time.
struct LiveFieldFacts: FieldFacts {
    let state: LiveFieldState
    let typist: Int

    var timerClock: any Clock<Duration> { FieldClock(live: LiveFieldClock(state: state, typist: typist, kind: .timer)) }

    func answeredFromCache(_ query: QueryIdentity) { state.answeredFromCache(query, typist: typist) }

    func fieldTextSet(_ text: String) -> String? { state.fieldTextSet(text, typist: typist) }
}
