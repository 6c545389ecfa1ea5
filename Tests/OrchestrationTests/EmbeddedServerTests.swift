import Foundation
import TypestormMetrics
import SearchServer
import TestBackends
import Testing
@testable import Orchestration

@Suite("Embedded server", .timeLimit(.minutes(5)))
struct EmbeddedServerTests {
    /// One HTTP/1.0 GET; returns the status line.
    func get(_ baseURL: String, _ path: String) throws -> String {
        let port = UInt16(baseURL.split(separator: ":").last!)!
        return try httpGet(port: port, path).split(separator: "\r\n").first.map(String.init) ?? ""
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
