import CPosixShims
import Foundation
import Glibc
import TypestormSystem
import Synchronization

/// The server's front door: one thread that accepts connections on the listening socket, holds
/// each until its first request head has arrived whole, and only then hands it to libmicrohttpd.
///
/// Why it exists: libmicrohttpd answers a request head too big for its per-connection buffer
/// itself, with an HTML body and no hook to change it. The acceptor peeks at the first request
/// (`recv(MSG_PEEK)`, so libmicrohttpd later reads the same bytes) and refuses a head over
/// `RequestLimits.maxHeadBytes` or `maxHeaderLines` with our JSON 414 or 431. It also puts a
/// deadline on that first head: a client that connects and sends nothing, or trickles its
/// headers, is closed `headTimeout` after it connected, and while it waits it is an entry in the
/// `ConnectionTable` like any other, shed first when the server is full.
///
/// Later requests on a kept-alive connection are libmicrohttpd's alone; a head there that
/// overflows its 16 KiB buffer still gets libmicrohttpd's HTML 414 or 431.
///
/// `@unchecked Sendable` invariant: `held`, `generation`, `buffer`, `listenPausedUntil` and
/// `lastSweepNanos` are touched only by the acceptor's thread; `stop()` only sets an atomic and writes to a pipe.
final class Acceptor: @unchecked Sendable {
    /// A connection waiting for its first request head.
    private struct Held {
        let generation: UInt32
        let acceptedNanos: UInt64
        var address: sockaddr_in
        /// Set once refused: the response is sent and the rest of the request is read and
        /// dropped until the client closes (closing with unread bytes would reset the
        /// connection and could destroy the response before the client reads it).
        var refusedNanos: UInt64?
    }

    /// Hands an accepted socket with a whole first head to libmicrohttpd, which owns (and
    /// closes) it from then on whatever the result; false when libmicrohttpd refused it.
    typealias HandOff = @Sendable (Int32, inout sockaddr_in) -> Bool

    private static let listenToken: UInt64 = 0
    private static let wakeToken: UInt64 = 1
    /// How long a refused connection may take to close before it is closed anyway.
    private static let lingerNanos: UInt64 = 1_000_000_000

    private let listenFD: Int32
    private let epollFD: Int32
    private let wake: SystemPipe
    private let limits: RequestLimits
    private let headTimeoutNanos: UInt64
    private let connections: ConnectionTable
    private let metrics: ServerMetrics
    private let handOff: HandOff
    private let stopping = Atomic<Bool>(false)
    private let exited = DispatchSemaphore(value: 0)

    private var held: [Int32: Held] = [:]
    private var generation: UInt32 = 0
    private var buffer: [UInt8]
    private var listenPausedUntil: UInt64?
    private var lastSweepNanos: UInt64 = 0

    /// Takes ownership of `listenFD` (closed when the acceptor stops) and starts the thread.
    init(listenFD: Int32, limits: RequestLimits, headTimeoutSeconds: Int, connections: ConnectionTable,
         metrics: ServerMetrics, handOff: @escaping HandOff) throws(SystemError) {
        let epoll = try Syscall.call("epoll_create1") { CPosixShims_epoll_create() }
        let pipe: SystemPipe
        do {
            pipe = try SystemPipe()
            _ = try Syscall.call("epoll_ctl") { CPosixShims_epoll_watch_readable(epoll, pipe.readEnd.rawValue, Self.wakeToken) }
            _ = try Syscall.call("epoll_ctl") { CPosixShims_epoll_watch_readable(epoll, listenFD, Self.listenToken) }
        } catch {
            Glibc.close(epoll)
            throw error
        }
        self.listenFD = listenFD
        epollFD = epoll
        wake = pipe
        self.limits = limits
        headTimeoutNanos = UInt64(max(1, headTimeoutSeconds)) * 1_000_000_000
        self.connections = connections
        self.metrics = metrics
        self.handOff = handOff
        buffer = [UInt8](repeating: 0, count: max(64, limits.maxHeadBytes))
        let thread = Thread { [self] in self.run() }
        thread.name = "typestorm-accept"
        thread.start()
    }

    /// Stops accepting, closes the listening socket and every connection still waiting for its
    /// first head, and returns when the thread has exited. Idempotent.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? wake.writeEnd.writeAll([1])
        exited.wait()
    }

    // MARK: - The thread

    private func run() {
        var tokens = [UInt64](repeating: 0, count: 256)
        var masks = [UInt32](repeating: 0, count: 256)
        while !stopping.load(ordering: .acquiring) {
            let count = CPosixShims_epoll_wait_events(epollFD, &tokens, &masks, Int32(tokens.count), 100)
            if stopping.load(ordering: .acquiring) { break }
            for index in 0..<max(0, Int(count)) {
                switch tokens[index] {
                case Self.listenToken: acceptWaiting()
                case Self.wakeToken: break
                case let token: arrived(fd: Int32(truncatingIfNeeded: token & 0xFFFF_FFFF), generation: UInt32(token >> 32), mask: masks[index])
                }
            }
            let now = MonotonicClock.now()
            if now &- lastSweepNanos >= 50_000_000 {
                lastSweepNanos = now
                sweep(now: now)
            }
        }
        for fd in Array(held.keys) { close(fd) }
        Glibc.close(listenFD)
        Glibc.close(epollFD)
        try? wake.writeEnd.close()
        try? wake.readEnd.close()
        exited.signal()
    }

    private func acceptWaiting() {
        for _ in 0..<256 {
            var address = sockaddr_in()
            var length = UInt32(MemoryLayout<sockaddr_in>.size)
            let fd = CPosixShims_accept_nonblocking(listenFD, &address, &length)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors or memory: stop watching the listening socket for a
                    // moment instead of spinning on it; connections wait in the backlog.
                    _ = CPosixShims_epoll_unwatch(epollFD, listenFD)
                    listenPausedUntil = MonotonicClock.now() + 50_000_000
                    return
                default: return  // EAGAIN: accepted everything waiting
                }
            }
            let now = MonotonicClock.now()
            generation = generation == UInt32.max ? 1 : generation + 1
            metrics.connectionsAccepted.add(1, ordering: .relaxed)
            metrics.openConnections.add(1, ordering: .relaxed)
            held[fd] = Held(generation: generation, acceptedNanos: now, address: address)
            let token = UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
            let shed = connections.opened(Self.key(fd), fd: fd, now: now)
            if shed > 0 { metrics.connectionsShed.add(UInt64(shed), ordering: .relaxed) }
            // Edge-triggered: bytes already waiting are reported at once.
            if CPosixShims_epoll_watch_arrivals(epollFD, fd, token) != 0 { close(fd) }
        }
    }

    private func arrived(fd: Int32, generation: UInt32, mask: UInt32) {
        guard let connection = held[fd], connection.generation == generation else { return }
        if connection.refusedNanos != nil {
            if discardInput(fd) { close(fd) }
            return
        }
        if mask & CPosixShims_epoll_event_hangup != 0 { return close(fd) }
        var received: Int
        repeat {
            received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
        } while received < 0 && errno == EINTR
        if received < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return }
            return close(fd)
        }
        if received == 0 { return close(fd) }  // closed (or shed) before sending a request
        let head = buffer.withUnsafeBytes { RequestHead.scan(UnsafeRawBufferPointer(rebasing: $0[0..<received]), limits: limits) }
        switch head {
        case .complete:
            transfer(fd)
        case .incomplete:
            // The client stopped sending before its request was whole.
            if mask & CPosixShims_epoll_event_peer_shut != 0 { close(fd) }
        case .refused(let rejection):
            let endpoint = buffer.withUnsafeBytes { Self.endpoint(ofRequestLine: UnsafeRawBufferPointer(rebasing: $0[0..<received])) }
            refuse(fd, rejection, endpoint: endpoint)
        }
    }

    /// Hands `fd` to libmicrohttpd, unless the `ConnectionTable` shed it meanwhile.
    private func transfer(_ fd: Int32) {
        _ = CPosixShims_epoll_unwatch(epollFD, fd)
        guard var connection = held.removeValue(forKey: fd) else { return }
        if connections.closed(Self.key(fd)) {
            Glibc.close(fd)
            metrics.openConnections.subtract(1, ordering: .relaxed)
            return
        }
        // libmicrohttpd counts the connection closed when it closes it; if it refuses it here,
        // it has closed it already.
        if !handOff(fd, &connection.address) { metrics.openConnections.subtract(1, ordering: .relaxed) }
    }

    /// Answers `rejection` as JSON, closes the sending side and drops what the client still sends.
    private func refuse(_ fd: Int32, _ rejection: RequestRejection, endpoint: String) {
        let body = JSONText.error(rejection.message, status: rejection.status)
        let head = "HTTP/1.1 \(rejection.status) \(Self.reason(rejection.status))\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let response = Array(head.utf8) + body
        // Counted before it is sent: whoever reads the response then finds it in the metrics.
        metrics.recordResponse(endpoint: endpoint, status: rejection.status, latencyNanos: nil)
        // The socket buffer is empty, so a response this small goes out whole.
        _ = response.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        held[fd]?.refusedNanos = MonotonicClock.now()
        if discardInput(fd) { close(fd) }
    }

    /// Reads and drops what is waiting; true when the client has closed (or the socket failed).
    private func discardInput(_ fd: Int32) -> Bool {
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received > 0 { continue }
            if received == 0 { return true }
            if errno == EINTR { continue }
            return !(errno == EAGAIN || errno == EWOULDBLOCK)
        }
    }

    /// Closes connections whose first head is overdue and refused ones that linger; resumes
    /// accepting after a pause.
    private func sweep(now: UInt64) {
        if let until = listenPausedUntil, now >= until {
            listenPausedUntil = nil
            _ = CPosixShims_epoll_watch_readable(epollFD, listenFD, Self.listenToken)
        }
        for (fd, connection) in held {
            if let refused = connection.refusedNanos {
                if now &- refused >= Self.lingerNanos { close(fd) }
            } else if now &- connection.acceptedNanos >= headTimeoutNanos {
                close(fd)
            }
        }
    }

    /// Closes a held connection. The table forgets it before the descriptor is closed, so the
    /// table never shuts down a number reused by a newer connection.
    private func close(_ fd: Int32) {
        _ = CPosixShims_epoll_unwatch(epollFD, fd)
        guard held.removeValue(forKey: fd) != nil else { return }
        _ = connections.closed(Self.key(fd))
        // Unread bytes would turn the close into a reset; read them so the client sees an end.
        _ = discardInput(fd)
        Glibc.close(fd)
        metrics.openConnections.subtract(1, ordering: .relaxed)
    }

    // MARK: - Helpers

    /// A held connection's key in the `ConnectionTable`: odd, so it never equals the key of a
    /// libmicrohttpd connection (the address of an aligned structure).
    static func key(_ fd: Int32) -> UInt { UInt(UInt32(bitPattern: fd)) << 1 | 1 }

    /// The endpoint a refused request was for, from the start of its request line.
    static func endpoint(ofRequestLine bytes: UnsafeRawBufferPointer) -> String {
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")) else { return "other" }
        let target = bytes[(space + 1)...].prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        return ServerCore.endpoint(path: String(decoding: target, as: UTF8.self))
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 414: "URI Too Long"
        case 431: "Request Header Fields Too Large"
        default: "Error"
        }
    }
}
