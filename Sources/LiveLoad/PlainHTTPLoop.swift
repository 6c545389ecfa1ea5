import CPlainHTTP
import CPosixShims
import Glibc
import TypestormMetrics
import TypestormSystem

/// The event loop of the plain HTTP/1.1 client behind `HTTPLoadClient`: keep-alive connections
/// over non-blocking sockets on one epoll instance, one request at a time per connection.
///
/// A request goes on an idle connection to its origin (`host:port`), else on a new one while the
/// loop holds fewer than `maxConnections`, else it waits for one (as curl queues transfers). The
/// request's bytes are formatted once into the connection's buffer and sent at once; the answer
/// is read and parsed (CPlainHTTP) when epoll reports the socket readable. Sockets are registered
/// once, for reading, so a request on a reused connection makes no `epoll_ctl` call; an idle
/// connection the server closes shows up readable and is let go. A request whose reused
/// connection turns out closed before any answer byte is sent again once on a new connection.
/// Timeouts cover the whole request (waiting for a connection, connecting, answer) and close its
/// connection; an abort closes it too, which is how the server learns it can stop.
///
/// `@unchecked Sendable` invariant: everything but `mailbox` is touched only by the loop thread.
final class PlainHTTPLoop: HTTPClientLoop, @unchecked Sendable {
    let configuration: HTTPLoadClient.Configuration
    let onCompletion: @Sendable (HTTPCompletion) -> Void
    let mailbox: LoopMailbox
    private let epollFD: Int32

    /// The lines after `Host` of every `GET` and of every `POST` (`Accept` and `Content-Type` as
    /// curl sends them unless the extra headers give their own, then the extra headers).
    private let getLines: [UInt8]
    private let postLines: [UInt8]
    /// The extra headers name a `Host` of their own.
    private let customHost: Bool

    private var origins: [Origin] = []
    /// The origin of the last request, checked first.
    private var lastOrigin: Origin?
    /// Connections by socket; a token carries the socket and the connection's serial number,
    /// so an event for a socket closed earlier in the same batch is recognised.
    private var bySocket: [Connection?] = []
    private var serial: UInt32 = 0
    private var openConnections = 0
    /// Requests on a connection, by id.
    private var onConnection: [UInt64: Connection] = [:]
    /// Requests waiting for a connection, by id (and in order in their origin's queue).
    private var waiting: [UInt64: Request] = [:]
    private var held = HeldSubmissions()
    /// No request times out before this (monotonic ns); the loop looks for timed-out requests
    /// when it passes.
    private var earliestDeadline = UInt64.max
    /// `serviceWaiting` is running.
    private var servicing = false

    init(configuration: HTTPLoadClient.Configuration, onCompletion: @escaping @Sendable (HTTPCompletion) -> Void) throws {
        let epoll = CPosixShims_epoll_create()
        guard epoll >= 0 else { throw SystemError(call: "epoll_create1", errno: errno) }
        let mailbox: LoopMailbox
        do {
            mailbox = try LoopMailbox()
            do { try mailbox.watch(on: epoll) } catch {
                mailbox.finish()
                throw error
            }
        } catch {
            Glibc.close(epoll)
            throw error
        }
        // A header with an empty value takes out the client's own header of that name and is
        // not sent (curl's rule).
        var names = Set<String>()
        var extra: [UInt8] = []
        for header in configuration.headers {
            let colon = header.firstIndex(of: ":")!
            let name = String(header[..<colon].filter { $0 != " " && $0 != "\t" }).lowercased()
            names.insert(name)
            if header[header.index(after: colon)...].allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            extra += Array(header.utf8) + Array("\r\n".utf8)
        }
        let accept: [UInt8] = names.contains("accept") ? [] : Array("Accept: */*\r\n".utf8)
        let form: [UInt8] = names.contains("content-type") ? [] : Array("Content-Type: application/x-www-form-urlencoded\r\n".utf8)
        getLines = accept + extra
        postLines = accept + form + extra
        customHost = names.contains("host")
        epollFD = epoll
        self.mailbox = mailbox
        self.configuration = configuration
        self.onCompletion = onCompletion
    }

    // MARK: State

    /// One `scheme://host:port` the client sends to, its connections and its queue.
    final class Origin {
        /// `host:port` as the URL spells it.
        let authority: [UInt8]
        let host: String
        let port: String
        /// `Host: …` and the fixed lines, per method.
        let getHead: [UInt8]
        let postHead: [UInt8]
        var addresses: [(address: sockaddr_storage, length: socklen_t)] = []
        /// The address that last connected, tried first.
        var preferred = 0
        var idle: [Connection] = []
        var queue: [UInt64] = []
        var queueHead = 0

        init(authority: [UInt8], host: String, port: String, getHead: [UInt8], postHead: [UInt8]) {
            self.authority = authority
            self.host = host
            self.port = port
            self.getHead = getHead
            self.postHead = postHead
        }
    }

    /// A request with what the loop knows about it so far.
    struct Request {
        var submission: HTTPSubmission
        /// The request target's bytes in the URL (`requestTarget(in:)`).
        var target: Range<Int> = 0..<0
        var startedNanos: UInt64
        var deadline: UInt64
        /// Sent again on a new connection after its reused one turned out closed.
        var resent = false
        var newConnections = 0
        var connectNanos: UInt64?
    }

    final class Connection {
        let socket: Int32
        let token: UInt64
        let origin: Origin
        let wire: UnsafeMutablePointer<CPlainHTTP_Conn>
        var connecting: Bool
        var connectStartedNanos: UInt64
        /// The address index being connected to.
        var addressIndex: Int
        var watchingWritable: Bool
        /// Answers completed on this connection.
        var served = 0
        var request: Request?

        init(socket: Int32, token: UInt64, origin: Origin, wire: UnsafeMutablePointer<CPlainHTTP_Conn>, connecting: Bool,
             startedNanos: UInt64, addressIndex: Int) {
            self.socket = socket
            self.token = token
            self.origin = origin
            self.wire = wire
            self.connecting = connecting
            self.connectStartedNanos = startedNanos
            self.addressIndex = addressIndex
            watchingWritable = connecting
        }
    }

    // MARK: The loop

    func run() {
        mailbox.enterLoopThread()
        var tokens = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        var commands: [HTTPLoopCommand] = []
        while true {
            let now = MonotonicClock.now()
            let going = mailbox.dispatch(into: &commands, now: now, start: { start($0, now: now) }, hold: { held.hold($0) },
                                         abort: { abort(id: $0, requestedNanos: $1) })
            guard going else { break }
            while let submission = held.popDue(now: now) { start(submission, now: MonotonicClock.now()) }
            mailbox.wait(on: epollFD, until: min(earliestDeadline, held.nextDue ?? .max), tokens: &tokens, events: &events) {
                event(token: $0, events: $1)
            }
            if earliestDeadline <= MonotonicClock.now() { expire(now: MonotonicClock.now()) }
        }
        let now = MonotonicClock.now()
        for id in Array(onConnection.keys) + Array(waiting.keys) + held.ids { abort(id: id, requestedNanos: now) }
        for connection in bySocket.compactMap({ $0 }) { close(connection) }
        Glibc.close(epollFD)
        mailbox.finish()
    }

    // MARK: Requests

    private func start(_ submission: HTTPSubmission, now: UInt64) {
        if onConnection[submission.id] != nil || waiting[submission.id] != nil {
            deliver(HTTPCompletion(id: submission.id, outcome: .failed("duplicate request id \(submission.id) (still in flight)"),
                                   intendedNanos: submission.intendedNanos, startedNanos: now, finishedNanos: now, firstByteNanos: nil))
            return
        }
        let timeout = submission.timeoutNanos ?? configuration.defaultTimeoutNanos
        var request = Request(submission: submission, startedNanos: now, deadline: now &+ max(timeout, 1_000_000))
        let origin: Origin
        switch findOrigin(url: submission.url) {
        case .success(let found): origin = found
        case .failure(let failure):
            fail(request, failure.message, cause: failure.cause, refusedAtStart: true)
            return
        }
        var url = submission.url
        guard let target = url.withUTF8({ Self.requestTarget(in: $0) }) else {
            fail(request, "malformed URL (spaces or control characters in it): \(submission.url.prefix(200))", cause: .transport,
                 refusedAtStart: true)
            return
        }
        request.target = target
        earliestDeadline = min(earliestDeadline, request.deadline)
        dispatch(request, to: origin)
    }

    /// Puts `request` on an idle connection of `origin`, a new one, or in the queue.
    private func dispatch(_ request: Request, to origin: Origin) {
        if let connection = origin.idle.popLast() {
            send(request, on: connection)
        } else if openConnections < max(1, configuration.maxConnections) {
            open(request, to: origin)
        } else if let other = origins.first(where: { $0 !== origin && !$0.idle.isEmpty }) {
            // All connections are open, some idle towards another origin: one of those makes room.
            close(other.idle.removeLast())
            open(request, to: origin)
        } else {
            waiting[request.submission.id] = request
            origin.queue.append(request.submission.id)
        }
    }

    /// The next request waiting for `origin`, if any.
    private func nextWaiting(for origin: Origin) -> Request? {
        while origin.queueHead < origin.queue.count {
            let id = origin.queue[origin.queueHead]
            origin.queueHead += 1
            if let request = waiting.removeValue(forKey: id) {
                compact(origin)
                return request
            }
        }
        compact(origin)
        return nil
    }

    private func compact(_ origin: Origin) {
        if origin.queueHead == origin.queue.count {
            origin.queue.removeAll(keepingCapacity: true)
            origin.queueHead = 0
        } else if origin.queueHead > 1024, origin.queueHead * 2 > origin.queue.count {
            origin.queue.removeFirst(origin.queueHead)
            origin.queueHead = 0
        }
    }

    /// Connections freed up (closed): requests waiting get new ones. Not re-entered from a
    /// failed open inside it (its loop goes on with the next request instead), so a server that
    /// refuses at once cannot recurse once per waiting request.
    private func serviceWaiting() {
        guard !waiting.isEmpty, !servicing else { return }
        servicing = true
        defer { servicing = false }
        for origin in origins {
            while openConnections < max(1, configuration.maxConnections), let request = nextWaiting(for: origin) {
                open(request, to: origin)
            }
        }
    }

    /// Formats `request` into `connection`'s buffer and sends it.
    private func send(_ request: Request, on connection: Connection) {
        onConnection[request.submission.id] = connection
        let origin = connection.origin
        let body = request.submission.body
        let method = body == nil ? "GET" : "POST"
        var url = request.submission.url
        let range = request.target
        let formatted: Int32? = url.withUTF8 { bytes -> Int32? in
            guard range.upperBound <= bytes.count else { return nil }
            if !range.isEmpty, bytes[range.lowerBound] == UInt8(ascii: "?") {
                // `http://host?q=x`: the path is empty, and an empty path is sent as `/`.
                var withSlash = Array("/".utf8) + bytes[range]
                return withSlash.withUnsafeMutableBufferPointer { target in
                    format(connection, method: method, target: UnsafeBufferPointer(target), origin: origin, body: body)
                }
            }
            if range.isEmpty {
                return Self.slash.withUnsafeBufferPointer { format(connection, method: method, target: $0, origin: origin, body: body) }
            }
            return format(connection, method: method, target: UnsafeBufferPointer(rebasing: bytes[range]), origin: origin, body: body)
        }
        connection.request = request
        guard let formatted else {
            drop(connection, "malformed URL (spaces or control characters in it): \(request.submission.url.prefix(200))", cause: .transport)
            return
        }
        guard formatted == 0 else {
            drop(connection, "out of memory for the request", cause: .transport)
            return
        }
        if connection.connecting { return }
        write(connection)
    }

    private func format(_ connection: Connection, method: String, target: UnsafeBufferPointer<UInt8>, origin: Origin, body: [UInt8]?) -> Int32 {
            let head = body == nil ? origin.getHead : origin.postHead
            return head.withUnsafeBufferPointer { head in
                if let body {
                    return body.withUnsafeBufferPointer { body in
                        CPlainHTTP_request(connection.wire, method, target.baseAddress, target.count, head.baseAddress, head.count,
                                           1, body.baseAddress, body.count)
                    }
                }
                return CPlainHTTP_request(connection.wire, method, target.baseAddress, target.count, head.baseAddress, head.count, 0, nil, 0)
            }
    }

    private static let slash: [UInt8] = [UInt8(ascii: "/")]

    /// Where the request target (path and query) starts in `url` after `http://host[:port]`, up
    /// to a fragment; an empty range for a URL without a path (sent as `/`). `nil` when the URL
    /// holds spaces or control characters.
    static func requestTarget(in url: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var start = 7
        while start < url.count, url[start] != UInt8(ascii: "/"), url[start] != UInt8(ascii: "?"), url[start] != UInt8(ascii: "#") { start += 1 }
        var end = start
        while end < url.count, url[end] != UInt8(ascii: "#") {
            if url[end] <= 0x20 || url[end] == 0x7F { return nil }
            end += 1
        }
        return start..<end
    }

    /// Sends what is left of `connection`'s request; watches for writable when the socket is full.
    private func write(_ connection: Connection) {
        let sent = CPlainHTTP_send(connection.wire, connection.socket)
        if sent == 1 {
            if connection.watchingWritable { watch(connection, writable: false) }
        } else if sent == 0 {
            if !connection.watchingWritable { watch(connection, writable: true) }
        } else {
            transportFailure(connection, "send failed: \(Self.errnoText(connection.wire.pointee.error))",
                             errno: connection.wire.pointee.error)
        }
    }

    private func watch(_ connection: Connection, writable: Bool) {
        connection.watchingWritable = writable
        _ = CPlainHTTP_epoll_watch(epollFD, connection.socket, 0, writable ? 1 : 0, connection.token)
    }

    // MARK: Connections

    private func open(_ request: Request, to origin: Origin, from addressIndex: Int? = nil) {
        var request = request
        if origin.addresses.isEmpty {
            var addresses = [sockaddr_storage](repeating: sockaddr_storage(), count: 8)
            var lengths = [socklen_t](repeating: 0, count: 8)
            let found = CPlainHTTP_resolve(origin.host, origin.port, &addresses, &lengths, 8)
            guard found > 0 else {
                fail(request, "could not resolve host \(origin.host): \(String(cString: CPlainHTTP_resolve_error(found)))", cause: .dns)
                serviceWaiting()
                return
            }
            origin.addresses = (0..<Int(found)).map { (addresses[$0], lengths[$0]) }
        }
        let first = addressIndex ?? origin.preferred
        var lastErrno: Int32 = 0
        for index in first..<origin.addresses.count {
            let started = MonotonicClock.now()
            var inProgress: Int32 = 0
            let socket = withUnsafePointer(to: origin.addresses[index].address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    CPlainHTTP_connect($0, origin.addresses[index].length, &inProgress)
                }
            }
            guard socket >= 0 else {
                lastErrno = -socket
                continue
            }
            let wire = UnsafeMutablePointer<CPlainHTTP_Conn>.allocate(capacity: 1)
            guard CPlainHTTP_conn_init(wire, configuration.keepBodies || configuration.countPath != nil ? 1 : 0) == 0 else {
                CPlainHTTP_conn_free(wire)
                wire.deallocate()
                Glibc.close(socket)
                fail(request, "out of memory for a connection", cause: .transport)
                return
            }
            serial &+= 1
            let token = UInt64(serial) << 32 | UInt64(UInt32(bitPattern: socket))
            let connection = Connection(socket: socket, token: token, origin: origin, wire: wire, connecting: inProgress != 0,
                                        startedNanos: started, addressIndex: index)
            guard CPlainHTTP_epoll_watch(epollFD, socket, 1, inProgress, token) == 0 else {
                lastErrno = errno
                CPlainHTTP_conn_free(wire)
                wire.deallocate()
                Glibc.close(socket)
                continue
            }
            let slot = Int(socket)
            if slot >= bySocket.count { bySocket += [Connection?](repeating: nil, count: max(64, slot + 1 - bySocket.count)) }
            bySocket[slot] = connection
            openConnections += 1
            request.newConnections += 1
            if inProgress == 0 {
                origin.preferred = index
                request.connectNanos = MonotonicClock.now() - started
            }
            send(request, on: connection)
            return
        }
        fail(request, "connect to \(origin.host) port \(origin.port) failed: \(Self.errnoText(lastErrno))",
             cause: lastErrno == ECONNREFUSED ? .connectionRefused : .connectFailed)
        serviceWaiting()
    }

    /// Closes `connection`'s socket and forgets it (its request, if any, is the caller's).
    private func close(_ connection: Connection) {
        _ = CPosixShims_epoll_unwatch(epollFD, connection.socket)
        Glibc.close(connection.socket)
        bySocket[Int(connection.socket)] = nil
        openConnections -= 1
        CPlainHTTP_conn_free(connection.wire)
        connection.wire.deallocate()
        if let id = connection.request?.submission.id { onConnection.removeValue(forKey: id) }
        connection.request = nil
    }

    /// The connection's request is done: the connection carries the next one, goes idle, or
    /// closes (the server said so, or another origin waits for room).
    private func release(_ connection: Connection, keepAlive: Bool) {
        if let id = connection.request?.submission.id { onConnection.removeValue(forKey: id) }
        connection.request = nil
        if keepAlive {
            connection.served += 1
            if let next = nextWaiting(for: connection.origin) {
                send(next, on: connection)
                return
            }
            if waiting.isEmpty {
                connection.origin.idle.append(connection)
                return
            }
        }
        close(connection)
        serviceWaiting()
    }

    // MARK: Events

    private func event(token: UInt64, events: UInt32) {
        let slot = Int(token & 0xFFFF_FFFF)
        guard slot < bySocket.count, let connection = bySocket[slot], connection.token == token else { return }
        let broken = events & CPosixShims_epoll_event_hangup != 0
        if connection.connecting {
            guard events & UInt32(EPOLLOUT.rawValue) != 0 || broken else { return }
            connected(connection)
            return
        }
        guard connection.request != nil else {
            // Idle: the server closed it (or sent what nobody asked for).
            if broken || CPlainHTTP_idle_broken(connection.socket) != 0 {
                if let index = connection.origin.idle.firstIndex(where: { $0 === connection }) { connection.origin.idle.remove(at: index) }
                close(connection)
            }
            return
        }
        if events & UInt32(EPOLLOUT.rawValue) != 0, connection.watchingWritable {
            write(connection)
            guard connection.request != nil, bySocket[slot] === connection else { return }
        }
        if events & UInt32(EPOLLIN.rawValue) != 0 || broken {
            receive(connection)
        }
    }

    private func connected(_ connection: Connection) {
        let error = CPlainHTTP_connect_error(connection.socket)
        guard var request = connection.request else {
            close(connection)
            return
        }
        guard error == 0 else {
            // Try the origin's next address (a name with IPv6 and IPv4 ones), else fail.
            let next = connection.addressIndex + 1
            let origin = connection.origin
            close(connection)
            if next < origin.addresses.count {
                open(request, to: origin, from: next)
            } else {
                fail(request, "connect to \(origin.host) port \(origin.port) failed: \(Self.errnoText(error))",
                     cause: error == ECONNREFUSED ? .connectionRefused : .connectFailed)
                serviceWaiting()
            }
            return
        }
        connection.connecting = false
        connection.origin.preferred = connection.addressIndex
        request.connectNanos = MonotonicClock.now() - connection.connectStartedNanos
        connection.request = request
        write(connection)
    }

    private func receive(_ connection: Connection) {
        let result = Int(CPlainHTTP_receive(connection.wire, connection.socket))
        guard result != CPlainHTTP_more else { return }
        let wire = connection.wire.pointee
        guard let request = connection.request else { return }
        guard result == CPlainHTTP_done else {
            failure(connection, result: result)
            return
        }
        let finished = MonotonicClock.now()
        var count: Int?
        var body: [UInt8]?
        if wire.keep_body != 0 {
            let bytes = UnsafeBufferPointer(start: wire.body, count: wire.body_len)
            count = configuration.countPath?.extract(from: bytes)
            if configuration.keepBodies { body = Array(bytes) }
        }
        let completion = HTTPCompletion(
            id: request.submission.id,
            outcome: .response(status: Int(wire.status), bodyBytes: Int(wire.body_bytes), count: count, body: body),
            intendedNanos: request.submission.intendedNanos, startedNanos: request.startedNanos, finishedNanos: finished,
            firstByteNanos: wire.first_byte_ns > request.startedNanos ? wire.first_byte_ns - request.startedNanos : nil,
            newConnections: request.newConnections, connectNanos: request.connectNanos)
        release(connection, keepAlive: wire.keep_alive != 0)
        deliver(completion)
    }

    /// The answer on `connection` failed with CPlainHTTP's `result`.
    private func failure(_ connection: Connection, result: Int) {
        let wire = connection.wire.pointee
        switch result {
        case CPlainHTTP_closed_empty:
            transportFailure(connection, "the server closed the connection without answering", errno: 0)
        case CPlainHTTP_closed_in_head:
            drop(connection, "the server closed the connection inside the response head", cause: .connectionReset)
        case CPlainHTTP_closed_in_body:
            // State 1: a Content-Length body (CPlainHTTP's STATE_LENGTH).
            let left = wire.state == 1 ? "\(wire.remaining) bytes before the end of the body" : "inside the chunked body"
            drop(connection, "the server closed the connection \(left)", cause: .connectionReset)
        case CPlainHTTP_receive_failed:
            transportFailure(connection, "receive failed: \(Self.errnoText(wire.error))", errno: wire.error)
        case CPlainHTTP_malformed_status:
            drop(connection, "malformed status line (not HTTP/1.x NNN)", cause: .transport)
        case CPlainHTTP_malformed_length:
            drop(connection, "malformed Content-Length", cause: .transport)
        case CPlainHTTP_malformed_chunk:
            drop(connection, "malformed chunked body", cause: .transport)
        case CPlainHTTP_head_too_large:
            drop(connection, "response head larger than \(CPlainHTTP_max_head) bytes", cause: .transport)
        default:
            drop(connection, "out of memory for the response", cause: .transport)
        }
    }

    /// The connection broke before an answer byte (send failed, reset, closed): on a reused
    /// connection the server most likely closed it while idle, so the request goes again once on
    /// a new connection; otherwise it fails.
    private func transportFailure(_ connection: Connection, _ message: String, errno code: Int32) {
        guard var request = connection.request else { return }
        if connection.served > 0, connection.wire.pointee.received == 0, !request.resent {
            let origin = connection.origin
            close(connection)
            request.resent = true
            dispatch(request, to: origin)
            return
        }
        drop(connection, message, cause: code == ECONNREFUSED ? .connectionRefused : .connectionReset)
    }

    /// Closes `connection` and fails its request.
    private func drop(_ connection: Connection, _ message: String, cause: ErrorCause) {
        let request = connection.request
        close(connection)
        if let request { fail(request, message, cause: cause) }
        serviceWaiting()
    }

    /// `refusedAtStart`: the URL was refused before any connection was looked for (no
    /// connection count, as for a request libcurl refuses at setopt).
    private func fail(_ request: Request, _ message: String, cause: ErrorCause, refusedAtStart: Bool = false) {
        deliver(HTTPCompletion(
            id: request.submission.id, outcome: .failed(message), intendedNanos: request.submission.intendedNanos,
            startedNanos: request.startedNanos, finishedNanos: MonotonicClock.now(), firstByteNanos: nil, cause: cause,
            newConnections: refusedAtStart ? nil : request.newConnections, connectNanos: request.connectNanos))
    }

    /// Requests past their deadline time out (closing their connections); the next deadline is
    /// found on the way.
    private func expire(now: UInt64) {
        var next = UInt64.max
        var expired: [Connection] = []
        for connection in onConnection.values {
            guard let request = connection.request else { continue }
            if request.deadline <= now { expired.append(connection) } else { next = min(next, request.deadline) }
        }
        var expiredWaiting: [Request] = []
        for request in waiting.values {
            if request.deadline <= now { expiredWaiting.append(request) } else { next = min(next, request.deadline) }
        }
        earliestDeadline = next
        for connection in expired {
            guard let request = connection.request else { continue }
            close(connection)
            timedOut(request)
        }
        for request in expiredWaiting {
            waiting.removeValue(forKey: request.submission.id)
            timedOut(request)
        }
        if !expired.isEmpty { serviceWaiting() }
    }

    private func timedOut(_ request: Request) {
        deliver(HTTPCompletion(
            id: request.submission.id, outcome: .timedOut, intendedNanos: request.submission.intendedNanos,
            startedNanos: request.startedNanos, finishedNanos: MonotonicClock.now(), firstByteNanos: nil,
            newConnections: request.newConnections, connectNanos: request.connectNanos))
    }

    private func abort(id: UInt64, requestedNanos: UInt64) {
        let request: Request
        if let connection = onConnection[id], let carried = connection.request {
            request = carried
            close(connection)
            serviceWaiting()
        } else if let queued = waiting.removeValue(forKey: id) {
            request = queued
        } else if let submission = held.remove(id) {
            let stopped = MonotonicClock.now()
            deliver(HTTPCompletion(
                id: id, outcome: .cancelled(requestedNanos: requestedNanos, stopNanos: stopped &- requestedNanos),
                intendedNanos: submission.intendedNanos, startedNanos: stopped, finishedNanos: stopped, firstByteNanos: nil))
            return
        } else {
            return
        }
        let stopped = MonotonicClock.now()
        deliver(HTTPCompletion(
            id: id, outcome: .cancelled(requestedNanos: requestedNanos, stopNanos: stopped &- requestedNanos),
            intendedNanos: request.submission.intendedNanos, startedNanos: request.startedNanos, finishedNanos: stopped,
            firstByteNanos: nil))
    }

    private func deliver(_ completion: HTTPCompletion) {
        mailbox.outstanding.subtract(1, ordering: .relaxed)
        onCompletion(completion)
    }

    // MARK: Origins

    struct URLFailure: Error {
        var message: String
        var cause: ErrorCause
    }

    /// The origin of `url` (`http://host[:port]/…`), made on first use.
    private func findOrigin(url: String) -> Result<Origin, URLFailure> {
        var url = url
        return url.withUTF8 { bytes -> Result<Origin, URLFailure> in
            guard bytes.count > 7, Self.isHTTPScheme(bytes) else {
                return .failure(URLFailure(message: HTTPClientChoice.plainRefusal(url: String(decoding: bytes.prefix(200), as: UTF8.self)) ?? "not an http:// URL",
                                           cause: .transport))
            }
            var end = 7
            while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") { end += 1 }
            let authority = UnsafeBufferPointer(rebasing: bytes[7..<end])
            if let last = lastOrigin, Self.same(last, authority) { return .success(last) }
            if let known = origins.first(where: { Self.same($0, authority) }) {
                lastOrigin = known
                return .success(known)
            }
            guard let origin = makeOrigin(authority: Array(authority)) else {
                return .failure(URLFailure(message: HTTPClientChoice.plainRefusal(url: String(decoding: bytes.prefix(200), as: UTF8.self))
                                               ?? "malformed host or port in \(String(decoding: bytes.prefix(200), as: UTF8.self))", cause: .transport))
            }
            origins.append(origin)
            lastOrigin = origin
            return .success(origin)
        }
    }

    /// `http://`, the letters in any case.
    private static func isHTTPScheme(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 7 && bytes[0] | 0x20 == UInt8(ascii: "h") && bytes[1] | 0x20 == UInt8(ascii: "t")
            && bytes[2] | 0x20 == UInt8(ascii: "t") && bytes[3] | 0x20 == UInt8(ascii: "p") && bytes[4] == UInt8(ascii: ":")
            && bytes[5] == UInt8(ascii: "/") && bytes[6] == UInt8(ascii: "/")
    }

    /// `origin`'s authority is the bytes `authority`.
    private static func same(_ origin: Origin, _ authority: UnsafeBufferPointer<UInt8>) -> Bool {
        origin.authority.count == authority.count
            && (authority.isEmpty || origin.authority.withUnsafeBufferPointer { memcmp($0.baseAddress!, authority.baseAddress!, authority.count) == 0 })
    }

    /// `host`, `host:port`, `[v6]`, `[v6]:port`; nil for userinfo, an empty host or a bad port.
    private func makeOrigin(authority: [UInt8]) -> Origin? {
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")) else { return nil }
        let text = String(decoding: authority, as: UTF8.self)
        var host = text
        var port = "80"
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") { port = String(rest.dropFirst()) } else if !rest.isEmpty { return nil }
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            port = String(text[text.index(after: colon)...])
        }
        if port.isEmpty { port = "80" }
        guard !host.isEmpty, let number = Int(port), (1...65535).contains(number) else { return nil }
        let hostLine: [UInt8] = customHost ? [] : Array("Host: ".utf8) + authority + Array("\r\n".utf8)
        return Origin(authority: authority, host: host, port: String(number), getHead: hostLine + getLines, postHead: hostLine + postLines)
    }

    static func errnoText(_ code: Int32) -> String {
        code == 0 ? "connection closed" : "\(String(cString: strerror(code))) (errno \(code))"
    }
}
