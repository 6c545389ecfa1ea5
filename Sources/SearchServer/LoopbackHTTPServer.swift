import Foundation
import Glibc
import Synchronization

/// A small HTTP/1.1 server on `127.0.0.1`: one thread accepts and answers one request at a time,
/// one request per connection, with what `answer` makes of the request line. For endpoints a
/// scraper or a test calls now and then (``MetricsEndpoint``), not for load.
package final class LoopbackHTTPServer: Sendable {
    /// What a request gets back.
    package struct Response: Sendable {
        /// The status line's code and phrase, `200 OK`.
        var status: String
        var contentType: String
        var body: String

        /// `200 OK` with `body`, of `contentType`.
        package static func ok(contentType: String, body: String) -> Response {
            Response(status: "200 OK", contentType: contentType, body: body)
        }

        /// `404 Not Found` with the plain-text `body`.
        package static func notFound(_ body: String) -> Response {
            Response(status: "404 Not Found", contentType: "text/plain", body: body)
        }
    }

    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    package let port: UInt16
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let answer: @Sendable (_ method: Substring, _ target: Substring) -> Response

    /// Listens on 127.0.0.1:`port` (0: a free port, see `port`) and serves on a thread named
    /// `threadName`. `answer` gets the request line's method and target (empty when missing).
    package init(
        port: UInt16, threadName: String, answer: @escaping @Sendable (_ method: Substring, _ target: Substring) -> Response
    ) throws(Failure) {
        self.answer = answer
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
        thread.name = threadName
        thread.start()
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
            respond(client)
            Glibc.close(client)
        }
    }

    private func respond(_ client: Int32) {
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
        let reply = answer(parts.first ?? "", parts.count >= 2 ? parts[1] : "")
        let response = "HTTP/1.1 \(reply.status)\r\nContent-Type: \(reply.contentType)\r\nContent-Length: \(reply.body.utf8.count)\r\nConnection: close\r\n\r\n" + reply.body
        var bytes = Array(response.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            bytes = bytes.dropFirst(sent)
        }
    }
}
