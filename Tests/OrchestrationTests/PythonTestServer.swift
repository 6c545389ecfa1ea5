import Foundation
import Testing

/// A search API Typestorm did not write: a small threaded Python HTTP server on loopback,
/// answering `GET /search?q=…` with JSON as Python's `json.dumps` writes it (pretty-printed, or
/// with its default spacing), optionally after a fixed sleep per request, with TCP_NODELAY unless
/// asked to reproduce the Nagle/delayed-ACK stall (`splitWrites`).
///
/// Modes (`shape`): `pretty-total` (`{"query": …, "total": N, "items": […]}` indented),
/// `spaced-total` (the same with `json.dumps`' default `", "`/`": "` spacing), `no-count`
/// (`{"items": […]}`), `array` (a bare array of items).
final class PythonTestServer: @unchecked Sendable {
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static let script = #"""
    import json, sys, time, threading
    from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
    from urllib.parse import urlparse, parse_qs

    shape = sys.argv[1]
    sleep_s = float(sys.argv[2]) / 1000.0
    split_writes = sys.argv[3] == "split"

    def items_for(q):
        n = (sum(q.encode()) % 7) if q else 0
        if q.startswith("zz"):
            n = 0
        return n, [{"id": i, "name": q + " item " + str(i)} for i in range(n)]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as two writes; without TCP_NODELAY the second waits for the
        # client's delayed ACK on a reused connection (the Nagle/delayed-ACK stall).
        disable_nagle_algorithm = not split_writes
        def log_message(self, *args):
            pass
        def do_GET(self):
            url = urlparse(self.path)
            q = parse_qs(url.query).get("q", [""])[0]
            if sleep_s > 0:
                time.sleep(sleep_s)
            n, items = items_for(q)
            if shape == "pretty-total":
                body = json.dumps({"query": q, "total": n, "items": items}, indent=2)
            elif shape == "spaced-total":
                body = json.dumps({"query": q, "total": n, "items": items})
            elif shape == "no-count":
                body = json.dumps({"query": q, "items": items}, indent=2)
            else:
                body = json.dumps(items, indent=2)
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 512

    server = Server(("127.0.0.1", 0), Handler)
    print("PORT", server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    """#

    let process = Process()
    let input = Pipe()
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server; it stops when this object is stopped (its standard input closes).
    /// `splitWrites`: leave Nagle's algorithm on, so the two writes of each answer (headers, then
    /// body) stall on the client's delayed ACK on reused connections, as many small servers do.
    convenience init(shape: String, sleepMilliseconds: Int = 0, splitWrites: Bool = false) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("typestorm-pyserver-\(UUID().uuidString).py")
        try Self.script.write(to: file, atomically: true, encoding: .utf8)
        try self.init(script: file.path, arguments: [shape, "\(sleepMilliseconds)", splitWrites ? "split" : "nodelay"])
    }

    /// Starts the Python program `script` with `arguments`; it prints `PORT n` on its first line
    /// and serves on 127.0.0.1 until its standard input closes.
    init(script: String, arguments: [String]) throws {
        let python = try #require(Self.python, "python3 is needed for the foreign test server")
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw ServerFailure(description: "the Python test server did not start: '\(text)'")
        }
        self.port = port
    }

    struct ServerFailure: Error, CustomStringConvertible {
        var description: String
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Runs `body` with a started server and stops it afterwards.
    static func with<T>(shape: String, sleepMilliseconds: Int = 0, splitWrites: Bool = false,
                        _ body: (PythonTestServer) async throws -> T) async throws -> T {
        let server = try PythonTestServer(shape: shape, sleepMilliseconds: sleepMilliseconds, splitWrites: splitWrites)
        defer { server.stop() }
        return try await body(server)
    }
}
