import Dispatch
import FieldRuntime
import Foundation
import Locking
import TypestormMetrics
import SearchField
import Typists

/// One typist's search field in a live run, owned by one field thread (`LiveFieldThread`): the
/// app's UI thread, so the field's host sees keystrokes, fired timers and answers one at a time.
final class LiveField<Strategy: SearchFieldStrategy> {
    let slot: Int
    /// The field's place in its thread, and its typist number in the thread's recorder.
    let index: Int
    let arrivalNanos: Int64
    /// The typist's session when it is a population's `GeneratedSession`, held in the field
    /// itself: each key is drawn without reaching through an existential's box, one more
    /// block of memory per key that the cache no longer holds with 50,000 typists.
    private var generated: GeneratedSession?
    /// Any other session (`nil` when `generated` holds it).
    private var other: (any TypistSession)?
    var host: FieldHost<Strategy, any LiveSearchTicket>
    var actions: LiveFieldActions
    /// The typist's next action, due at `arrivalNanos + pending.at` (run time).
    var pending: TypingEvent?
    /// The pending keystroke is due but waits for the UI thread (`local-filter` running).
    var held = false
    var active = false
    var typing = true
    var reportedQuiet = false

    init(slot: Int, index: Int, arrivalNanos: Int64, session: any TypistSession, strategy: Strategy, actions: LiveFieldActions) {
        self.slot = slot
        self.index = index
        self.arrivalNanos = arrivalNanos
        if let session = session as? GeneratedSession {
            generated = session
        } else {
            other = session
        }
        host = FieldHost(strategy: strategy)
        self.actions = actions
    }

    /// The typist's next action (`nil`: the session is over).
    func nextAction() -> TypingEvent? {
        if generated != nil { return generated!.next() }
        return other!.next()
    }
}

/// What a field thread's loop is woken for besides its own deadlines.
enum LiveFieldMessage: @unchecked Sendable {
    /// Request `id` of the field in `slot` ended.
    case completed(slot: Int, id: RequestID, local: Bool, LiveSearchOutcome)
    /// The run stops typing: every session still open ends now.
    case stopTyping
    /// The drain timed out: cancel what is open; `reply` gets how many fields had work open.
    case abandon(reply: @Sendable (Int) -> Void)
    /// The run is over: the thread exits.
    case exit
}

/// A field thread's queue: its deadlines (keystrokes and timers on a ``DeadlineWheel``, touched
/// only by the thread) and its inbox (answers from the backend's threads, the run's commands), with the
/// one wake-up both share.
final class LiveFieldQueue: @unchecked Sendable {
    enum Kind: UInt8 { case keystroke, timer }

    struct Entry: DeadlineFiled {
        var deadline: Int64
        var sequence: UInt64
        var slot: Int32
        var kind: Kind
        var timer: TimerID

        @inline(__always) func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private struct Inbox {
        var messages: [LiveFieldMessage] = []
        var waiting = false
    }

    /// Touched only by the owning thread.
    private var deadlines = DeadlineWheel<Entry>()
    private var sequence: UInt64 = 0
    /// The timers each of the thread's fields holds (field `i` at `2i`, `2i + 1`; 0: none), so a
    /// cancelled timer, whose entry stays on the wheel, is dropped when it comes due without
    /// touching its field (whose state is far away in memory). A field that holds a third timer,
    /// or one numbered 0, is `unlisted`: its field is asked about every timer.
    private var armed: [TimerID] = []
    private var unlisted: [Bool] = []
    private let inbox = Locked(Inbox())
    private let wake = DispatchSemaphore(value: 0)
    /// Requests to the engine made since the last `submitSearches(to:)` (touched only by the
    /// owning thread).
    private var searches: [EngineSearchBackend.Job] = []

    init() {}

    // MARK: The owning thread

    func push(deadline: Int64, slot: Int, kind: Kind, timer: TimerID = 0) {
        sequence &+= 1
        deadlines.push(Entry(deadline: deadline, sequence: sequence, slot: Int32(slot), kind: kind, timer: timer))
    }

    /// Lists the timers of `count` fields (none armed yet).
    func listTimers(fields count: Int) {
        armed = Array(repeating: 0, count: 2 * count)
        unlisted = Array(repeating: false, count: count)
    }

    /// Field `field` holds timer `id` (its entry is on the wheel).
    func arm(_ id: TimerID, field: Int) {
        if id != 0 {
            if armed[2 * field] == 0 {
                armed[2 * field] = id
                return
            }
            if armed[2 * field + 1] == 0 {
                armed[2 * field + 1] = id
                return
            }
        }
        unlisted[field] = true
    }

    /// Field `field` cancelled timer `id` (its entry stays on the wheel).
    func disarm(_ id: TimerID, field: Int) {
        if armed[2 * field] == id {
            armed[2 * field] = 0
        } else if armed[2 * field + 1] == id {
            armed[2 * field + 1] = 0
        }
    }

    /// Timer `id` of field `field` came due: whether the field may still hold it (false: it was
    /// cancelled). Either way it is no longer armed.
    func takeArmed(_ id: TimerID, field: Int) -> Bool {
        if id != 0 {
            if armed[2 * field] == id {
                armed[2 * field] = 0
                return true
            }
            if armed[2 * field + 1] == id {
                armed[2 * field + 1] = 0
                return true
            }
        }
        return unlisted[field]
    }

    /// Holds a request to the engine until the batch of events that made it is over.
    func hold(_ search: EngineSearchBackend.Job) {
        searches.append(search)
    }

    /// Hands the requests held since the last call to `engine` in one go.
    func submitSearches(to engine: EngineSearchBackend?) {
        if let engine, !searches.isEmpty { engine.submit(&searches) }
    }

    /// The earliest entry if it is due at `now` (run time), taken out.
    func popDue(_ now: Int64) -> Entry? {
        deadlines.popDue(now)
    }

    var nextDeadline: Int64? { deadlines.first()?.deadline }

    /// Takes every message posted so far (and ends the last sleep's wait for one).
    func takeMessages(into messages: inout [LiveFieldMessage]) {
        inbox.withLock { inbox in
            inbox.waiting = false
            swap(&inbox.messages, &messages)
        }
    }

    /// Sleeps until a message arrives or `nanos` (relative) passed; at once if one is waiting.
    /// The thread takes its messages next, which ends the wait (one lock per wake-up, not two).
    func sleep(nanos: Int64?) {
        let idle = inbox.withLock { inbox -> Bool in
            guard inbox.messages.isEmpty else { return false }
            inbox.waiting = true
            return true
        }
        guard idle else { return }
        if let nanos {
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(max(0, nanos))))
        } else {
            wake.wait()
        }
    }

    // MARK: Any thread

    func post(_ message: LiveFieldMessage) {
        let signal = inbox.withLock { inbox -> Bool in
            inbox.messages.append(message)
            defer { inbox.waiting = false }
            return inbox.waiting
        }
        if signal { wake.signal() }
    }
}

/// What a live field's host asks of the real world: timers on its field thread's deadline wheel,
/// requests to the run's backend (answers come back through the thread's inbox).
struct LiveFieldActions: FieldRunner {
    typealias Handle = any LiveSearchTicket

    let slot: Int
    let shared: LiveRunShared
    unowned let queue: LiveFieldQueue
    /// When the strategy asked for each open request (run time), for schedule lag.
    private var intendedTimes: [(id: RequestID, time: Int64)] = []
    var uiBusy = false

    init(slot: Int, shared: LiveRunShared, queue: LiveFieldQueue) {
        self.slot = slot
        self.shared = shared
        self.queue = queue
    }

    /// `typist` is the field's place in its thread (``LiveField/index``).
    mutating func scheduleTimer(_ id: TimerID, at deadline: Int64, typist: Int) {
        queue.push(deadline: deadline, slot: slot, kind: .timer, timer: id)
        queue.arm(id, field: typist)
    }

    /// The entry stays on the wheel; when it comes due the thread drops it unasked.
    mutating func cancelTimer(_ id: TimerID, typist: Int) {
        queue.disarm(id, field: typist)
    }

    mutating func startRequest(_ id: RequestID, query: QueryIdentity, local: Bool, typist: Int, at time: Int64) -> any LiveSearchTicket {
        if local { uiBusy = true }
        shared.monitor.requestsStarted.add(1, ordering: .relaxed)
        intendedTimes.append((id, time))
        let (queue, slot) = (self.queue, self.slot)
        let request = LiveSearchRequest(typist: slot, id: id, query: query, local: local, intendedNanos: shared.nanos(atRunTime: time))
        let completion: @Sendable (LiveSearchOutcome) -> Void = { outcome in
            queue.post(.completed(slot: slot, id: id, local: local, outcome))
        }
        // The engine gets the batch's requests at once, as the thread finishes the batch (the
        // wait until then is schedule lag, as for any client that sends once it gets round to it).
        guard let engine = shared.engine else { return shared.backend.start(request, completion: completion) }
        let job = engine.prepare(request, completion: completion)
        queue.hold(job)
        return job
    }

    func cancelRequest(_ handle: any LiveSearchTicket, id: RequestID, typist: Int, at time: Int64) {
        handle.cancel()
    }

    /// When the strategy asked for request `id`, forgotten once asked.
    mutating func takeIntended(_ id: RequestID) -> Int64 {
        guard let index = intendedTimes.firstIndex(where: { $0.id == id }) else { return 0 }
        return intendedTimes.remove(at: index).time
    }
}
