import CPosixShims
import Dispatch
import Glibc
import TypestormSystem
import Locking
import Synchronization

/// One request as handed to a client loop.
struct HTTPSubmission: Sendable {
    var id: UInt64
    var url: String
    /// `POST` this; `nil`: `GET`.
    var body: [UInt8]?
    var intendedNanos: UInt64
    var timeoutNanos: UInt64?
}

/// What other threads ask of a client loop.
enum HTTPLoopCommand: Sendable {
    case submit(HTTPSubmission)
    case abort(id: UInt64, requestedNanos: UInt64)
    case stop
}

/// One event-loop thread of an `HTTPLoadClient`: libcurl's multi interface (`CurlLoop`) or the
/// plain HTTP/1.1 client (`PlainHTTPLoop`). Both take commands through a `LoopMailbox`.
protocol HTTPClientLoop: AnyObject, Sendable {
    var mailbox: LoopMailbox { get }
    /// Runs the loop on the calling thread until `.stop`; aborts what is outstanding, then
    /// calls `mailbox.finish()`.
    func run()
}

/// The way into a client loop from other threads: commands in a locked inbox and a byte on a
/// pipe the loop's epoll set watches; from the loop thread itself (a completion callback that
/// submits the next request) a plain array, no lock and no wake-up.
///
/// `@unchecked Sendable` invariant: `local` is touched only by the loop thread (`isLoopThread`).
final class LoopMailbox: @unchecked Sendable {
    let outstanding = Atomic<Int>(0)
    /// Returns from `epoll_wait`.
    let wakeups = Atomic<Int>(0)
    let finished = DispatchSemaphore(value: 0)
    /// The epoll token of the wake pipe.
    static let wakeToken = UInt64.max
    let wake: SystemPipe
    private let inbox = Locked<[HTTPLoopCommand]>([])
    private var local: [HTTPLoopCommand] = []
    private let onFinish = Locked<(@Sendable () -> Void)?>(nil)
    private let loopThread = Atomic<UInt>(0)
    /// A byte is on its way through `wake`; saves a write per post while the loop is busy.
    private let wakePending = Atomic<Bool>(false)

    /// A non-blocking wake pipe; `SystemError` when none can be made.
    init() throws {
        let pipe = try SystemPipe()
        do {
            for end in [pipe.readEnd, pipe.writeEnd] { try end.setNonBlocking() }
        } catch {
            try? pipe.readEnd.close()
            try? pipe.writeEnd.close()
            throw error
        }
        wake = pipe
    }

    /// Watches the wake pipe on `epoll` (token `wakeToken`).
    func watch(on epoll: Int32) throws {
        guard CPosixShims_epoll_watch_readable(epoll, wake.readEnd.rawValue, Self.wakeToken) == 0 else {
            throw SystemError(call: "epoll_ctl", errno: errno)
        }
    }

    func setOnFinish(_ handler: @escaping @Sendable () -> Void) {
        onFinish.withLock { $0 = handler }
    }

    var isLoopThread: Bool { loopThread.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Called first thing on the loop thread.
    func enterLoopThread() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
    }

    func post(_ command: HTTPLoopCommand) {
        if case .submit = command { outstanding.add(1, ordering: .relaxed) }
        if isLoopThread {
            local.append(command)
            return
        }
        inbox.withLock { $0.append(command) }
        if !wakePending.exchange(true, ordering: .acquiringAndReleasing) {
            var byte: UInt8 = 1
            _ = write(wake.writeEnd.rawValue, &byte, 1)
        }
    }

    /// The commands posted since the last call, the inbox's before the loop thread's own.
    func take(into commands: inout [HTTPLoopCommand]) {
        commands.removeAll(keepingCapacity: true)
        inbox.withLock { pending in
            if !pending.isEmpty {
                commands.append(contentsOf: pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
        if !local.isEmpty {
            commands.append(contentsOf: local)
            local.removeAll(keepingCapacity: true)
        }
    }

    /// Takes the commands posted since the last call (into `commands`, a buffer the loop keeps)
    /// and hands them out in order: a submission due by `now` to `start`, a later one to `hold`,
    /// an abort to `abort`. Returns false at `.stop` (the commands after it are dropped).
    func dispatch(into commands: inout [HTTPLoopCommand], now: UInt64, start: (HTTPSubmission) -> Void,
                  hold: (HTTPSubmission) -> Void, abort: (_ id: UInt64, _ requestedNanos: UInt64) -> Void) -> Bool {
        take(into: &commands)
        for command in commands {
            switch command {
            case .submit(let submission):
                if submission.intendedNanos <= now { start(submission) } else { hold(submission) }
            case .abort(let id, let requestedNanos):
                abort(id, requestedNanos)
            case .stop:
                return false
            }
        }
        return true
    }

    /// Waits in `epoll_wait` on `epoll` for events until `deadline` (monotonic ns), a second at
    /// most, not at all when the loop thread posted commands to itself; counts the wake-up,
    /// empties the wake pipe when it was readable and hands every other event (token, mask) to
    /// `handle`. `tokens` and `events` are the loop's buffers (their size is the batch).
    func wait(on epoll: Int32, until deadline: UInt64, tokens: inout [UInt64], events: inout [UInt32],
              handle: (_ token: UInt64, _ events: UInt32) -> Void) {
        var timeoutMillis: Int32 = 0
        if local.isEmpty {
            let now = MonotonicClock.now()
            let wait = deadline > now ? deadline - now : 0
            timeoutMillis = Int32(min(1000, (wait + 999_999) / 1_000_000))
        }
        let count = CPosixShims_epoll_wait_events(epoll, &tokens, &events, Int32(tokens.count), timeoutMillis)
        wakeups.add(1, ordering: .relaxed)
        for index in 0..<max(0, Int(count)) {
            if tokens[index] == Self.wakeToken { drainWake() } else { handle(tokens[index], events[index]) }
        }
    }

    /// The wake pipe was readable: empties it.
    func drainWake() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(wake.readEnd.rawValue, $0.baseAddress, $0.count) }) > 0 {}
        wakePending.store(false, ordering: .releasing)
    }

    /// Called last on the loop thread: closes the pipe, runs the finish handler, wakes `shutdown`.
    func finish() {
        try? wake.readEnd.close()
        try? wake.writeEnd.close()
        onFinish.withLock { $0 }?()
        finished.signal()
    }
}

/// Requests submitted ahead of their intended time, until it comes.
struct HeldSubmissions {
    private var scheduled: [UInt64: HTTPSubmission] = [:]
    private var due = TimeHeap()

    mutating func hold(_ submission: HTTPSubmission) {
        scheduled[submission.id] = submission
        due.push(submission.intendedNanos, submission.id)
    }

    func contains(_ id: UInt64) -> Bool { scheduled[id] != nil }

    /// The earliest intended time held.
    var nextDue: UInt64? { due.peek()?.0 }

    /// The next submission due by `now`, if any.
    mutating func popDue(now: UInt64) -> HTTPSubmission? {
        while let (time, id) = due.peek(), time <= now {
            due.pop()
            if let submission = scheduled.removeValue(forKey: id) { return submission }
        }
        return nil
    }

    mutating func remove(_ id: UInt64) -> HTTPSubmission? { scheduled.removeValue(forKey: id) }

    var ids: [UInt64] { Array(scheduled.keys) }
}

/// A binary min-heap of (time, id), for requests submitted ahead of their intended time.
struct TimeHeap {
    private var items: [(UInt64, UInt64)] = []

    func peek() -> (UInt64, UInt64)? { items.first }

    mutating func push(_ time: UInt64, _ id: UInt64) {
        items.append((time, id))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if items[parent].0 <= items[child].0 { break }
            items.swapAt(parent, child)
            child = parent
        }
    }

    mutating func pop() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left].0 < items[smallest].0 { smallest = left }
            if right < items.count, items[right].0 < items[smallest].0 { smallest = right }
            if smallest == parent { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
