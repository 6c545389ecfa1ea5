import Foundation
import Measurement
import SearchServer
import Testing
@testable import Orchestration

@Suite("Embedded server")
struct EmbeddedServerTests {
    /// One HTTP/1.0 GET over a plain socket; returns the status line.
    func get(_ baseURL: String, _ path: String) throws -> String {
        let port = UInt16(baseURL.split(separator: ":").last!)!
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        return String(decoding: response, as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
    }

    @Test func servesWhileTheBodyRunsAndReportsItsCounters() async throws {
        let group = try await EmbeddedServerFactory.withServer(backend: SubstringBackend.synthetic(count: 500), threads: 1) { server in
            #expect(server.baseURL.hasPrefix("http://127.0.0.1:"))
            let first = try get(server.baseURL, "/search?q=a")
            let second = try get(server.baseURL, "/search?q=b&limit=5")
            #expect(first.hasSuffix(" 200 OK"))
            #expect(second.hasSuffix(" 200 OK"))
            return server.metricsGroup()
        }
        #expect(group.name == "server")
        #expect(group.labels == ["runner": "http-embedded"])
        #expect(group.metrics.counter("server_requests") == 2)
        #expect(group.metrics.counter("server_ok") == 2)
        #expect(group.metrics.counter("server_items_scanned") > 0)
    }
}
