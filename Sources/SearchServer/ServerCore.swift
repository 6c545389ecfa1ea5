import CMicroHTTPD
import CMicroHTTPDShims
import CPosixShims
import Foundation
import Glibc
import Matching
import TypestormSystem
import Locking
import Synchronization

/// One request's state across libmicrohttpd callbacks and the worker that searches for it.
///
/// `@unchecked Sendable` invariant: libmicrohttpd calls the callbacks of one connection from one
/// I/O thread, one at a time; a worker touches `response`/`stage` only while the connection is
/// suspended, and `MHD_resume_connection` (which takes the daemon's mutex) orders those writes
/// before the I/O thread's next read.
final class RequestContext: @unchecked Sendable {
    enum Stage {
        /// Headers arrived; libmicrohttpd keeps a connection alive only when the response is
        /// queued after the (empty) body, i.e. from the second call on.
        case headers
        case fresh
        case suspended
        case finished
    }

    let target: String
    let acceptedNanos: UInt64
    /// The connection's key in the `ConnectionTable`.
    let connectionKey: UInt
    var stage = Stage.headers
    var endpoint = "other"
    var enqueuedNanos: UInt64 = 0
    var response: PreparedResponse?
    /// The client went away during the search: close without answering.
    var dropConnection = false

    init(target: String, acceptedNanos: UInt64, connectionKey: UInt) {
        self.target = target
        self.acceptedNanos = acceptedNanos
        self.connectionKey = connectionKey
    }
}

/// A response built off the I/O thread, queued on it.
struct PreparedResponse: Sendable {
    var status: Int
    var body: [UInt8]
    var contentType = "application/json"
    var headers: [(String, String)] = []
}

/// Polls a searching client's socket for a close, at most once per interval: the fallback when
/// the socket could not be added to the `DisconnectWatcher`'s epoll set.
struct PeerChecker {
    let fd: Int32
    let interval: UInt64
    var lastCheck: UInt64 = 0

    mutating func peerClosed() -> Bool {
        let now = MonotonicClock.now()
        if now &- lastCheck < interval { return false }
        lastCheck = now
        return fd >= 0 && CPosixShims_socket_peer_closed(fd) != 0
    }
}

/// The running daemon: libmicrohttpd handle, workers, metrics. Created started; stopped once by
/// `drainAndStop()`.
///
/// `@unchecked Sendable` invariant: `daemon` is written only in `init` and in `drainAndStop`
/// (under `stopState`), after every request completed; the C callbacks only read it.
/// `acceptor` is written only in `init`.
final class ServerCore: @unchecked Sendable {
    let configuration: SearchServerConfiguration
    let backend: any SearchBackend
    let metrics = ServerMetrics()
    let pool: WorkerPool<@Sendable () -> Void>
    let faults: FaultSampler
    let watcher: DisconnectWatcher
    private(set) var acceptor: Acceptor?
    let connections: ConnectionTable
    let pages: FirstPageCache
    let draining = Atomic<Bool>(false)
    /// Set when the drain deadline passed: in-flight searches see themselves cancelled.
    let abandon = CancellationFlag()
    private(set) var daemon: OpaquePointer?
    private(set) var port: UInt16 = 0
    private let stopState = Locked(false)

    init(configuration: SearchServerConfiguration, backend: any SearchBackend) throws {
        self.configuration = configuration
        self.backend = backend
        pool = WorkerPool(threads: max(1, configuration.workers), capacity: max(1, configuration.queueCapacity), name: "search-worker") { $0() }
        faults = FaultSampler(configuration.faults)
        connections = ConnectionTable(limit: configuration.maxConnections)
        pages = FirstPageCache(capacity: configuration.faults.isActive ? 0 : configuration.firstPageCacheEntries)
        do { watcher = try DisconnectWatcher() } catch {
            pool.shutdown()
            throw SearchServerError(description: "cannot start the disconnect watcher: \(error)")
        }
        guard let address = SearchServerConfiguration.ipv4Address(configuration.host) else {
            pool.shutdown()
            watcher.stop()
            throw SearchServerError(description: "--host \(configuration.host) is not an IPv4 address (e.g. 127.0.0.1 or 0.0.0.0)")
        }
        let listenFD = CPosixShims_listen_ipv4(address.s_addr, configuration.port, 4096)
        guard listenFD >= 0 else {
            let reason = SearchServerConfiguration.bindProblem(host: configuration.host, port: configuration.port, errno: errno)
            pool.shutdown()
            watcher.stop()
            throw SearchServerError(description: "cannot listen on \(configuration.host):\(configuration.port): \(reason)")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        var options = CMicroHTTPDShims_Options()
        options.flags = UInt32(MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_TURBO.rawValue)
        options.connection_limit = UInt32(configuration.hardConnectionLimit)
        options.connection_timeout_seconds = UInt32(max(1, configuration.connectionTimeoutSeconds))
        options.thread_pool_size = UInt32(max(1, configuration.ioThreads))
        // Bounds the request line and headers; libmicrohttpd clears the pool per request, so a
        // larger one costs CPU on every request (measured: 64 KiB was ~8 % of server time).
        options.connection_memory_limit = 16 * 1024
        options.access_handler = mhdAccessHandler
        options.access_handler_cls = context
        options.completed_callback = mhdCompleted
        options.completed_cls = context
        options.uri_log_callback = mhdURILog
        options.uri_log_cls = context
        options.notify_connection = mhdNotifyConnection
        options.notify_connection_cls = context
        guard let daemon = CMicroHTTPDShims_start(&options) else {
            let code = errno
            Glibc.close(listenFD)
            pool.shutdown()
            watcher.stop()
            throw SearchServerError(description: "cannot start the HTTP server: libmicrohttpd failed (\(String(cString: strerror(code))))")
        }
        self.daemon = daemon
        port = CPosixShims_socket_port(listenFD)
        let daemonAddress = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(daemon)))
        do {
            acceptor = try Acceptor(
                listenFD: listenFD, limits: configuration.limits, headTimeoutSeconds: configuration.connectionTimeoutSeconds,
                connections: connections, metrics: metrics
            ) { fd, address in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        MHD_add_connection(OpaquePointer(bitPattern: daemonAddress), fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == .YES
                    }
                }
            }
        } catch {
            Glibc.close(listenFD)
            MHD_stop_daemon(daemon)
            pool.shutdown()
            watcher.stop()
            throw SearchServerError(description: "cannot start accepting connections: \(error)")
        }
    }

    func snapshot() -> ServerMetricsSnapshot { metrics.snapshot(queueDepth: pool.depth) }
    func metricsText() -> String { metrics.prometheusText(queueDepth: pool.depth, workers: pool.threadCount) }

    /// Stops accepting, waits for in-flight requests (then cancels them after the drain timeout),
    /// stops the daemon and the workers. Idempotent.
    func drainAndStop() async {
        let first = stopState.withLock { stopped -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first, let daemon else { return }
        draining.store(true, ordering: .relaxed)
        // Refuse new connections at once instead of letting them sit in the kernel's backlog
        // until the daemon stops; connections still waiting for their first request are closed.
        acceptor?.stop()
        let deadline = MonotonicClock.now() + UInt64(configuration.drainTimeoutSeconds * 1e9)
        await waitForIdle(until: deadline)
        if metrics.inFlight.load(ordering: .relaxed) > 0 || pool.busy > 0 {
            abandon.cancel()
            // No deadline for the workers: a worker resumes its suspended connection when it
            // returns, and doing that after MHD_stop_daemon freed the connection would be a
            // use-after-free. Backends must honour `isCancelled`, so this ends promptly.
            while pool.busy > 0 { try? await Task.sleep(for: .milliseconds(1)) }
            await waitForIdle(until: MonotonicClock.now() + 1_000_000_000)
        }
        MHD_stop_daemon(daemon)
        pool.shutdown()
        watcher.stop()
    }

    private func waitForIdle(until deadline: UInt64) async {
        while metrics.inFlight.load(ordering: .relaxed) > 0 || pool.busy > 0, MonotonicClock.now() < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    // MARK: - Request handling (I/O threads)

    func handle(_ context: RequestContext, connection: OpaquePointer, method: String) -> MHD_Result {
        switch context.stage {
        case .headers:
            context.stage = .fresh
            connections.requestStarted(context.connectionKey)
            return .YES
        case .fresh:
            return handleFresh(context, connection: connection, method: method)
        case .suspended:
            return .YES
        case .finished:
            if context.dropConnection { return .NO }
            guard let response = context.response else { return .NO }
            return queue(response, on: connection, context: context)
        }
    }

    private func handleFresh(_ context: RequestContext, connection: OpaquePointer, method: String) -> MHD_Result {
        let (path, queryString) = RequestParser.split(target: context.target)
        context.endpoint = Self.endpoint(path: path)
        if method != "GET" && method != "HEAD" {
            return reject(RequestRejection(status: 405, message: "method \(method) is not allowed; use GET"), context, connection,
                          headers: [("Allow", "GET, HEAD")])
        }
        if context.target.utf8.count > configuration.limits.maxURLBytes {
            return reject(RequestRejection(
                status: 414, message: "request target is \(context.target.utf8.count) bytes; the limit is \(configuration.limits.maxURLBytes)"),
                context, connection)
        }
        switch context.endpoint {
        case "healthz":
            let draining = draining.load(ordering: .relaxed)
            return queue(PreparedResponse(status: draining ? 503 : 200, body: Array((draining ? "{\"status\":\"draining\"}" : "{\"status\":\"ok\"}").utf8)),
                         on: connection, context: context)
        case "metrics":
            return queue(PreparedResponse(status: 200, body: Array(metricsText().utf8), contentType: "text/plain; version=0.0.4"),
                         on: connection, context: context)
        case "search":
            return startSearch(context, connection: connection, queryString: queryString)
        default:
            return reject(RequestRejection(status: 404, message: "no such endpoint '\(path)'; try /search, /healthz or /metrics"), context, connection)
        }
    }

    /// The endpoint name metrics count a request under.
    static func endpoint<Path: StringProtocol>(path: Path) -> String {
        switch path {
        case "/search": "search"
        case "/healthz": "healthz"
        case "/metrics": "metrics"
        default: "other"
        }
    }

    private func startSearch(_ context: RequestContext, connection: OpaquePointer, queryString: Substring) -> MHD_Result {
        let parsed: (SearchRequest, RequestFaults)
        do {
            let parameters = try RequestParser.parameters(queryString)
            parsed = try RequestParser.searchQuery(
                parameters, limits: configuration.limits, allowFaultParameters: configuration.faults.allowPerRequestParameters)
        } catch {
            return reject(error, context, connection)
        }
        if connections.liveCount > configuration.maxConnections {
            return overloaded("too many open connections (limit \(configuration.maxConnections))", context, connection)
        }
        if pages.isEnabled, parsed.1 == RequestFaults(), FirstPageCache.caches(parsed.0) {
            let lookup = MonotonicClock.now()
            if let page = pages.page(for: parsed.0) {
                return answerFromCache(page, serviceNanos: MonotonicClock.now() &- lookup, context, connection)
            }
        }
        let fd = CMicroHTTPDShims_connection_fd(connection)
        if configuration.searchOnIOThreads {
            context.stage = .suspended
            context.enqueuedNanos = MonotonicClock.now()
            runSearch(context, request: parsed.0, requestFaults: parsed.1, fd: fd)
            return handle(context, connection: connection, method: "GET")
        }
        guard pool.reserve() else {
            return overloaded("search queue is full (\(configuration.queueCapacity) waiting)", context, connection)
        }
        context.stage = .suspended
        context.enqueuedNanos = MonotonicClock.now()
        MHD_suspend_connection(connection)
        let connectionAddress = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
        let (request, requestFaults) = parsed
        pool.enqueueReserved { [self] in
            let connection = OpaquePointer(bitPattern: connectionAddress)!
            self.runSearch(context, request: request, requestFaults: requestFaults, fd: fd)
            MHD_resume_connection(connection)
        }
        return .YES
    }

    /// A cached first page, answered on the I/O thread; its service time is the lookup's.
    private func answerFromCache(_ page: FirstPageCache.Page, serviceNanos: UInt64, _ context: RequestContext, _ connection: OpaquePointer) -> MHD_Result {
        let body = JSONText.searchResponse(page, path: "cache", itemsScanned: 0, queueNanos: 0, serviceNanos: serviceNanos, injectedDelayNanos: 0)
        let response = PreparedResponse(status: 200, body: body, headers: [("Server-Timing", JSONText.serverTiming(queueNanos: 0, serviceNanos: serviceNanos))])
        let result = queue(response, on: connection, context: context, recorded: false)
        metrics.recordCacheHit(serviceNanos: serviceNanos, latencyNanos: MonotonicClock.since(context.acceptedNanos))
        return result
    }

    private func overloaded(_ why: String, _ context: RequestContext, _ connection: OpaquePointer) -> MHD_Result {
        metrics.recordOverload()
        return reject(RequestRejection(status: 503, message: "overloaded: \(why); retry later"), context, connection,
                      headers: [("Retry-After", "\(configuration.retryAfterSeconds)"), ("Connection", "close")])
    }

    private func reject(_ rejection: RequestRejection, _ context: RequestContext, _ connection: OpaquePointer,
                        headers: [(String, String)] = []) -> MHD_Result {
        queue(PreparedResponse(status: rejection.status, body: JSONText.error(rejection.message, status: rejection.status), headers: headers),
              on: connection, context: context)
    }

    /// `recorded`: the caller records the response in the metrics itself.
    private func queue(_ response: PreparedResponse, on connection: OpaquePointer, context: RequestContext, recorded: Bool = true) -> MHD_Result {
        guard let mhdResponse = response.body.withUnsafeBufferPointer({ buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }) else { return .NO }
        MHD_add_response_header(mhdResponse, "Content-Type", response.contentType)
        for (name, value) in response.headers { MHD_add_response_header(mhdResponse, name, value) }
        if draining.load(ordering: .relaxed) { MHD_add_response_header(mhdResponse, "Connection", "close") }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        MHD_destroy_response(mhdResponse)
        guard recorded else { return result }
        let latency = context.endpoint == "search" ? MonotonicClock.since(context.acceptedNanos) : nil
        metrics.recordResponse(endpoint: context.endpoint, status: response.status, latencyNanos: latency)
        return result
    }

    // MARK: - Search (worker threads)

    private func runSearch(_ context: RequestContext, request: SearchRequest, requestFaults: RequestFaults, fd: Int32) {
        let started = MonotonicClock.now()
        let queueNanos = started &- context.enqueuedNanos
        let flag = CancellationFlag()
        let token = fd >= 0 ? watcher.watch(fd: fd, flag: flag) : nil
        // Unwatched before the caller resumes the connection: libmicrohttpd may close the fd then.
        defer { if let token { watcher.unwatch(fd: fd, token: token) } }
        var fallback = token == nil ? PeerChecker(fd: fd, interval: configuration.peerCheckIntervalNanos) : nil
        func isCancelled() -> Bool {
            if flag.isCancelled { return true }
            if abandon.isCancelled || fallback?.peerClosed() == true { flag.cancel() }
            return flag.isCancelled
        }
        let decision = faults.decide(requestFaults, queryLength: request.text.count)
        defer { context.stage = .finished }
        func cancelled(itemsScanned: Int) {
            let stopped = MonotonicClock.now()
            let record = CancellationRecord(noticedNanos: flag.noticedNanos ?? stopped, stoppedNanos: stopped, itemsScanned: itemsScanned)
            metrics.recordCancellation(record, serviceNanos: stopped &- started)
            metrics.recordResponse(endpoint: "search", status: 499, latencyNanos: nil)
            context.dropConnection = true
        }
        if decision.delayNanos > 0 {
            let until = started + decision.delayNanos
            while true {
                if isCancelled() { return cancelled(itemsScanned: 0) }
                let now = MonotonicClock.now()
                if now >= until { break }
                MonotonicClock.sleep(Int64(min(until - now, 1_000_000)))
            }
        }
        if decision.fail {
            metrics.recordInjectedError()
            context.response = PreparedResponse(status: 500, body: JSONText.error("injected fault (fault injection is on)", status: 500))
            return
        }
        do {
            let result = try backend.search(request, isCancelled: isCancelled)
            let finished = MonotonicClock.now()
            let serviceNanos = finished &- started
            metrics.recordSearch(queueNanos: queueNanos, serviceNanos: serviceNanos, itemsScanned: result.itemsScanned)
            if flag.isCancelled || (fd >= 0 && CPosixShims_socket_peer_closed(fd) != 0) {
                metrics.recordCompletedAfterDisconnect(serviceNanos: serviceNanos, itemsScanned: result.itemsScanned)
            }
            let page = JSONText.searchPage(request, result: result)
            if requestFaults == RequestFaults() { pages.store(page, for: request) }
            let body = JSONText.searchResponse(page, path: result.path, itemsScanned: result.itemsScanned,
                                               queueNanos: queueNanos, serviceNanos: serviceNanos, injectedDelayNanos: decision.delayNanos)
            let timing = JSONText.serverTiming(queueNanos: queueNanos, serviceNanos: serviceNanos)
            context.response = PreparedResponse(status: 200, body: body, headers: [("Server-Timing", timing)])
        } catch let stop as SearchCancelled {
            cancelled(itemsScanned: stop.itemsScanned)
        } catch {
            context.response = PreparedResponse(status: 500, body: JSONText.error("search failed: \(error)", status: 500))
        }
    }
}

// MARK: - libmicrohttpd callbacks

private func core(_ cls: UnsafeMutableRawPointer?) -> ServerCore {
    Unmanaged<ServerCore>.fromOpaque(cls!).takeUnretainedValue()
}

/// A connection's identity in the `ConnectionTable`: its address, unique while it is open.
private func connectionKey(_ connection: OpaquePointer?) -> UInt {
    connection.map { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer($0))) } ?? 0
}

/// Called with the raw request target before anything else: the context is born here so the
/// strict parser sees the undecoded query string.
private let mhdURILog: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { cls, uri, connection in
    let server = core(cls)
    server.metrics.inFlight.add(1, ordering: .relaxed)
    let target = uri.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? "/"
    let context = RequestContext(target: target, acceptedNanos: MonotonicClock.now(), connectionKey: connectionKey(connection))
    return Unmanaged.passRetained(context).toOpaque()
}

private let mhdAccessHandler: @convention(c) (
    UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
    UnsafePointer<CChar>?, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result = { cls, connection, _, method, _, _, uploadSize, requestContext in
    guard let connection, let requestContext, let raw = requestContext.pointee else { return .NO }
    if let uploadSize, uploadSize.pointee > 0 {
        uploadSize.pointee = 0  // bodies are ignored; GET only
        return .YES
    }
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
    return core(cls).handle(context, connection: connection, method: method.map { String(cString: $0) } ?? "")
}

private let mhdCompleted: @convention(c) (
    UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, MHD_RequestTerminationCode
) -> Void = { cls, _, requestContext, _ in
    guard let requestContext, let raw = requestContext.pointee else { return }
    requestContext.pointee = nil
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
    let server = core(cls)
    server.connections.requestFinished(context.connectionKey, now: MonotonicClock.now())
    server.metrics.inFlight.subtract(1, ordering: .relaxed)
}

private let mhdNotifyConnection: @convention(c) (
    UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, MHD_ConnectionNotificationCode
) -> Void = { cls, connection, _, code in
    let server = core(cls)
    // The acceptor counted the connection accepted and open; it counts closed here.
    if code == .CONNECTION_NOTIFY_STARTED {
        if let connection {
            let shed = server.connections.opened(connectionKey(connection), fd: CMicroHTTPDShims_connection_fd(connection), now: MonotonicClock.now())
            if shed > 0 { server.metrics.connectionsShed.add(UInt64(shed), ordering: .relaxed) }
        }
    } else {
        server.connections.closed(connectionKey(connection))
        server.metrics.openConnections.subtract(1, ordering: .relaxed)
    }
}
