import CPlainHTTP
import Foundation
import TypestormMetrics
import Testing
@testable import LiveLoad

extension HTTPClientChoice {
    /// The two clients, for tests that must pass on both.
    static let implementations: [HTTPClientChoice] = [.plain, .curl]
}

/// A raw-socket HTTP server in Python on loopback that answers each path with scripted bytes:
/// chunked bodies in pieces, `Connection: close`, a body until the close, a trickle, a 500, a
/// close inside the body, malformed status lines, no answer at all, an interim 100, bare-LF
/// heads, and a keep-alive connection it drops on its second request.
final class ScriptedHTTPServer: @unchecked Sendable {
    static let script = #"""
    import socket, sys, threading, time

    BODY = b'{"total": 42, "items": ["a", "b"]}'

    def send_slowly(conn, data, piece, pause):
        for i in range(0, len(data), piece):
            conn.sendall(data[i:i + piece])
            time.sleep(pause)

    def chunked(body):
        parts, sizes, at = [], [3, 7, 1], 0
        for n in sizes:
            parts.append(b"%x;ext=1\r\n" % n + body[at:at + n] + b"\r\n")
            at += n
        rest = body[at:]
        parts.append(b"%X\r\n" % len(rest) + rest + b"\r\n")
        parts.append(b"0\r\nX-Trailer: 1\r\n\r\n")
        return b"".join(parts)

    def head_of(conn, buffer):
        while b"\r\n\r\n" not in buffer:
            data = conn.recv(65536)
            if not data:
                return None, b""
            buffer += data
        head, rest = buffer.split(b"\r\n\r\n", 1)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(rest) < length:
            rest += conn.recv(65536)
        return head.decode("latin-1"), rest[length:]

    def ok(extra=b"", body=BODY):
        return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(body) + extra + b"\r\n" + body

    def serve(conn):
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buffer, served = b"", 0
        try:
            while True:
                head, buffer = head_of(conn, buffer)
                if head is None:
                    return
                served += 1
                path = head.split(" ")[1].split("?")[0]
                if path == "/keep":
                    conn.sendall(ok())
                elif path == "/chunked":
                    data = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(BODY)
                    send_slowly(conn, data, 9, 0.002)
                elif path == "/close":
                    conn.sendall(ok(b"Connection: close\r\n"))
                    return
                elif path == "/until-close":
                    conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + BODY)
                    return
                elif path == "/slow":
                    send_slowly(conn, ok(), 4, 0.003)
                elif path == "/500":
                    conn.sendall(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 21\r\n\r\n" + b'{"error": "it broke"}')
                elif path == "/mid-body":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + BODY[:10])
                    time.sleep(0.02)
                    return
                elif path == "/malformed-ssh":
                    conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
                    time.sleep(0.02)
                    return
                elif path == "/malformed-code":
                    conn.sendall(b"HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\n{}")
                    time.sleep(0.02)
                    return
                elif path == "/nothing":
                    return
                elif path == "/hang":
                    time.sleep(3)
                    return
                elif path == "/continue":
                    conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                    time.sleep(0.005)
                    conn.sendall(ok())
                elif path == "/bare-lf":
                    conn.sendall(b"HTTP/1.1 200 OK\nContent-Length: %d\n\n" % len(BODY) + BODY)
                elif path == "/drop-second":
                    if served > 1:
                        return
                    conn.sendall(ok())
                else:
                    conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        except OSError:
            pass
        finally:
            conn.close()

    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print("PORT", listener.getsockname()[1], flush=True)

    def accept():
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()
    """#

    /// The body every 200 answer carries (count 42).
    static let body = #"{"total": 42, "items": ["a", "b"]}"#

    private let process = Process()
    private let input = Pipe()
    let port: Int

    init() throws {
        let python = try #require(["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                  "python3 is needed for the scripted test server")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("typestorm-scripted-\(UUID().uuidString).py")
        try Self.script.write(to: file, atomically: true, encoding: .utf8)
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [file.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        try? FileManager.default.removeItem(at: file)
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw URLTemplate.ParseError(description: "the scripted test server did not start: '\(text)'")
        }
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// How a request ended, in the terms both clients share.
enum Ending: Equatable, CustomStringConvertible {
    case response(status: Int, bodyBytes: Int, count: Int?)
    case failed(ErrorCause?)
    case timedOut
    case cancelled

    init(_ completion: HTTPCompletion) {
        switch completion.outcome {
        case let .response(status, bytes, count, _): self = .response(status: status, bodyBytes: bytes, count: count)
        case .failed: self = .failed(completion.cause)
        case .timedOut: self = .timedOut
        case .cancelled: self = .cancelled
        }
    }

    var description: String {
        switch self {
        case let .response(status, bytes, count): "response \(status), \(bytes) bytes, count \(count.map(String.init) ?? "nil")"
        case let .failed(cause): "failed (\(cause?.description ?? "no cause"))"
        case .timedOut: "timed out"
        case .cancelled: "cancelled"
        }
    }
}

@Suite("HTTP clients against scripted servers", .timeLimit(.minutes(2)))
struct ScriptedServerTests {
    static let ok = Ending.response(status: 200, bodyBytes: ScriptedHTTPServer.body.utf8.count, count: 42)
    static let cases: [(path: String, ending: Ending)] = [
        ("/chunked", ok),
        ("/close", ok),
        ("/until-close", ok),
        ("/slow", ok),
        ("/continue", ok),
        ("/bare-lf", ok),
        ("/500", .response(status: 500, bodyBytes: 21, count: nil)),
        ("/mid-body", .failed(.connectionReset)),
        ("/nothing", .failed(.connectionReset)),
        ("/malformed-ssh", .failed(.transport)),
        ("/malformed-code", .failed(.transport)),
        ("/hang", .timedOut),
    ]

    /// Every scripted answer, one request each on a fresh client: the same ending on both clients.
    @Test(arguments: HTTPClientChoice.implementations)
    func eachAnswerEndsTheSameOnBothClients(client: HTTPClientChoice) async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        for (path, expected) in Self.cases {
            let completions = Completions()
            let configuration = HTTPLoadClient.Configuration(defaultTimeoutNanos: 300_000_000, countPath: try JSONCountPath("total"), client: client)
            try await HTTPLoadClient.withClient(configuration: configuration, onCompletion: completions.record) { http in
                http.submit(id: 1, url: server.url(path))
                #expect(completions.wait(count: 1, seconds: 10), "\(path)")
            }
            let completion = try #require(completions.list.first, "\(path)")
            #expect(Ending(completion) == expected, "\(client) \(path): \(Ending(completion)), \(completion.outcome)")
            if case .response = expected {
                #expect(completion.newConnections == 1, "\(path)")
                #expect(completion.firstByteNanos != nil, "\(path)")
            }
        }
    }

    /// Several requests one after another on one client: keep-alive answers share a connection,
    /// `Connection: close` and bodies until the close make the next request open a new one, and
    /// a failure in between leaves the client working.
    @Test(arguments: HTTPClientChoice.implementations)
    func connectionsAreReusedOrReopenedAsTheServerSays(client: HTTPClientChoice) async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let paths = ["/keep", "/chunked", "/500", "/keep", "/close", "/keep", "/mid-body", "/keep", "/until-close", "/slow"]
        let completions = Completions()
        let configuration = HTTPLoadClient.Configuration(maxConnections: 1, defaultTimeoutNanos: 5_000_000_000,
                                                         countPath: try JSONCountPath("total"), client: client)
        try await HTTPLoadClient.withClient(configuration: configuration, onCompletion: completions.record) { http in
            for (index, path) in paths.enumerated() {
                http.submit(id: UInt64(index), url: server.url(path))
                #expect(completions.wait(count: 1), "\(path)")
            }
        }
        let byID = Dictionary(uniqueKeysWithValues: completions.list.map { ($0.id, $0) })
        let endings = paths.indices.map { byID[UInt64($0)].map(Ending.init) }
        let fiveHundred = Ending.response(status: 500, bodyBytes: 21, count: nil)
        #expect(endings == [Self.ok, Self.ok, fiveHundred, Self.ok, Self.ok, Self.ok, .failed(.connectionReset), Self.ok, Self.ok, Self.ok])
        // New connections: the first; after /close; after /mid-body; after /until-close.
        let opened = paths.indices.map { byID[UInt64($0)]?.newConnections ?? -1 }
        #expect(opened == [1, 0, 0, 0, 0, 1, 0, 1, 0, 1], "\(opened)")
    }

    /// A reused connection the server closes instead of answering: the request goes again on a
    /// new connection (as curl does), and succeeds.
    @Test(arguments: HTTPClientChoice.implementations)
    func aRequestOnAConnectionClosedUnderItIsSentAgain(client: HTTPClientChoice) async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let completions = Completions()
        let configuration = HTTPLoadClient.Configuration(maxConnections: 1, countPath: try JSONCountPath("total"), client: client)
        try await HTTPLoadClient.withClient(configuration: configuration, onCompletion: completions.record) { http in
            http.submit(id: 1, url: server.url("/drop-second"))
            #expect(completions.wait(count: 1))
            http.submit(id: 2, url: server.url("/drop-second"))
            #expect(completions.wait(count: 1))
        }
        let list = completions.list.sorted { $0.id < $1.id }
        try #require(list.count == 2)
        #expect(list.map(Ending.init) == [Self.ok, Self.ok])
        #expect(list[1].newConnections == 1)
    }

    /// An abort while the answer trickles in closes the connection at once; the next request
    /// opens a new one.
    @Test(arguments: HTTPClientChoice.implementations)
    func anAbortClosesTheConnection(client: HTTPClientChoice) async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let completions = Completions()
        try await HTTPLoadClient.withClient(configuration: .init(maxConnections: 1, client: client), onCompletion: completions.record) { http in
            http.submit(id: 1, url: server.url("/hang"))
            try await Task.sleep(for: .milliseconds(50))
            http.abort(id: 1)
            #expect(completions.wait(count: 1))
            http.submit(id: 2, url: server.url("/keep"))
            #expect(completions.wait(count: 1))
        }
        let list = completions.list.sorted { $0.id < $1.id }
        try #require(list.count == 2)
        #expect(Ending(list[0]) == .cancelled)
        if case .cancelled(_, let stopNanos) = list[0].outcome { #expect(stopNanos < 1_000_000_000) }
        #expect(Ending(list[1]) == .response(status: 200, bodyBytes: ScriptedHTTPServer.body.utf8.count, count: nil))
        #expect(list[1].newConnections == 1)
    }

    /// With one connection, requests queue for it; one that waits past its timeout times out
    /// without ever being sent.
    @Test func requestsWaitForAConnectionAndTimeOutWaiting() async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let completions = Completions()
        try await HTTPLoadClient.withClient(configuration: .init(maxConnections: 1, client: .plain), onCompletion: completions.record) { http in
            http.submit(id: 1, url: server.url("/hang"), timeoutNanos: 400_000_000)
            http.submit(id: 2, url: server.url("/keep"), timeoutNanos: 150_000_000)
            http.submit(id: 3, url: server.url("/keep"), timeoutNanos: 5_000_000_000)
            #expect(completions.wait(count: 3))
        }
        let byID = Dictionary(uniqueKeysWithValues: completions.list.map { ($0.id, Ending($0)) })
        #expect(byID[1] == .timedOut)
        #expect(byID[2] == .timedOut)
        #expect(byID[3] == .response(status: 200, bodyBytes: ScriptedHTTPServer.body.utf8.count, count: nil))
    }
}

@Suite("The plain client's response parser")
struct PlainHTTPParserTests {
    /// Feeds `response` in two pieces split at `split` and returns the last result and the
    /// connection state.
    func parse(_ response: String, split: Int, keepBody: Bool = true) -> (result: Int, status: Int, body: String, keepAlive: Bool) {
        var conn = CPlainHTTP_Conn()
        #expect(CPlainHTTP_conn_init(&conn, keepBody ? 1 : 0) == 0)
        defer { CPlainHTTP_conn_free(&conn) }
        var bytes = Array(response.utf8)
        var result = Int(CPlainHTTP_more)
        for piece in [bytes[..<split], bytes[split...]] where !piece.isEmpty && result == Int(CPlainHTTP_more) {
            result = Array(piece).withUnsafeBufferPointer { Int(CPlainHTTP_feed(&conn, $0.baseAddress, $0.count)) }
        }
        bytes = conn.body_len > 0 ? Array(UnsafeBufferPointer(start: conn.body, count: conn.body_len)) : []
        return (result, Int(conn.status), String(decoding: bytes, as: UTF8.self), conn.keep_alive != 0)
    }

    @Test func aChunkedBodySplitAnywhereDecodesWhole() {
        let response = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n3;x=y\r\n{\"a\r\nA\r\n\": 1234567\r\n1\r\n}\r\n0\r\nTrailer: t\r\n\r\n"
        for split in 0...response.utf8.count {
            let parsed = parse(response, split: split)
            #expect(parsed.result == Int(CPlainHTTP_done), "split at \(split)")
            #expect(parsed.body == #"{"a": 1234567}"#, "split at \(split)")
            #expect(parsed.keepAlive)
        }
    }

    @Test func lengthsAndConnectionHeadersAreRead() {
        let close = parse("HTTP/1.1 200 OK\r\nconnection: Close\r\ncontent-length: 2\r\n\r\n{}", split: 20)
        #expect(close.result == Int(CPlainHTTP_done) && close.body == "{}" && !close.keepAlive)
        let keep = parse("HTTP/1.0 204 No Content\r\nConnection: keep-alive\r\n\r\n", split: 5)
        #expect(keep.result == Int(CPlainHTTP_done) && keep.status == 204 && keep.keepAlive)
        let old = parse("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", split: 0)
        #expect(old.result == Int(CPlainHTTP_done) && !old.keepAlive)
        let extra = parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}garbage", split: 3)
        #expect(extra.result == Int(CPlainHTTP_done) && extra.body == "{}" && !extra.keepAlive)
    }

    @Test func malformedAnswersAreNamed() {
        #expect(parse("HTTP/1.1 20 OK\r\n\r\n", split: 0).result == Int(CPlainHTTP_malformed_status))
        #expect(parse("HTTP/2 200\r\n\r\n", split: 0).result == Int(CPlainHTTP_malformed_status))
        #expect(parse("<html>hello</html>", split: 0).result == Int(CPlainHTTP_malformed_status))
        #expect(parse("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", split: 0).result == Int(CPlainHTTP_malformed_length))
        #expect(parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", split: 0).result == Int(CPlainHTTP_malformed_length))
        #expect(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", split: 0).result == Int(CPlainHTTP_malformed_chunk))
        #expect(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", split: 0).result == Int(CPlainHTTP_malformed_chunk))
    }

    @Test func aCloseEndsOnlyABodyWithoutLength() {
        var conn = CPlainHTTP_Conn()
        #expect(CPlainHTTP_conn_init(&conn, 0) == 0)
        defer { CPlainHTTP_conn_free(&conn) }
        #expect(CPlainHTTP_feed(&conn, nil, 0) == Int32(CPlainHTTP_closed_empty))
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345".utf8)
        var other = CPlainHTTP_Conn()
        #expect(CPlainHTTP_conn_init(&other, 0) == 0)
        defer { CPlainHTTP_conn_free(&other) }
        #expect(head.withUnsafeBufferPointer { CPlainHTTP_feed(&other, $0.baseAddress, $0.count) } == Int32(CPlainHTTP_more))
        #expect(other.body_bytes == 5)
        #expect(CPlainHTTP_feed(&other, nil, 0) == Int32(CPlainHTTP_closed_in_body))
    }
}
