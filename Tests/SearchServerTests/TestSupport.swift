import Dispatch
import Foundation
import Glibc
import Matching
import SearchServer
import Synchronization

// Helpers for tests that start servers and processes; every suite that uses them sets a
// `.timeLimit`, so a hang fails that test instead of stalling the run.

/// A response read off a raw socket.
struct RawResponse {
    var status: Int
    var headers: [String: String]
    var body: String

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
}

/// A blocking HTTP/1.1 connection on a raw socket, so tests can send what real clients would
/// not (bad escapes, partial requests) and close at a chosen moment.
/// `@unchecked Sendable`: each connection is used by one test at a time, in sequence.
final class RawConnection: @unchecked Sendable {
    private(set) var fd: Int32

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else {
            fd = -1
            throw TestFailure(description: "socket failed")
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let code = errno
            close()
            throw TestFailure(description: "connect to 127.0.0.1:\(port) failed: errno \(code)")
        }
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    func get(_ target: String, method: String = "GET", close: Bool = false) {
        send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(close ? "Connection: close\r\n" : "")\r\n")
    }

    /// Reads one response (headers, then Content-Length bytes unless `expectBody` is false, as
    /// for HEAD).
    func readResponse(expectBody: Bool = true) throws -> RawResponse {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        func fill() throws {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            guard n > 0 else { throw TestFailure(description: "connection closed or timed out before a full response (errno \(errno))") }
            buffer.append(contentsOf: chunk[0..<n])
        }
        let separator = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            try fill()
            if buffer.count >= 4 {
                headerEnd = (0...(buffer.count - 4)).first { Array(buffer[$0..<$0 + 4]) == separator }
            }
        }
        let head = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestFailure(description: "bad status line in \(head)") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = expectBody ? Int(headers["content-length"] ?? "0") ?? 0 : 0
        let bodyStart = headerEnd! + 4
        while buffer.count < bodyStart + length { try fill() }
        return RawResponse(status: status, headers: headers, body: String(decoding: buffer[bodyStart..<bodyStart + length], as: UTF8.self))
    }

    /// Blocks until the server closes the connection; true on EOF, false on timeout or data.
    func waitForClose() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    /// Everything the server sends until it closes the connection (or 10 s pass).
    func readToEnd() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the server has closed (or reset) the connection, without waiting.
    var isClosedByPeer: Bool {
        var byte: UInt8 = 0
        let received = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return received == 0 || (received < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Closes once; a second close could hit a descriptor another test has reused.
    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}

/// One request on a fresh connection.
func fetch(_ port: UInt16, _ target: String, method: String = "GET") throws -> RawResponse {
    let connection = try RawConnection(port: port)
    defer { connection.close() }
    connection.get(target, method: method, close: true)
    return try connection.readResponse()
}

/// A backend that blocks inside `search` until released or cancelled, so tests can hold a
/// worker busy and observe cancellation; it polls `isCancelled` as a real scan would.
final class GateBackend: SearchBackend {
    let started = DispatchSemaphore(value: 0)
    let stopped = DispatchSemaphore(value: 0)
    private let released = Atomic<Bool>(false)
    let observedCancellation = Atomic<Bool>(false)

    func release() { released.store(true, ordering: .relaxed) }

    func search(_ request: SearchRequest, isCancelled: () -> Bool) throws -> BackendResult {
        started.signal()
        defer { stopped.signal() }
        var scanned = 0
        let deadline = Date().addingTimeInterval(10)
        while !released.load(ordering: .relaxed), Date() < deadline {
            scanned += 1
            if isCancelled() {
                observedCancellation.store(true, ordering: .relaxed)
                throw SearchCancelled(itemsScanned: scanned)
            }
            sched_yield()
        }
        return BackendResult(items: [SearchHit(id: "1", name: "gate")], total: 1, path: "gate", itemsScanned: scanned)
    }
}

/// Waits for `condition` without sleeping a fixed time: yields until it holds or `seconds` pass.
func eventually(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        // Polls every millisecond rather than spinning: a spinning check holds one of the two
        // cooperative threads and starves the other tests that run in parallel.
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

extension DispatchSemaphore {
    /// Waits up to `seconds`; true if signalled.
    func wait(seconds: Double) -> Bool { wait(timeout: .now() + seconds) == .success }
}

func configuration(_ change: (inout SearchServerConfiguration) -> Void = { _ in }) -> SearchServerConfiguration {
    var configuration = SearchServerConfiguration()
    configuration.port = 0
    configuration.drainTimeoutSeconds = 3
    change(&configuration)
    return configuration
}
