import Foundation
import Glibc
import Locking
import Synchronization

/// A scrape endpoint on `http://127.0.0.1:P/metrics`: serves the last text handed to `update`
/// (`run --metrics-port P` hands it the run's figures in the Prometheus text format, so a
/// Grafana user can watch a long run). Loopback only.
///
/// One thread accepts and answers one request at a time (a scraper every few seconds); the body
/// is made when the caller has new figures, not per request.
package final class MetricsEndpoint: Sendable {
    package let port: UInt16
    private let listener: Int32
    private let body = Locked<String>("# no progress yet\n")
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Listens on 127.0.0.1:`port` (0: a free port, see `port`).
    package init(port: UInt16) throws(Failure) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "cannot open a socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "cannot listen on 127.0.0.1:\(port): \(reason)")
        }
        listener = fd
        self.port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.name = "typestorm-metrics"
        thread.start()
    }

    /// What the next scrapes get (Prometheus text format).
    package func update(_ text: String) {
        body.withLock { $0 = text }
    }

    /// Stops listening and joins the thread. Idempotent.
    package func close() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Wakes the blocking accept (it fails with EINVAL), then the thread exits.
        shutdown(listener, Int32(SHUT_RDWR))
        finished.wait()
        Glibc.close(listener)
    }

    private func serve() {
        defer { finished.signal() }
        while !stopped.load(ordering: .acquiring) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            answer(client)
            Glibc.close(client)
        }
    }

    private func answer(_ client: Int32) {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 2048)
        while request.count < 16_384, !request.suffix(4).elementsEqual("\r\n\r\n".utf8), !request.suffix(2).elementsEqual("\n\n".utf8) {
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            request += chunk[0..<count]
        }
        let line = String(decoding: request.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = line.split(separator: " ")
        let response: String
        if parts.count >= 2, parts[0] == "GET", parts[1] == "/metrics" || parts[1].hasPrefix("/metrics?") {
            let text = body.withLock { $0 }
            response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n" + text
        } else {
            let text = "only GET /metrics is served here\n"
            response = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n" + text
        }
        var bytes = Array(response.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            bytes = bytes.dropFirst(sent)
        }
    }
}
