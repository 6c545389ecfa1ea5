import CCurl
import CCurlShims
import CPosixShims
import Dispatch
import Glibc
import TypestormMetrics
import TypestormSystem
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

    init(keepBody: Bool, useEnvironmentProxy: Bool, headers: UnsafeMutablePointer<curl_slist>?, epoll: UnsafeMutablePointer<CCurlShims_Epoll>,
         caFile: String? = nil, acceptCompressed: Bool = false) throws(CurlError) {
        guard let easy = curl_easy_init() else { throw CurlError(CURLE_FAILED_INIT, "curl_easy_init") }
        self.easy = easy
        self.keepBody = keepBody
        // From here on a throw releases the transfer, and deinit cleans the handle up.
        let me = Unmanaged.passUnretained(self).toOpaque()
        try CurlError.check(CCurlShims_easy_setopt_write_function(easy, curlWrite), "curl_easy_setopt(CURLOPT_WRITEFUNCTION)")
        try set(CURLOPT_WRITEDATA, pointer: me)
        try set(CURLOPT_PRIVATE, pointer: me)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_TCP_NODELAY, 1)
        var refused: UnsafePointer<CChar>?
        try CurlError.check(CCurlShims_easy_use_epoll(easy, epoll, &refused), "curl_easy_setopt(\(refused.map { String(cString: $0) } ?? "?"))")
        if let headers {
            try CurlError.check(CCurlShims_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers), "curl_easy_setopt(CURLOPT_HTTPHEADER)")
        }
        if let caFile { try set(CURLOPT_CAINFO, string: caFile) }
        // An empty string: every encoding this libcurl can decode.
        if acceptCompressed { try set(CURLOPT_ACCEPT_ENCODING, string: "") }
        // An empty proxy string disables proxies, environment variables included; an empty
        // no-proxy list keeps libcurl from reading `no_proxy` on every transfer.
        if !useEnvironmentProxy {
            try set(CURLOPT_PROXY, string: "")
            try set(CURLOPT_NOPROXY, string: "")
        }
    }

    deinit {
        curl_easy_cleanup(easy)
    }

    func set(_ option: CURLoption, _ value: Int) throws(CurlError) {
        try CurlError.check(CCurlShims_easy_setopt_long(easy, option, value), "curl_easy_setopt(\(CurlError.name(of: option)))")
    }

    /// A string option; curl copies the string (except `CURLOPT_POSTFIELDS`, which is not set here).
    func set(_ option: CURLoption, string: String) throws(CurlError) {
        let code = string.withCString { CCurlShims_easy_setopt_string(easy, option, $0) }
        try CurlError.check(code, "curl_easy_setopt(\(CurlError.name(of: option)))")
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) throws(CurlError) {
        try CurlError.check(CCurlShims_easy_setopt_pointer(easy, option, pointer), "curl_easy_setopt(\(CurlError.name(of: option)))")
    }

    /// Points the handle at `submission`: its URL, method, body and timeout. Handles are reused,
    /// so every per-request option is set each time (a GET after a POST must say so).
    func prepare(_ submission: HTTPSubmission, timeoutNanos: UInt64) throws(CurlError) {
        try set(CURLOPT_URL, string: submission.url)
        if let body = submission.body {
            // The size first: COPYPOSTFIELDS copies that many bytes.
            try set(CURLOPT_POSTFIELDSIZE, body.count)
            let bytes = body.isEmpty ? [0] : body
            let code = bytes.withUnsafeBytes { CCurlShims_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress!)) }
            try CurlError.check(code, "curl_easy_setopt(CURLOPT_COPYPOSTFIELDS)")
        } else {
            try set(CURLOPT_HTTPGET, 1)
        }
        try set(CURLOPT_TIMEOUT_MS, max(1, Int(timeoutNanos / 1_000_000)))
    }
}

/// curl's write callback: counts the body's bytes and keeps them when asked.
private let curlWrite: curl_write_callback = { data, size, count, context in
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
/// with `curl_multi_poll`, which matters with thousands of connections. A connection's socket
/// stays in the epoll set between two of its requests (CCurlShims parks it instead of removing
/// it), so a request on a reused connection makes no `epoll_ctl` call.
///
/// `@unchecked Sendable` invariant: `active`, `held`, `spare`, `epoll` and the multi handle
/// are touched only by the loop thread; other threads reach the loop through its `mailbox`.
final class CurlLoop: HTTPClientLoop, @unchecked Sendable {
    let configuration: HTTPLoadClient.Configuration
    let onCompletion: @Sendable (HTTPCompletion) -> Void
    let multi: UnsafeMutableRawPointer
    let mailbox: LoopMailbox
    private let epollFD: Int32
    /// The epoll glue: libcurl's next timeout (absolute monotonic ns, written by its timer
    /// callback) and its sockets' registrations.
    private let epoll: UnsafeMutablePointer<CCurlShims_Epoll>

    private var active: [UInt64: Transfer] = [:]
    private var held = HeldSubmissions()
    private var spare: [Transfer] = []
    /// The extra request headers, shared by every easy handle; freed after the last handle.
    private let headerList: UnsafeMutablePointer<curl_slist>?

    /// Throws a `CurlError` when libcurl refuses the multi handle's options, a `SystemError` when
    /// the epoll instance or the wake pipe cannot be made.
    init(configuration: HTTPLoadClient.Configuration, onCompletion: @escaping @Sendable (HTTPCompletion) -> Void) throws {
        guard let multi = curl_multi_init() else { throw HTTPLoadClient.StartError(description: "curl_multi_init failed") }
        let glue = UnsafeMutablePointer<CCurlShims_Epoll>.allocate(capacity: 1)
        glue.initialize(to: CCurlShims_Epoll(epfd: -1, deadline_ns: Int64.max, sockets: nil, capacity: 0))
        let epoll = CPosixShims_epoll_create()
        let epollErrno = errno
        var list: UnsafeMutablePointer<curl_slist>?
        var started = false
        defer {
            if !started {
                if epoll >= 0 { Glibc.close(epoll) }
                if let list { curl_slist_free_all(list) }
                curl_multi_cleanup(multi)
                CCurlShims_epoll_release(glue)
                glue.deallocate()
            }
        }
        guard epoll >= 0 else { throw SystemError(call: "epoll_create1", errno: epollErrno) }
        let mailbox = try LoopMailbox()
        defer {
            if !started { mailbox.finish() }  // closes its pipe
        }
        try mailbox.watch(on: epoll)
        var refused: UnsafePointer<CChar>?
        let code = CCurlShims_multi_use_epoll(multi, glue, epoll, &refused)
        try CurlError.check(code, "curl_multi_setopt(\(refused.map { String(cString: $0) } ?? "?"))")
        let connections = max(1, configuration.maxConnections)
        for (option, name) in [(CURLMOPT_MAX_TOTAL_CONNECTIONS, "CURLMOPT_MAX_TOTAL_CONNECTIONS"),
                               (CURLMOPT_MAX_HOST_CONNECTIONS, "CURLMOPT_MAX_HOST_CONNECTIONS"),
                               (CURLMOPT_MAXCONNECTS, "CURLMOPT_MAXCONNECTS")] {
            try CurlError.check(CCurlShims_multi_setopt_long(multi, option, connections), "curl_multi_setopt(\(name))")
        }
        for header in configuration.headers {
            guard let appended = curl_slist_append(list, header) else {
                throw HTTPLoadClient.StartError(description: "curl_slist_append failed for header '\(header)' (out of memory)")
            }
            list = appended
        }
        started = true
        epollFD = epoll
        self.mailbox = mailbox
        self.multi = multi
        self.epoll = glue
        self.configuration = configuration
        headerList = list
        self.onCompletion = onCompletion
    }

    func run() {
        mailbox.enterLoopThread()
        var running: Int32 = 0
        var tokens = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        var commands: [HTTPLoopCommand] = []
        while true {
            let now = MonotonicClock.now()
            let going = mailbox.dispatch(into: &commands, now: now, start: { start($0, now: now) }, hold: { held.hold($0) },
                                         abort: { abort(id: $0, requestedNanos: $1) })
            guard going else { break }
            while let submission = held.popDue(now: now) { start(submission, now: MonotonicClock.now()) }
            let curlDeadline = UInt64(max(0, epoll.pointee.deadline_ns))
            mailbox.wait(on: epollFD, until: min(curlDeadline, held.nextDue ?? .max), tokens: &tokens, events: &events) { token, mask in
                let socket = Int32(truncatingIfNeeded: token)
                checkDriving(CCurlShims_multi_socket_event(multi, epoll, socket, mask, &running), "curl_multi_socket_action")
            }
            if UInt64(max(0, epoll.pointee.deadline_ns)) <= MonotonicClock.now() {
                checkDriving(CCurlShims_multi_timeout_action(multi, &running), "curl_multi_socket_action(CURL_SOCKET_TIMEOUT)")
            }
            drainMessages()
        }
        let now = MonotonicClock.now()
        for id in Array(active.keys) + held.ids { abort(id: id, requestedNanos: now) }
        spare.removeAll()
        curl_multi_cleanup(multi)
        if let headerList { curl_slist_free_all(headerList) }
        Glibc.close(epollFD)
        // After curl_multi_cleanup: it closes the cached connections through the table.
        CCurlShims_epoll_release(epoll)
        epoll.deallocate()
        mailbox.finish()
    }

    private func start(_ submission: HTTPSubmission, now: UInt64) {
        if active[submission.id] != nil {
            deliver(HTTPCompletion(id: submission.id, outcome: .failed("duplicate request id \(submission.id) (still in flight)"),
                                   intendedNanos: submission.intendedNanos, startedNanos: now, finishedNanos: now, firstByteNanos: nil))
            return
        }
        let transfer: Transfer
        if let reused = spare.popLast() {
            transfer = reused
        } else {
            do throws(CurlError) {
                transfer = try Transfer(keepBody: configuration.keepBodies || configuration.countPath != nil,
                                        useEnvironmentProxy: configuration.useEnvironmentProxy, headers: headerList, epoll: epoll,
                                        caFile: configuration.caFile, acceptCompressed: configuration.acceptCompressed)
            } catch {
                deliver(HTTPCompletion(id: submission.id, outcome: .failed(error.description),
                                       intendedNanos: submission.intendedNanos, startedNanos: now, finishedNanos: now, firstByteNanos: nil,
                                       cause: .transport))
                return
            }
        }
        transfer.id = submission.id
        transfer.intendedNanos = submission.intendedNanos
        transfer.body.removeAll(keepingCapacity: true)
        transfer.bodyBytes = 0
        do throws(CurlError) {
            try transfer.prepare(submission, timeoutNanos: submission.timeoutNanos ?? configuration.defaultTimeoutNanos)
            transfer.startedNanos = MonotonicClock.now()
            try CurlError.check(curl_multi_add_handle(multi, transfer.easy), "curl_multi_add_handle")
        } catch {
            deliver(HTTPCompletion(id: submission.id, outcome: .failed(error.description), intendedNanos: submission.intendedNanos,
                                   startedNanos: now, finishedNanos: MonotonicClock.now(), firstByteNanos: nil, cause: .transport))
            recycle(transfer)
            return
        }
        active[submission.id] = transfer
    }

    /// A failed `curl_multi_socket_action` leaves the multi handle in a state nobody can vouch
    /// for: every transfer in flight fails with the error. `CURLM_BAD_SOCKET` alone is harmless
    /// (epoll reported a socket libcurl closed earlier in the same batch of events).
    private func checkDriving(_ code: CURLMcode, _ operation: String) {
        guard code != CURLM_OK, code != CURLM_BAD_SOCKET else { return }
        let error = CurlError(code, operation)
        let now = MonotonicClock.now()
        for (id, transfer) in active {
            active.removeValue(forKey: id)
            _ = detach(transfer)
            deliver(HTTPCompletion(id: id, outcome: .failed(error.description), intendedNanos: transfer.intendedNanos,
                                   startedNanos: transfer.startedNanos, finishedNanos: now, firstByteNanos: nil, cause: .transport))
        }
    }

    /// Takes the transfer's handle out of the multi handle; a handle curl would not release is
    /// not reused (its deinit cleans it up, which also takes it out).
    private func detach(_ transfer: Transfer) -> CurlError? {
        do throws(CurlError) {
            try CurlError.check(curl_multi_remove_handle(multi, transfer.easy), "curl_multi_remove_handle")
            return nil
        } catch {
            return error
        }
    }

    private func abort(id: UInt64, requestedNanos: UInt64) {
        if let transfer = active.removeValue(forKey: id) {
            let refused = detach(transfer)
            let stopped = MonotonicClock.now()
            if let refused {
                deliver(HTTPCompletion(id: id, outcome: .failed(refused.description), intendedNanos: transfer.intendedNanos,
                                       startedNanos: transfer.startedNanos, finishedNanos: stopped, firstByteNanos: nil, cause: .transport))
                return
            }
            deliver(HTTPCompletion(
                id: id, outcome: .cancelled(requestedNanos: requestedNanos, stopNanos: stopped &- requestedNanos),
                intendedNanos: transfer.intendedNanos, startedNanos: transfer.startedNanos, finishedNanos: stopped, firstByteNanos: nil))
            recycle(transfer)
        } else if let submission = held.remove(id) {
            let stopped = MonotonicClock.now()
            deliver(HTTPCompletion(
                id: id, outcome: .cancelled(requestedNanos: requestedNanos, stopNanos: stopped &- requestedNanos),
                intendedNanos: submission.intendedNanos, startedNanos: stopped, finishedNanos: stopped, firstByteNanos: nil))
        }
    }

    private func drainMessages() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            let transfer: Transfer
            if CCurlShims_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context) == CURLE_OK, let context {
                transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            } else if let found = active.values.first(where: { $0.easy == easy }) {
                // Every handle carries its transfer in CURLINFO_PRIVATE; should curl not say, the
                // slow way still finds it.
                transfer = found
            } else {
                continue
            }
            let finished = MonotonicClock.now()
            let refused = detach(transfer)
            active.removeValue(forKey: transfer.id)
            var outcome: HTTPCompletion.Outcome
            var cause: ErrorCause?
            if result == CURLE_OK {
                var status = 0
                let code = CCurlShims_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                if code == CURLE_OK {
                    let count = configuration.countPath?.extract(from: transfer.body)
                    outcome = .response(status: status, bodyBytes: transfer.bodyBytes, count: count,
                                        body: configuration.keepBodies ? transfer.body : nil)
                } else {
                    outcome = .failed(CurlError(code, "curl_easy_getinfo(CURLINFO_RESPONSE_CODE)").description)
                    cause = .transport
                }
            } else if result == CURLE_OPERATION_TIMEDOUT {
                outcome = .timedOut
            } else {
                outcome = .failed(String(cString: curl_easy_strerror(result)))
                // Without the socket's errno (curl does not know it) a failed connect counts as
                // "connect failed", not "refused".
                var osErrno = 0
                if CCurlShims_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno) != CURLE_OK { osErrno = 0 }
                cause = Self.cause(of: result, osErrno: Int32(truncatingIfNeeded: osErrno))
            }
            if let refused {
                outcome = .failed(refused.description)
                cause = .transport
            }
            // Absent, not zero, when curl does not know when the first byte came or when it connected.
            var firstByteMicros: curl_off_t = -1
            if CCurlShims_easy_getinfo_off_t(easy, CURLINFO_STARTTRANSFER_TIME_T, &firstByteMicros) != CURLE_OK { firstByteMicros = -1 }
            var connects = 0
            if CCurlShims_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects) != CURLE_OK { connects = 0 }
            var connectedMicros: curl_off_t = -1
            if CCurlShims_easy_getinfo_off_t(easy, CURLINFO_CONNECT_TIME_T, &connectedMicros) != CURLE_OK { connectedMicros = -1 }
            var resolvedMicros: curl_off_t = -1
            if CCurlShims_easy_getinfo_off_t(easy, CURLINFO_NAMELOOKUP_TIME_T, &resolvedMicros) != CURLE_OK { resolvedMicros = -1 }
            deliver(HTTPCompletion(
                id: transfer.id, outcome: outcome, intendedNanos: transfer.intendedNanos, startedNanos: transfer.startedNanos,
                finishedNanos: finished, firstByteNanos: firstByteMicros > 0 ? UInt64(firstByteMicros) * 1000 : nil, cause: cause,
                newConnections: connects,
                connectNanos: connects > 0 && connectedMicros > 0 ? UInt64(max(connectedMicros - max(resolvedMicros, 0), 0)) * 1000 : nil))
            if refused == nil { recycle(transfer) }
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
        mailbox.outstanding.subtract(1, ordering: .relaxed)
        onCompletion(completion)
    }
}
