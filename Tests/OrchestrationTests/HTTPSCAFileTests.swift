import Foundation
import Glibc
import TypestormMetrics
import Testing
@testable import Orchestration

/// nginx on 127.0.0.1 serving a static JSON answer over TLS, with a certificate signed by a CA
/// made for the test (openssl, in a temporary directory); `stop()` ends it.
final class TLSJSONServer {
    static let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var toolsPresent: Bool { nginx != nil && openssl != nil }

    let port: UInt16
    /// The PEM file of the CA that signed the server's certificate.
    let caFile: String
    private let process: Process

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(directory: TemporaryDirectory, body: String) throws {
        guard let nginx = Self.nginx, let openssl = Self.openssl else { throw Failure(description: "nginx or openssl is missing") }
        let dir = directory.file("tls")
        try FileManager.default.createDirectory(atPath: dir + "/tmp", withIntermediateDirectories: true)
        func run(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: dir)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw Failure(description: "openssl \(arguments.joined(separator: " ")) failed") }
        }
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(["req", "-x509"] + curve + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Typestorm test CA"])
        try run(["req"] + curve + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n".write(toFile: dir + "/ext.cnf", atomically: true, encoding: .utf8)
        try run(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
                 "-days", "2", "-extfile", "ext.cnf"])
        caFile = dir + "/ca.pem"

        port = try Self.freePort()
        let escaped = body.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        try """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(dir)/nginx.pid;
        error_log \(dir)/error.log;
        events { worker_connections 64; }
        http {
          access_log off;
          client_body_temp_path \(dir)/tmp/body;
          proxy_temp_path \(dir)/tmp/proxy;
          fastcgi_temp_path \(dir)/tmp/fastcgi;
          uwsgi_temp_path \(dir)/tmp/uwsgi;
          scgi_temp_path \(dir)/tmp/scgi;
          server {
            listen 127.0.0.1:\(port) ssl;
            ssl_certificate \(dir)/server.pem;
            ssl_certificate_key \(dir)/server.key;
            location / { default_type application/json; return 200 '\(escaped)'; }
          }
        }
        """.write(toFile: dir + "/nginx.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", dir, "-c", dir + "/nginx.conf", "-e", dir + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Ready once it accepts a connection (generous: the machine may be loaded).
        let deadline = Date().addingTimeInterval(20)
        while !Self.accepts(port) {
            guard process.isRunning, Date() < deadline else {
                stop()
                let log = (try? String(contentsOfFile: dir + "/error.log", encoding: .utf8)) ?? ""
                throw Failure(description: "nginx did not start on 127.0.0.1:\(port): \(log)")
            }
            usleep(50_000)
        }
    }

    /// SIGKILL: nginx without a master process started from a test thread has SIGTERM blocked
    /// (spawned children inherit the thread's signal mask), and it keeps nothing worth flushing.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A loopback port bound, read and released (nginx takes it right after).
    static func freePort() throws -> UInt16 {
        let bound = try RefusingPort()
        defer { bound.close() }
        return bound.port
    }

    static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// An `http-url` runner over HTTPS against a real TLS server whose certificate only the
/// scenario's `caFile` vouches for.
@Suite("HTTPS with a custom CA", .timeLimit(.minutes(5)))
struct HTTPSCAFileTests {
    @Test(.enabled(if: TLSJSONServer.toolsPresent, "needs nginx and openssl (scripts/bootstrap --test installs them)"))
    func theCAFileMakesTheCertificateTrustedAndItsAbsenceIsATLSFailure() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let server = try TLSJSONServer(directory: directory, body: #"{"total": 7}"#)
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/search?q={query}"

        // caFile relative to the scenario's directory, as a user writes it.
        let trusted = try httpURLBackend(#""url": "\#(url)", "count": "total", "caFile": "tls/ca.pem""#, baseDirectory: directory.url.path)
        defer { trusted.shutdown() }
        let answered = await searchOnce(trusted)
        #expect(answered.result == .results(count: 7), "\(answered.result), cause \(String(describing: answered.errorCause))")

        let untrusted = try httpURLBackend(#""url": "\#(url)", "count": "total""#)
        defer { untrusted.shutdown() }
        let refused = await searchOnce(untrusted)
        #expect(refused.result == .failed(.transport), "\(refused.result)")
        #expect(refused.errorCause == .tls, "\(String(describing: refused.errorCause))")
    }
}
