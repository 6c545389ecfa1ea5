import CCurl
import CShims
import Dispatch
import Glibc
import Measurement
import Platform
import Locking
import Synchronization

/// One easy handle and the state of the request it currently carries.
///
/// Only the loop thread touches a transfer (and curl's write callback, which runs on it).
final class Transfer {
    let easy: UnsafeMutableRawPointer
    var id: UInt64 = 0
    var intendedNanos: UInt64 = 0
    var startedNanos: UInt64 = 0
    var body: [UInt8] = []
    var bodyBytes = 0
    let keepBody: Bool

    init?(keepBody: Bool, useEnvironmentProxy: Bool, headers: UnsafeMutablePointer<curl_slist>?, caFile: String? = nil, acceptCompressed: Bool = false) {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        self.keepBody = keepBody
        let me = Unmanaged.passUnretained(self).toOpaque()
        cshims_curl_easy_setopt_pointer(easy, option(CURLOPT_WRITEFUNCTION), unsafeBitCast(curlWrite, to: UnsafeMutableRawPointer.self))
        cshims_curl_easy_setopt_pointer(easy, option(CURLOPT_WRITEDATA), me)
        cshims_curl_easy_setopt_pointer(easy, option(CURLOPT_PRIVATE), me)
        cshims_curl_easy_setopt_long(easy, option(CURLOPT_NOSIGNAL), 1)
        cshims_curl_easy_setopt_long(easy, option(CURLOPT_TCP_NODELAY), 1)
        if let headers {
            cshims_curl_easy_setopt_pointer(easy, option(CURLOPT_HTTPHEADER), UnsafeMutableRawPointer(headers))
        }
        if let caFile {
            _ = caFile.withCString { cshims_curl_easy_setopt_pointer(easy, option(CURLOPT_CAINFO), UnsafeMutableRawPointer(mutating: $0)) }
        }
        if acceptCompressed {
            // An empty string: every encoding this libcurl can decode.
            _ = "".withCString { cshims_curl_easy_setopt_pointer(easy, option(CURLOPT_ACCEPT_ENCODING), UnsafeMutableRawPointer(mutating: $0)) }
        }
        if !useEnvironmentProxy {
            // An empty proxy string disables proxies, environment variables included.
            _ = "".withCString { cshims_curl_easy_setopt_pointer(easy, option(CURLOPT_PROXY), UnsafeMutableRawPointer(mutating: $0)) }
        }
    }

    deinit {
        curl_easy_cleanup(easy)
    }
}

private func option(_ value: CURLoption) -> Int32 { Int32(bitPattern: value.rawValue) }
private func multiOption(_ value: CURLMoption) -> Int32 { Int32(bitPattern: value.rawValue) }

private let curlWrite: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
    let bytes = size * count
    guard let context else { return bytes }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    transfer.bodyBytes += bytes
    if transfer.keepBody, let data, bytes > 0 {
        transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: bytes))
    }
    return bytes
}

/// The event loop behind `HTTPLoadClient`: libcurl's socket API on an epoll instance.
///
/// libcurl tells us which sockets to watch (its socket callback edits the epoll set directly) and
/// when its next timeout is due; each wake-up then costs O(ready sockets), not O(connections) as
/// with `curl_multi_poll`, which matters with thousands of connections.
///
/// `@unchecked Sendable` invariant: `active`, `scheduled`, `due`, `spare`, `local`, `deadline`
/// and the multi handle are touched only by the loop thread; other threads reach the loop through
/// `inbox` (a mutex) and a byte on the `wake` pipe.
final class CurlLoop: @unchecked Sendable {
    struct Submission: Sendable {
        var id: UInt64
        var url: String
        /// `POST` this; `nil`: `GET`.
        var body: [UInt8]?
        var intendedNanos: UInt64
        var timeoutNanos: UInt64?
    }

    enum Command: Sendable {
        case submit(Submission)
        case abort(id: UInt64, requestedNanos: UInt64)
        case stop
    }

    let configuration: HTTPLoadClient.Configuration
    let onCompletion: @Sendable (HTTPCompletion) -> Void
    let multi: UnsafeMutableRawPointer
    let outstanding = Atomic<Int>(0)
    let finished = DispatchSemaphore(value: 0)
    private let inbox = Locked<[Command]>([])
    private let onFinish = Locked<(@Sendable () -> Void)?>(nil)
    private let loopThread = Atomic<UInt>(0)
    private let epollFD: Int32
    private let wake: SystemPipe
    /// A byte is on its way through `wake`; saves a write per post while the loop is busy.
    private let wakePending = Atomic<Bool>(false)
    /// libcurl's next timeout (absolute monotonic ns), written by its timer callback.
    private let deadline: UnsafeMutablePointer<Int64>
    private static let wakeToken = UInt64.max

    private var local: [Command] = []
    private var active: [UInt64: Transfer] = [:]
    private var scheduled: [UInt64: Submission] = [:]
    private var due = TimeHeap()
    private var spare: [Transfer] = []
    /// The extra request headers, shared by every easy handle; freed after the last handle.
    private let headerList: UnsafeMutablePointer<curl_slist>?

    init?(configuration: HTTPLoadClient.Configuration, onCompletion: @escaping @Sendable (HTTPCompletion) -> Void) {
        guard let multi = curl_multi_init() else { return nil }
        let epoll = cshims_epoll_create()
        guard epoll >= 0, let pipe = try? SystemPipe() else {
            if epoll >= 0 { Glibc.close(epoll) }
            curl_multi_cleanup(multi)
            return nil
        }
        for end in [pipe.readEnd, pipe.writeEnd] { try? end.setNonBlocking() }
        deadline = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        deadline.initialize(to: Int64.max)
        guard cshims_epoll_watch_readable(epoll, pipe.readEnd.rawValue, Self.wakeToken) == 0,
              cshims_curl_multi_use_epoll(multi, epoll, deadline) == 0 else {
            Glibc.close(epoll)
            try? pipe.readEnd.close()
            try? pipe.writeEnd.close()
            deadline.deallocate()
            curl_multi_cleanup(multi)
            return nil
        }
        epollFD = epoll
        wake = pipe
        self.multi = multi
        self.configuration = configuration
        var list: UnsafeMutablePointer<curl_slist>?
        for header in configuration.headers { list = curl_slist_append(list, header) }
        headerList = list
        self.onCompletion = onCompletion
        let connections = max(1, configuration.maxConnections)
        cshims_curl_multi_setopt_long(multi, multiOption(CURLMOPT_MAX_TOTAL_CONNECTIONS), connections)
        cshims_curl_multi_setopt_long(multi, multiOption(CURLMOPT_MAX_HOST_CONNECTIONS), connections)
        cshims_curl_multi_setopt_long(multi, multiOption(CURLMOPT_MAXCONNECTS), connections)
    }

    func setOnFinish(_ handler: @escaping @Sendable () -> Void) {
        onFinish.withLock { $0 = handler }
    }

    var isLoopThread: Bool { loopThread.load(ordering: .relaxed) == UInt(pthread_self()) }

    func post(_ command: Command) {
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

    func run() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        var running: Int32 = 0
        var stopping = false
        var tokens = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        while !stopping {
            var commands = inbox.withLock { pending -> [Command] in
                let taken = pending
                pending.removeAll(keepingCapacity: true)
                return taken
            }
            if !local.isEmpty {
                commands.append(contentsOf: local)
                local.removeAll(keepingCapacity: true)
            }
            let now = MonotonicClock.now()
            for command in commands {
                switch command {
                case .submit(let submission):
                    if submission.intendedNanos <= now {
                        start(submission, now: now)
                    } else {
                        scheduled[submission.id] = submission
                        due.push(submission.intendedNanos, submission.id)
                    }
                case .abort(let id, let requestedNanos):
                    abort(id: id, requestedNanos: requestedNanos)
                case .stop:
                    stopping = true
                }
            }
            if stopping { break }
            while let (time, id) = due.peek(), time <= now {
                due.pop()
                if let submission = scheduled.removeValue(forKey: id) { start(submission, now: MonotonicClock.now()) }
            }
            var timeoutMillis: Int32 = 1000
            if !local.isEmpty {
                timeoutMillis = 0
            } else {
                let current = MonotonicClock.now()
                var next = UInt64(max(0, deadline.pointee))
                if let (time, _) = due.peek() { next = min(next, time) }
                let wait = next > current ? next - current : 0
                timeoutMillis = Int32(min(1000, (wait + 999_999) / 1_000_000))
            }
            let count = cshims_epoll_wait_events(epollFD, &tokens, &events, Int32(tokens.count), timeoutMillis)
            if count > 0 {
                for index in 0..<Int(count) {
                    if tokens[index] == Self.wakeToken {
                        var bytes = [UInt8](repeating: 0, count: 64)
                        while read(wake.readEnd.rawValue, &bytes, bytes.count) > 0 {}
                        wakePending.store(false, ordering: .releasing)
                    } else {
                        cshims_curl_multi_socket_action(multi, Int32(truncatingIfNeeded: tokens[index]), events[index], &running)
                    }
                }
            }
            if UInt64(max(0, deadline.pointee)) <= MonotonicClock.now() {
                cshims_curl_multi_timeout_action(multi, &running)
            }
            drainMessages()
        }
        let now = MonotonicClock.now()
        for id in Array(active.keys) + Array(scheduled.keys) { abort(id: id, requestedNanos: now) }
        spare.removeAll()
        curl_multi_cleanup(multi)
        if let headerList { curl_slist_free_all(headerList) }
        Glibc.close(epollFD)
        try? wake.readEnd.close()
        try? wake.writeEnd.close()
        deadline.deallocate()
        onFinish.withLock { $0 }?()
        finished.signal()
    }

    private func start(_ submission: Submission, now: UInt64) {
        if active[submission.id] != nil {
            deliver(HTTPCompletion(id: submission.id, outcome: .failed("duplicate request id \(submission.id) (still in flight)"),
                                   intendedNanos: submission.intendedNanos, startedNanos: now, finishedNanos: now, firstByteNanos: nil))
            return
        }
        guard let transfer = spare.popLast() ?? Transfer(keepBody: configuration.keepBodies || configuration.countPath != nil,
                                                                   useEnvironmentProxy: configuration.useEnvironmentProxy, headers: headerList,
                                                                   caFile: configuration.caFile, acceptCompressed: configuration.acceptCompressed) else {
            deliver(HTTPCompletion(id: submission.id, outcome: .failed("curl_easy_init failed"),
                                   intendedNanos: submission.intendedNanos, startedNanos: now, finishedNanos: now, firstByteNanos: nil))
            return
        }
        transfer.id = submission.id
        transfer.intendedNanos = submission.intendedNanos
        transfer.body.removeAll(keepingCapacity: true)
        transfer.bodyBytes = 0
        _ = submission.url.withCString { cshims_curl_easy_setopt_pointer(transfer.easy, option(CURLOPT_URL), UnsafeMutableRawPointer(mutating: $0)) }
        if let body = submission.body {
            // The size first: COPYPOSTFIELDS copies that many bytes. Handles are reused, so a GET
            // after a POST must say so.
            cshims_curl_easy_setopt_long(transfer.easy, option(CURLOPT_POSTFIELDSIZE), body.count)
            let bytes = body.isEmpty ? [0] : body
            _ = bytes.withUnsafeBytes { cshims_curl_easy_setopt_pointer(transfer.easy, option(CURLOPT_COPYPOSTFIELDS), UnsafeMutableRawPointer(mutating: $0.baseAddress!)) }
        } else {
            cshims_curl_easy_setopt_long(transfer.easy, option(CURLOPT_HTTPGET), 1)
        }
        let timeout = submission.timeoutNanos ?? configuration.defaultTimeoutNanos
        cshims_curl_easy_setopt_long(transfer.easy, option(CURLOPT_TIMEOUT_MS), max(1, Int(timeout / 1_000_000)))
        transfer.startedNanos = MonotonicClock.now()
        curl_multi_add_handle(multi, transfer.easy)
        active[submission.id] = transfer
    }

    private func abort(id: UInt64, requestedNanos: UInt64) {
        if let transfer = active.removeValue(forKey: id) {
            curl_multi_remove_handle(multi, transfer.easy)
            let stopped = MonotonicClock.now()
            deliver(HTTPCompletion(
                id: id, outcome: .cancelled(requestedNanos: requestedNanos, stopNanos: stopped &- requestedNanos),
                intendedNanos: transfer.intendedNanos, startedNanos: transfer.startedNanos, finishedNanos: stopped, firstByteNanos: nil))
            recycle(transfer)
        } else if let submission = scheduled.removeValue(forKey: id) {
            let stopped = MonotonicClock.now()
            deliver(HTTPCompletion(
                id: id, outcome: .cancelled(requestedNanos: requestedNanos, stopNanos: stopped &- requestedNanos),
                intendedNanos: submission.intendedNanos, startedNanos: stopped, finishedNanos: stopped, firstByteNanos: nil))
        }
    }

    private func drainMessages() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let context = cshims_curl_easy_private(easy) else { continue }
            let result = message.pointee.data.result
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            let finished = MonotonicClock.now()
            curl_multi_remove_handle(multi, easy)
            active.removeValue(forKey: transfer.id)
            let outcome: HTTPCompletion.Outcome
            var cause: ErrorCause?
            if result == CURLE_OK {
                let count = configuration.countPath?.extract(from: transfer.body)
                outcome = .response(status: cshims_curl_easy_response_code(easy), bodyBytes: transfer.bodyBytes, count: count,
                                    body: configuration.keepBodies ? transfer.body : nil)
            } else if result == CURLE_OPERATION_TIMEDOUT {
                outcome = .timedOut
            } else {
                outcome = .failed(String(cString: curl_easy_strerror(result)))
                let osErrno = cshims_curl_easy_info_long(easy, Int32(bitPattern: CURLINFO_OS_ERRNO.rawValue))
                cause = Self.cause(of: result, osErrno: Int32(truncatingIfNeeded: osErrno))
            }
            let firstByteMicros = cshims_curl_easy_info_off_t(easy, Int32(bitPattern: CURLINFO_STARTTRANSFER_TIME_T.rawValue))
            deliver(HTTPCompletion(
                id: transfer.id, outcome: outcome, intendedNanos: transfer.intendedNanos, startedNanos: transfer.startedNanos,
                finishedNanos: finished, firstByteNanos: firstByteMicros > 0 ? UInt64(firstByteMicros) * 1000 : nil, cause: cause))
            recycle(transfer)
        }
    }

    /// Classifies a failed transfer: curl's code says which step failed, the socket's errno
    /// whether a connect was refused or could not reach the host at all.
    static func cause(of code: CURLcode, osErrno: Int32) -> ErrorCause {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .dns
        case CURLE_COULDNT_CONNECT:
            return osErrno == ECONNREFUSED ? .connectionRefused : .connectFailed
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED:
            return .tls
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
            return osErrno == ECONNREFUSED ? .connectionRefused : .connectionReset
        default:
            return .transport
        }
    }

    private func recycle(_ transfer: Transfer) {
        if spare.count < configuration.maxConnections * 2 { spare.append(transfer) }
    }

    private func deliver(_ completion: HTTPCompletion) {
        outstanding.subtract(1, ordering: .relaxed)
        onCompletion(completion)
    }
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
