import Foundation
import FieldRuntime
import TypestormMetrics
import SearchField
import Typists
import TypestormSystem

/// A field thread as the run's async part sees it, whatever its strategy type.
protocol LiveFieldThreadHandle: Sendable {
    var queue: LiveFieldQueue { get }
    func start()
    func join()
    /// The thread's CPU time (ns), once joined.
    var cpuNanos: Int64 { get }
    /// How long the thread waited for a core while ready to run (ns), once joined; `nil` where
    /// the system does not say.
    var runQueueWaitNanos: Int64? { get }
}

/// One typist as a field thread holds it: its session behind an existential, so the threads'
/// code is generic over the strategy alone.
struct LiveFieldTypist {
    let arrivalNanos: Int64
    let session: any TypistSession
}

/// Makes the field threads of a preset's strategy at its concrete type, so their loops run
/// specialised for it (``Preset/visit(_:_:)``). Not generic itself: a caller at a concrete
/// preset gets every thread's loop specialised for the strategy.
struct LiveFieldThreadMaker: PresetVisitor {
    let typists: [LiveFieldTypist]
    let count: Int
    let shared: LiveRunShared
    let typingDone: @Sendable () -> Void

    func visit<Strategy: SearchFieldStrategy>(_ prototype: Strategy) -> [any LiveFieldThreadHandle] {
        (0..<count).map { thread in
            LiveFieldThread(name: "typestorm-ui-\(thread)", typists: typists, first: thread, stride: count,
                            prototype: prototype, shared: shared, typingDone: typingDone)
        }
    }
}

/// One thread that runs a share of a live run's fields, as an app's UI thread runs its own:
/// keystrokes and the strategies' timers wait on the thread's deadline wheel (no task or timer
/// per wait), answers arrive through its inbox, and each field's events are handled one at a
/// time in the order they happen. What the fields record goes straight into the thread's own
/// recorder (``LiveRecorderShard``), taken once per batch of events.
///
/// Keystrokes handled late because the thread was busy are input lag; timers, timer lateness.
final class LiveFieldThread<Strategy: SearchFieldStrategy>: LiveFieldThreadHandle, @unchecked Sendable {
    let queue: LiveFieldQueue
    private let shared: LiveRunShared
    private var fields: [LiveField<Strategy>] = []
    /// The thread holds slots `first, first + stride, …`: slot `s` is `fields[s / stride]`.
    private let stride: Int
    private var context: FieldHostContext
    /// The recorder of this thread's typists: field `i` is its typist `i`.
    private let shard: LiveRecorderShard
    private var typing = 0
    private var newlyQuiet = 0
    /// The last typist of this thread left during the current batch.
    private var typingEnded = false
    private let typingDone: @Sendable () -> Void
    private let exited = DispatchSemaphore(value: 0)
    /// Set as the thread leaves its loop, read after `join()`.
    private(set) var cpuNanos: Int64 = 0
    /// Set as the thread leaves its loop, read after `join()`.
    private(set) var runQueueWaitNanos: Int64?

    /// The thread for slots `first, first + stride, …` of `typists`.
    init(name: String, typists: [LiveFieldTypist], first: Int, stride: Int, prototype: Strategy, shared: LiveRunShared,
         typingDone: @escaping @Sendable () -> Void) {
        let slots = Swift.stride(from: first, to: typists.count, by: stride)
        queue = LiveFieldQueue()
        self.stride = stride
        self.shared = shared
        self.typingDone = typingDone
        shard = shared.shards[first]
        context = FieldHostContext(configuration: prototype.configuration)
        for (index, slot) in slots.enumerated() {
            let typist = typists[slot]
            fields.append(LiveField(slot: slot, index: index, arrivalNanos: typist.arrivalNanos, session: typist.session,
                                    strategy: prototype, actions: LiveFieldActions(slot: slot, shared: shared, queue: queue)))
        }
        typing = fields.count
        queue.listTimers(fields: fields.count)
        self.name = name
        // Every typist's first action is drawn before the run's clock starts.
        shard.withRecorder { recorder in
            for field in fields { advance(field, at: 0, recorder: &recorder) }
        }
        // Made here, where the strategy's type is concrete when the caller's is: `start()` is
        // called through the handle protocol, and a loop called from there would run generic.
        entry = { [unowned self] in self.loop() }
    }

    private let name: String
    private var entry: @Sendable () -> Void = {}

    /// Starts the thread (once the run's clock has started).
    func start() {
        let thread = Thread(block: entry)
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Waits until the thread has left its loop (after `.exit`).
    func join() { exited.wait() }

    private func loop() {
        var messages: [LiveFieldMessage] = []
        var running = true
        while running {
            queue.takeMessages(into: &messages)
            var replies: [(@Sendable (Int) -> Void, Int)] = []
            if !messages.isEmpty {
                shard.withRecorder { recorder in
                    for message in messages {
                        switch message {
                        case let .completed(slot, id, local, outcome):
                            completed(fields[slot / stride], id, local: local, outcome, recorder: &recorder)
                        case .stopTyping:
                            for field in fields where field.typing { finishTyping(field, at: shared.now(), recorder: &recorder) }
                        case let .abandon(reply):
                            let now = shared.now()
                            var unfinished = 0
                            for field in fields where field.host.abandonOpenWork(typist: field.index, at: now, runner: &field.actions) {
                                unfinished += 1
                            }
                            replies.append((reply, unfinished))
                        case .exit:
                            running = false
                        }
                    }
                }
                messages.removeAll(keepingCapacity: true)
                queue.submitSearches(to: shared.engine)
            }
            reportQuiet()
            for (reply, unfinished) in replies { reply(unfinished) }
            guard running else { break }
            // The due entries in deadline order, each handled at the clock read just before it
            // runs (its lateness, its input lag), the same read that found it due; in batches of
            // at most 64 under the recorder's lock (a snapshot of the metrics waits for one batch
            // at most).
            var now = shared.now()
            while var entry = queue.popDue(now) {
                shard.withRecorder { recorder in
                    var handled = 0
                    while true {
                        handle(entry, at: now, recorder: &recorder)
                        handled += 1
                        now = shared.now()
                        guard handled < 64, let next = queue.popDue(now) else { break }
                        entry = next
                    }
                }
                queue.submitSearches(to: shared.engine)
            }
            reportQuiet()
            // Nothing is due at `now`. A thread with nothing due sleeps at least the coalescing
            // time unless a message wakes it: what falls due meanwhile runs in one wake-up, at
            // most that late, rather than one wake-up (two context switches) each, which cost
            // more than the keystroke itself. Answers still wake it at once.
            queue.sleep(nanos: queue.nextDeadline.map { max($0 - now, shared.coalescingNanos) })
        }
        cpuNanos = CPUTime.thread()
        runQueueWaitNanos = CPUTime.threadRunQueueWait()
        exited.signal()
    }

    private func handle(_ entry: LiveFieldQueue.Entry, at now: Int64, recorder: inout Recorder) {
        let index = Int(entry.slot) / stride
        switch entry.kind {
        case .keystroke:
            keystroke(fields[index], at: now, recorder: &recorder)
        case .timer:
            // Most timers were cancelled (a debounce restarted by the next key): dropped here.
            guard queue.takeArmed(entry.timer, field: index) else { return }
            let field = fields[index]
            field.host.timerFired(entry.timer, deadline: entry.deadline, typist: field.index, at: now,
                                  context: &context, recorder: &recorder, runner: &field.actions)
            checkQuiet(field)
        }
    }

    /// Fetches the typist's next action and puts it on the wheel; a session that ran out ends.
    private func advance(_ field: LiveField<Strategy>, at now: Int64, recorder: inout Recorder) {
        guard field.typing else { return }
        guard let event = field.nextAction() else {
            finishTyping(field, at: now, recorder: &recorder)
            return
        }
        field.pending = event
        queue.push(deadline: field.arrivalNanos + event.at, slot: field.slot, kind: .keystroke)
    }

    private func keystroke(_ field: LiveField<Strategy>, at now: Int64, recorder: inout Recorder) {
        guard field.typing, field.pending != nil else { return }
        // A stop request ends the session before the next key, even before its message arrives.
        if shared.monitor.isStopRequested {
            finishTyping(field, at: now, recorder: &recorder)
            return
        }
        if !field.active {
            field.active = true
            shared.monitor.typistsActive.add(1, ordering: .relaxed)
        }
        if case .end = field.pending!.action {
            finishTyping(field, at: now, recorder: &recorder)
            return
        }
        // `local-filter` runs on the UI thread: the key waits until it returns.
        if field.actions.uiBusy {
            field.held = true
            return
        }
        type(field, field.pending.take()!, at: now, recorder: &recorder)
    }

    private func type(_ field: LiveField<Strategy>, _ event: TypingEvent, at now: Int64, recorder: inout Recorder) {
        if case .edit = event.action { shared.monitor.keystrokes.add(1, ordering: .relaxed) }
        field.host.type(event.action, intendedAt: field.arrivalNanos + event.at, typist: field.index, at: now,
                        context: &context, recorder: &recorder, runner: &field.actions)
        advance(field, at: now, recorder: &recorder)
        checkQuiet(field)
    }

    private func finishTyping(_ field: LiveField<Strategy>, at now: Int64, recorder: inout Recorder) {
        guard field.typing else { return }
        field.typing = false
        field.pending = nil
        field.held = false
        field.host.endSession(typist: field.index, at: now, recorder: &recorder)
        if field.active { shared.monitor.typistsActive.subtract(1, ordering: .relaxed) }
        typing -= 1
        // Told once the batch's records are in and the recorder's lock is free again.
        if typing == 0 { typingEnded = true }
        checkQuiet(field)
    }

    private func completed(_ field: LiveField<Strategy>, _ id: RequestID, local: Bool, _ outcome: LiveSearchOutcome,
                           recorder: inout Recorder) {
        let now = shared.now()
        shared.monitor.requestsFinished.add(1, ordering: .relaxed)
        if case let .failed(reason) = outcome.result, reason != .cancelled { shared.monitor.errors.add(1, ordering: .relaxed) }
        if shared.backend.reportsBackendWork {
            let work = outcome.backendWork ?? BackendWork(queueNanos: 0, serviceNanos: 0)
            field.host.backendStopped(id, work: work, typist: field.index, at: now, recorder: &recorder)
        }
        // The request left when the client library got round to it: the lag after the instant
        // the strategy asked, which latency counts from (no coordinated omission).
        let intended = field.actions.takeIntended(id)
        let lag = outcome.startedNanos == 0 ? nil : shared.runTime(ofNanos: outcome.startedNanos) - intended
        field.host.requestFinished(id, outcome.result, scheduleLag: lag, typist: field.index, at: now,
                                   context: &context, recorder: &recorder, runner: &field.actions)
        if case .failed = outcome.result, let cause = outcome.errorCause {
            // The failure's cause refines the class `workStopped` recorded.
            recorder.recordError(cause, typist: field.index, at: now)
        }
        if local {
            field.actions.uiBusy = false
            if field.held, let event = field.pending.take() {
                field.held = false
                type(field, event, at: now, recorder: &recorder)
            }
        }
        checkQuiet(field)
    }

    private func checkQuiet(_ field: LiveField<Strategy>) {
        // Only a field whose typist has left can be quiet; asked first, so the host (a struct
        // behind a class reference) is not read on every keystroke.
        guard !field.typing, !field.reportedQuiet, field.host.isQuiet else { return }
        field.reportedQuiet = true
        newlyQuiet += 1
    }

    /// Reports the fields that went quiet, and the end of this thread's typing, once their last
    /// records are in the recorder (so the run never closes it before them).
    private func reportQuiet() {
        if newlyQuiet > 0 {
            shared.quiet.arrive(newlyQuiet)
            newlyQuiet = 0
        }
        if typingEnded {
            typingEnded = false
            typingDone()
        }
    }
}
