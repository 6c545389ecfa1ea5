import Dispatch
import Foundation
import Glibc
import TypestormMetrics
import SearchField
import Locking
import Testing
@testable import LiveLoad

/// A server that reads one whole request (headers and the Content-Length body) and answers
/// `{"total": 3}`, keeping what it read.
final class RecordingServer: Sendable {
    let port: UInt16
    private let listener: Int32
    let received = Locked<String>("")
    let done = DispatchSemaphore(value: 0)

    init() throws {
        (listener, port) = try listenOnLoopback()
        Thread { [self] in serve() }.start()
    }

    private func serve() {
        let client = accept(listener, nil, nil)
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        func complete() -> Bool {
            guard let end = String(decoding: request, as: UTF8.self).range(of: "\r\n\r\n") else { return false }
            let text = String(decoding: request, as: UTF8.self)
            let head = text[..<end.lowerBound].lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }.flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
            return text[end.upperBound...].utf8.count >= length
        }
        while !complete() {
            let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { break }
            request.append(contentsOf: chunk[0..<n])
        }
        received.withLock { $0 = String(decoding: request, as: UTF8.self) }
        let body = #"{"total": 3}"#
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)
        _ = response.withUnsafeBytes { send(client, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        close(client)
        close(listener)
        done.signal()
    }
}

@Suite("POST search requests", .timeLimit(.minutes(5)))
struct PostBodyTests {
    @Test func bodyTemplatesFillInJSONEscapedValues() throws {
        let template = try BodyTemplate(#"{"q": "{query}", "filter": {"scope": "{scope}"}, "limit": {limit}}"#)
        #expect(template.render(query: #"a "quoted"\ lamp"#, scope: "rooms", limit: 5) == #"{"q": "a \"quoted\"\\ lamp", "filter": {"scope": "rooms"}, "limit": 5}"#)
        #expect(throws: URLTemplate.ParseError.self) { try BodyTemplate(#"{"q": "{qeury}"}"#) }
        #expect(throws: URLTemplate.ParseError.self) { try BodyTemplate(#"{"q": "x"}"#) }
    }

    @Test(arguments: HTTPClientChoice.implementations)
    func aTargetWithABodyPostsJSON(client: HTTPClientChoice) async throws {
        let server = try RecordingServer()
        let target = HTTPSearchTarget(template: try URLTemplate("http://127.0.0.1:\(server.port)/indexes/p/search", requiresQuery: false), countPath: try JSONCountPath("total"),
                                      body: try BodyTemplate(#"{"q": "{query}", "limit": {limit}}"#))
        let backend = try HTTPSearchBackend(target: target, client: client)
        defer { backend.shutdown() }
        let (stream, continuation) = AsyncStream<LiveSearchOutcome>.makeStream()
        _ = backend.start(LiveSearchRequest(typist: 0, id: 1, query: QueryIdentity(text: "램프"), local: false, intendedNanos: 0)) { continuation.yield($0) }
        var outcome: LiveSearchOutcome?
        for await next in stream { outcome = next; break }
        #expect(outcome?.result == .results(count: 3))
        #expect(server.done.wait(timeout: .now() + 5) == .success)
        let request = server.received.withLock { $0 }
        #expect(request.hasPrefix("POST /indexes/p/search HTTP/1.1\r\n"), "\(request)")
        #expect(request.contains("\r\nContent-Type: application/json\r\n"), "\(request)")
        #expect(request.hasSuffix("\r\n\r\n" + #"{"q": "램프", "limit": 20}"#), "\(request)")
        #expect(request.contains("\r\nContent-Length: \(#"{"q": "램프", "limit": 20}"#.utf8.count)\r\n"), "\(request)")
    }
}
