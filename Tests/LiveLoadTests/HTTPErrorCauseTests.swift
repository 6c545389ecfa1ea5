import Foundation
import Glibc
import TypestormMetrics
import SearchField
import SearchServer
import TestBackends
import Testing
@testable import LiveLoad

@Suite("HTTP failures by cause", .timeLimit(.minutes(5)))
struct HTTPErrorCauseTests {
    /// Sends one search through `backend` and returns how it ended.
    func one(_ backend: HTTPSearchBackend) async -> LiveSearchOutcome {
        let (stream, continuation) = AsyncStream<LiveSearchOutcome>.makeStream()
        _ = backend.start(LiveSearchRequest(typist: 0, id: 1, query: QueryIdentity(text: "a"), local: false, intendedNanos: 0)) {
            continuation.yield($0)
        }
        for await outcome in stream { return outcome }
        fatalError("no outcome")
    }

    func server() -> SearchServerConfiguration {
        var configuration = SearchServerConfiguration()
        configuration.port = 0
        configuration.drainTimeoutSeconds = 2
        return configuration
    }

    @Test(arguments: HTTPClientChoice.implementations)
    func aRefusedConnectionIsNamed(client: HTTPClientChoice) async throws {
        // Bound but not listening: the kernel refuses every connection.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        let url = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/search?q={query}"
        let backend = try HTTPSearchBackend(target: HTTPSearchTarget(template: try URLTemplate(url), countPath: nil), client: client)
        defer { backend.shutdown() }
        let outcome = await one(backend)
        #expect(outcome.result == .failed(.transport))
        #expect(outcome.errorCause == .connectionRefused)
    }

    @Test(arguments: HTTPClientChoice.implementations)
    func aServerErrorIsNamedByItsStatus(client: HTTPClientChoice) async throws {
        var failing = server()
        failing.faults.errorRate = 1
        try await SearchServer.withServer(configuration: failing, backend: SubstringBackend(names: ["a"])) { server in
            let backend = try HTTPSearchBackend(target: HTTPSearchTarget(template: try URLTemplate(server.baseURL + "/search?q={query}"), countPath: nil),
                                                client: client)
            defer { backend.shutdown() }
            let outcome = await one(backend)
            #expect(outcome.result == .failed(.serverError))
            #expect(outcome.errorCause == .httpStatus(500))
        }
    }

    @Test(arguments: HTTPClientChoice.implementations)
    func aMissingCountFailsTheResponseCheck(client: HTTPClientChoice) async throws {
        try await SearchServer.withServer(configuration: server(), backend: SubstringBackend(names: ["a", "ab"])) { server in
            let template = try URLTemplate(server.baseURL + "/search?q={query}")
            // The embedded server answers {"total": …}: an Elasticsearch count path is absent.
            let wrong = try HTTPSearchBackend(target: HTTPSearchTarget(template: template, countPath: try JSONCountPath("hits.total.value")), client: client)
            defer { wrong.shutdown() }
            let missing = await one(wrong)
            #expect(missing.result == .failed(.serverError))
            #expect(missing.errorCause == .countMissing)
            let right = try HTTPSearchBackend(target: HTTPSearchTarget(template: template, countPath: try JSONCountPath("total")),
                                              compressed: client == .curl, client: client)
            defer { right.shutdown() }
            #expect(await one(right).result == .results(count: 2))
        }
    }

    @Test func thePlainClientRefusesAnHTTPSTarget() throws {
        let target = HTTPSearchTarget(template: try URLTemplate("https://127.0.0.1:9/search?q={query}"), countPath: nil)
        #expect(throws: SetupError.self) { _ = try HTTPSearchBackend(target: target, client: .plain) }
    }
}
