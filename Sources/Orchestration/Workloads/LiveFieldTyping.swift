import Foundation
import LiveLoad
import Locking
import SearchField
import TypestormSystem
import Typists

/// One act of a typist for its field: intended at `intended` (nil: the moment the field gets it,
/// for the end of a session that ran out or was stopped).
struct LiveFieldKey: Sendable {
    var slot: Int
    var action: TypingEvent.Action
    var intended: Int64?
}

/// Types the typists' sessions into their fields at the intended times from one thread: each
/// typist's next key waits on one deadline wheel (no task and no sleep per typist), and the keys
/// that came due go to the main actor through an inbox, in order, one main-actor job for all the
/// keys waiting when it runs.
///
/// Not generic: the sessions are erased when it is made, so its loop is compiled for its
/// concrete types whatever module calls the run (a loop generic over the session ran
/// unspecialised from the benchmark, paying metadata look-ups on every key).
final class LiveFieldTyping: @unchecked Sendable {
    /// Keys due and not yet given to the fields; whether a main-actor job is on its way to them;
    /// and, once typing is over, who waits for the last key to be given.
    private struct Inbox {
        var keys: [LiveFieldKey] = []
        var scheduled = false
        var finished: CheckedContinuation<Void, Never>?
    }

    private let fields: LiveFieldRun.Fields
    private let state: LiveFieldState
    private let arrivals: [Int64]
    private let inbox = Locked(Inbox())
    /// The task awaiting `run` was cancelled: stop typing, as on a stop request.
    private let cancelled = CancellationFlag()
    // The typing thread's own, never touched elsewhere.
    private var sessions: [any TypistSession]
    private var pending: [TypingEvent?]
    private var ended: [Bool]
    private var deadlines = KeyDeadlines()
    private var order: UInt64 = 0
    private var batch: [LiveFieldKey] = []
    /// ``LiveRunOptions/coalescingNanos``.
    private let coalescingNanos: Int64

    init<Session: TypistSession & Sendable>(_ typists: [LiveTypist<Session>], fields: LiveFieldRun.Fields, state: LiveFieldState,
                                            coalescingNanos: Int64) {
        self.fields = fields
        self.state = state
        self.coalescingNanos = max(0, coalescingNanos)
        arrivals = typists.map(\.arrivalNanos)
        sessions = typists.map { $0.session as any TypistSession }
        pending = Array(repeating: nil, count: typists.count)
        ended = Array(repeating: false, count: typists.count)
    }

    /// Types every session to its end (or until the monitor asks to stop, or the calling task
    /// is cancelled); returns once the fields have been given every key.
    func run() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let thread = Thread { [self] in loop(continuation) }
                thread.name = "typestorm-typing"
                thread.start()
            }
        } onCancel: {
            _ = cancelled.cancel()
        }
    }

    private func loop(_ finished: CheckedContinuation<Void, Never>) {
        let monitor = state.monitor
        monitor.typistsActive.add(sessions.count, ordering: .relaxed)
        for slot in sessions.indices { scheduleNext(slot) }
        while !monitor.isStopRequested, !cancelled.isCancelled, let first = deadlines.first() {
            let wait = first.deadline - state.now()
            if wait > 0 {
                post()
                // Awake at least every 10 ms to hear a stop request or a cancellation, and asleep
                // at least the coalescing time: the keys due meanwhile go to the main actor in one
                // job, at most that late, rather than a wake-up and a job each.
                MonotonicClock.sleep(min(max(wait, coalescingNanos), 10_000_000))
                continue
            }
            let due = deadlines.popDue(first.deadline)!
            guard let event = pending[due.slot].take() else { continue }
            batch.append(LiveFieldKey(slot: due.slot, action: event.action, intended: due.deadline))
            if case .end = event.action {
                ended[due.slot] = true
            } else {
                scheduleNext(due.slot)
            }
            if batch.count >= 256 { post() }
        }
        // Stopped early: the typists still typing leave now.
        for slot in ended.indices where !ended[slot] {
            ended[slot] = true
            batch.append(LiveFieldKey(slot: slot, action: .end, intended: nil))
        }
        post(finished: finished)
    }

    private func scheduleNext(_ slot: Int) {
        if let next = sessions[slot].next() {
            pending[slot] = next
            deadlines.push(DueKey(deadline: arrivals[slot] + next.at, order: order, slot: slot))
            order += 1
        } else {
            ended[slot] = true
            batch.append(LiveFieldKey(slot: slot, action: .end, intended: nil))
        }
    }

    /// Puts the keys gathered so far in the inbox (with `finished`: the last ones), and sends a
    /// main-actor job for them unless one is on its way.
    private func post(finished: CheckedContinuation<Void, Never>? = nil) {
        guard !batch.isEmpty || finished != nil else { return }
        let keys = batch
        batch = []
        let send = inbox.withLock { inbox -> Bool in
            inbox.keys += keys
            if let finished { inbox.finished = finished }
            defer { inbox.scheduled = true }
            return !inbox.scheduled
        }
        if send { Task { @MainActor in self.deliver() } }
    }

    /// Gives the fields the keys in the inbox, in order; then sends another job if more came
    /// meanwhile (so other main-actor jobs run between), else resumes the run once the last key
    /// is given.
    @MainActor private func deliver() {
        let keys = inbox.withLock { inbox -> [LiveFieldKey] in
            defer { inbox.keys = [] }
            return inbox.keys
        }
        fields.type(keys, state: state)
        let (again, finished) = inbox.withLock { inbox -> (Bool, CheckedContinuation<Void, Never>?) in
            guard inbox.keys.isEmpty else { return (true, nil) }
            inbox.scheduled = false
            defer { inbox.finished = nil }
            return (false, inbox.finished)
        }
        if again {
            Task { @MainActor in self.deliver() }
        } else {
            finished?.resume()
        }
    }
}

extension LiveFieldRun.Fields {
    /// Gives `keys` to the typists' fields, each recorded as typed when its field gets it.
    func type(_ keys: [LiveFieldKey], state: LiveFieldState) {
        let monitor = state.monitor
        for key in keys {
            state.typed(key.action, intendedAt: key.intended ?? state.now(), typist: key.slot)
            let field = all[key.slot]
            switch key.action {
            case let .edit(_, text):
                monitor.keystrokes.add(1, ordering: .relaxed)
                field.textChanged(text.string)
            case let .scope(scope): field.scopeChanged(scope)
            case let .tokens(tokens): field.tokensChanged(tokens)
            case .submit: field.submitted()
            case .end: monitor.typistsActive.subtract(1, ordering: .relaxed)
            }
        }
    }
}
