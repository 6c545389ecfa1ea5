import Dispatch
import Foundation
import Glibc
import Matching
import TypestormSystem
import SearchServer
import Locking
import Synchronization
import TestBackends
import Testing
@testable import LiveLoad

@Suite("URL templates and count paths", .timeLimit(.minutes(5)))
struct TemplateTests {
    @Test func rendersAndPercentEncodes() throws {
        let template = try URLTemplate("http://127.0.0.1:7700/search?q={query}&scope={scope}&t={tokens}&n={limit}&o={offset}")
        #expect(template.render(query: "red & blue #1", scope: "가구", tokens: ["a b", "c"], limit: 5, offset: 10)
            == "http://127.0.0.1:7700/search?q=red%20%26%20blue%20%231&scope=%EA%B0%80%EA%B5%AC&t=a%20b%2Cc&n=5&o=10")
        #expect(template.render(query: "x") == "http://127.0.0.1:7700/search?q=x&scope=&t=&n=20&o=0")
    }

    @Test(arguments: [
        ("ftp://host/{query}", "must start with http"),
        ("http://host/search?q={query", "without a closing"),
        ("http://host/search?q={qurey}", "unknown placeholder {qurey}"),
        ("http://host/search?q=x}", "without an opening"),
        ("http://host/search", "no {query} placeholder"),
    ])
    func rejectsBadTemplates(template: String, phrase: String) {
        do {
            _ = try URLTemplate(template)
            Issue.record("accepted \(template)")
        } catch {
            #expect(error.description.contains(phrase), "\(error)")
        }
    }

    @Test(arguments: [
        ("total", #"{"items":[{"total":9}],"total":42}"#, 42),
        ("hits.total.value", #"{"took":3,"hits":{"total":{"value":1234,"relation":"eq"},"hits":[]}}"#, 1234),
        ("items.#", #"{"items":[{"a":"x]"},[1,2],"s\"}"], "total": 7}"#, 3),
        ("items.#", #"{"items":[]}"#, 0),
        ("results.1.count", #"{"results":[{"count":1},{"count":2.0e1}]}"#, 20),
    ])
    func extractsCounts(path: String, json: String, expected: Int) throws {
        #expect(try JSONCountPath(path).extract(from: Array(json.utf8)) == expected)
    }

    @Test func missingOrWrongTypesGiveNil() throws {
        #expect(try JSONCountPath("total").extract(from: Array(#"{"count":3}"#.utf8)) == nil)
        #expect(try JSONCountPath("items.#").extract(from: Array(#"{"items":{"a":1}}"#.utf8)) == nil)
        #expect(try JSONCountPath("total").extract(from: Array("not json".utf8)) == nil)
        #expect(throws: JSONCountPath.ParseError.self) { try JSONCountPath("a..b") }
        #expect(throws: JSONCountPath.ParseError.self) { try JSONCountPath("a.#.b") }
    }
}

/// Collects completions delivered on the client's thread.
final class Completions: Sendable {
    let all = Locked<[HTTPCompletion]>([])
    let arrived = DispatchSemaphore(value: 0)

    func record(_ completion: HTTPCompletion) {
        all.withLock { $0.append(completion) }
        arrived.signal()
    }

    func wait(count: Int, seconds: Double = 10) -> Bool {
        for _ in 0..<count where arrived.wait(timeout: .now() + seconds) != .success { return false }
        return true
    }

    var list: [HTTPCompletion] { all.withLock { $0 } }
}

/// Blocks in `search` until cancelled (or 10 s), polling `isCancelled` like a scan.
final class BlockingBackend: SearchBackend {
    let started = DispatchSemaphore(value: 0)

    func search(_ request: SearchRequest, isCancelled: () -> Bool) throws -> BackendResult {
        started.signal()
        let deadline = MonotonicClock.now() + 10_000_000_000
        var scanned = 0
        while MonotonicClock.now() < deadline {
            scanned += 1
            if isCancelled() { throw SearchCancelled(itemsScanned: scanned) }
        }
        return BackendResult(items: [], total: 0, path: "blocking", itemsScanned: scanned)
    }
}

private func serverConfiguration() -> SearchServerConfiguration {
    var configuration = SearchServerConfiguration()
    configuration.port = 0
    configuration.drainTimeoutSeconds = 2
    return configuration
}

@Suite("HTTPLoadClient against the search server", .timeLimit(.minutes(5)))
struct HTTPLoadClientTests {
    /// With 3 threads each carries a third of the connections and of the requests (id % 3).
    @Test(arguments: [1, 3], HTTPClientChoice.implementations)
    func manyConcurrentRequestsCompleteWithParsedCounts(threads: Int, client: HTTPClientChoice) async throws {
        let backend = SubstringBackend.synthetic(count: 2_000)
        let queries = ["red", "lamp", "blue chair", "wireless", "zzz", "1", "mini tent", "steel"]
        let expected = try queries.map { try backend.search(SearchRequest(text: $0, limit: 20, needsTotal: true), isCancelled: { false }).total }
        try await SearchServer.withServer(configuration: serverConfiguration(), backend: backend) { server in
            let target = try HTTPSearchTarget.embeddedServer(baseURL: server.baseURL)
            let completions = Completions()
            // 1,000 requests queue behind 100 connections: the last waits for all before it, so
            // the timeouts stretch by the sanitizers' slowdown (scripts/sanitize sets the scale).
            let scale = testTimeScale
            var configuration = target.clientConfiguration(maxConnections: 100, defaultTimeoutNanos: UInt64(10_000_000_000 * scale), client: client)
            configuration.threads = threads
            try await HTTPLoadClient.withClient(configuration: configuration, onCompletion: completions.record) { client in
                #expect(client.threadCount == threads)
                #expect(client.client == configuration.client)
                let count = 1000
                for i in 0..<count {
                    client.submit(id: UInt64(i), url: target.url(query: queries[i % queries.count]))
                }
                #expect(completions.wait(count: count, seconds: 10 * scale))
                let results = completions.list
                #expect(results.count == count)
                #expect(Set(results.map(\.id)).count == count)
                for completion in results {
                    guard case .response(let status, let bytes, let total, let body) = completion.outcome else {
                        Issue.record("request \(completion.id): \(completion.outcome)")
                        continue
                    }
                    #expect(status == 200)
                    #expect(bytes > 0)
                    #expect(body == nil)
                    #expect(total == expected[Int(completion.id) % queries.count])
                    #expect(completion.finishedNanos >= completion.startedNanos)
                    #expect(completion.latencyNanos >= completion.finishedNanos - completion.startedNanos)
                }
                #expect(client.outstanding == 0)
            }
            // Connections were reused: at most the client's limit for 1,000 requests.
            let metrics = server.metrics
            #expect(metrics.count(endpoint: "search", status: 200) == 1000)
            #expect(metrics.connectionsAccepted >= 1)
            #expect(metrics.connectionsAccepted <= 100)
        }
    }

    @Test(arguments: HTTPClientChoice.implementations)
    func abortCancelsTheTransferAndTheServerStopsScanning(client: HTTPClientChoice) async throws {
        let backend = BlockingBackend()
        try await SearchServer.withServer(configuration: serverConfiguration(), backend: backend) { server in
            let completions = Completions()
            try await HTTPLoadClient.withClient(configuration: .init(client: client), onCompletion: completions.record) { client in
                client.submit(id: 7, url: server.baseURL + "/search?q=slow")
                #expect(backend.started.wait(timeout: .now() + 5) == .success)
                client.abort(id: 7)
                #expect(completions.wait(count: 1))
                let completion = try #require(completions.list.first)
                guard case .cancelled(_, let stopNanos) = completion.outcome else {
                    Issue.record("expected cancelled, got \(completion.outcome)")
                    return
                }
                #expect(stopNanos < 1_000_000_000)
                client.abort(id: 7)  // already completed: ignored
            }
            let deadline = Date().addingTimeInterval(5)
            while server.metrics.cancelled == 0, Date() < deadline { try? await Task.sleep(for: .milliseconds(1)) }
            #expect(server.metrics.cancelled == 1)
            #expect(server.metrics.wastedItems > 0)
        }
    }

    @Test(arguments: HTTPClientChoice.implementations)
    func perRequestTimeoutFires(client: HTTPClientChoice) async throws {
        let backend = BlockingBackend()
        try await SearchServer.withServer(configuration: serverConfiguration(), backend: backend) { server in
            let completions = Completions()
            try await HTTPLoadClient.withClient(configuration: .init(client: client), onCompletion: completions.record) { client in
                client.submit(id: 1, url: server.baseURL + "/search?q=slow", timeoutNanos: 150_000_000)
                #expect(completions.wait(count: 1))
                let completion = try #require(completions.list.first)
                #expect(completion.outcome == .timedOut)
                #expect(completion.finishedNanos - completion.startedNanos >= 150_000_000)
            }
        }
    }

    @Test(arguments: HTTPClientChoice.implementations)
    func futureRequestsWaitForTheirIntendedTimeAndLatencyCountsFromIt(client: HTTPClientChoice) async throws {
        try await SearchServer.withServer(configuration: serverConfiguration(), backend: SubstringBackend(names: ["a"])) { server in
            let completions = Completions()
            try await HTTPLoadClient.withClient(configuration: .init(client: client), onCompletion: completions.record) { client in
                let now = MonotonicClock.now()
                client.submit(id: 1, url: server.baseURL + "/search?q=a", intendedNanos: now + 40_000_000)
                client.submit(id: 2, url: server.baseURL + "/search?q=a", intendedNanos: now + 60_000_000)
                client.submit(id: 3, url: server.baseURL + "/search?q=a", intendedNanos: now + 50_000_000)
                client.abort(id: 2)
                // A request intended in the past: its lateness is schedule lag, counted in latency.
                client.submit(id: 4, url: server.baseURL + "/search?q=a", intendedNanos: now - 30_000_000)
                #expect(completions.wait(count: 4))
                let byID = Dictionary(uniqueKeysWithValues: completions.list.map { ($0.id, $0) })
                let first = try #require(byID[1])
                #expect(first.startedNanos >= now + 40_000_000)
                #expect(first.scheduleLagNanos < 500_000_000)  // on time, give or take a loaded machine
                if case .cancelled = byID[2]?.outcome {} else { Issue.record("id 2 should be cancelled before sending") }
                #expect(try #require(byID[3]).startedNanos >= now + 50_000_000)
                let late = try #require(byID[4])
                #expect(late.scheduleLagNanos >= 30_000_000)
                #expect(late.latencyNanos >= 30_000_000)
                // Sent in intended order (completion order depends on the server, not checked).
                #expect(first.startedNanos < byID[3]!.startedNanos)
            }
        }
    }

    @Test(arguments: HTTPClientChoice.implementations)
    func refusedConnectionsFailWithTheReason(client: HTTPClientChoice) async throws {
        // Bind a port, then free it, so nothing listens there.
        let port = try await SearchServer.withServer(configuration: serverConfiguration(), backend: SubstringBackend(names: ["a"])) { $0.port }
        let (client, stream) = try HTTPLoadClient.makeStreaming(configuration: .init(client: client))
        client.submit(id: 1, url: "http://127.0.0.1:\(port)/search?q=a")
        var iterator = stream.makeAsyncIterator()
        let completion = try #require(await iterator.next())
        guard case .failed(let reason) = completion.outcome else {
            Issue.record("expected failure, got \(completion.outcome)")
            return
        }
        #expect(reason.lowercased().contains("connect"))
        #expect(completion.cause == .connectionRefused || completion.cause == .connectFailed)
        client.shutdown()
        #expect(await iterator.next() == nil)
    }

    @Test(arguments: HTTPClientChoice.implementations)
    func shutdownCancelsWhatIsOutstanding(client: HTTPClientChoice) async throws {
        let completions = Completions()
        let client = try HTTPLoadClient(configuration: .init(client: client), onCompletion: completions.record)
        client.submit(id: 1, url: "http://127.0.0.1:9/never", intendedNanos: MonotonicClock.now() + 60_000_000_000)
        client.shutdown()
        #expect(completions.list.count == 1)
        if case .cancelled = completions.list.first?.outcome {} else { Issue.record("expected cancelled") }
    }
}

/// A one-request HTTP server on a raw socket that answers with the request it received, so a
/// test can see exactly what the client sent.
final class EchoOnce: Sendable {
    let port: UInt16
    private let listener: Int32
    let done = DispatchSemaphore(value: 0)

    init() throws {
        (listener, port) = try listenOnLoopback()
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    private func serve() {
        let client = accept(listener, nil, nil)
        let request = readRequestHead(client)
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: \(request.count)\r\nConnection: close\r\n\r\n".utf8) + request
        _ = response.withUnsafeBytes { send(client, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        close(client)
        close(listener)
        done.signal()
    }
}

@Suite("HTTPLoadClient request details", .timeLimit(.minutes(5)))
struct HTTPLoadClientRequestTests {
    @Test(arguments: HTTPClientChoice.implementations)
    func extraHeadersAreSent(client: HTTPClientChoice) async throws {
        let echo = try EchoOnce()
        let completions = Completions()
        let configuration = HTTPLoadClient.Configuration(keepBodies: true, headers: ["X-Api-Key: secret-42"], client: client)
        try await HTTPLoadClient.withClient(configuration: configuration, onCompletion: completions.record) { client in
            client.submit(id: 1, url: "http://127.0.0.1:\(echo.port)/search?q=%EB%9E%A8")
            #expect(completions.wait(count: 1))
        }
        guard case .response(200, _, _, let body?) = completions.list.first?.outcome else {
            Issue.record("unexpected \(String(describing: completions.list.first?.outcome))")
            return
        }
        let request = String(decoding: body, as: UTF8.self)
        #expect(request.hasPrefix("GET /search?q=%EB%9E%A8 HTTP/1.1\r\n"))
        #expect(request.contains("\r\nX-Api-Key: secret-42\r\n"))
        #expect(request.contains("\r\nHost: 127.0.0.1:\(echo.port)\r\n"))
        #expect(request.contains("\r\nAccept: */*\r\n"))
        #expect(echo.done.wait(timeout: .now() + 5) == .success)
    }

    /// Between two requests a connection socket stays in the client's epoll set. The server
    /// closing it while it is idle must neither keep the loop awake (the socket is readable from
    /// then on) nor lose the next request, which curl sends on a new connection (its socket
    /// likely gets the closed one's number).
    @Test(.timeLimit(.minutes(1)), arguments: HTTPClientChoice.implementations)
    func anIdleConnectionTheServerClosesIsLetGo(client: HTTPClientChoice) async throws {
        let server = try KeepAliveThenClose(connections: 2, closeAfterMillis: 50)
        let completions = Completions()
        try await HTTPLoadClient.withClient(configuration: .init(client: client), onCompletion: completions.record) { client in
            client.submit(id: 1, url: "http://127.0.0.1:\(server.port)/search?q=a")
            #expect(completions.wait(count: 1))
            #expect(server.closed.wait(timeout: .now() + 5) == .success)
            let before = client.wakeups
            try await Task.sleep(for: .milliseconds(300))
            // Idle: the loop's own 1 s timeout and its timers, not one wake per readable poll.
            #expect(client.wakeups - before < 50)
            client.submit(id: 2, url: "http://127.0.0.1:\(server.port)/search?q=b")
            #expect(completions.wait(count: 1))
        }
        let list = completions.list.sorted { $0.id < $1.id }
        try #require(list.count == 2)
        for completion in list {
            guard case .response(200, 2, _, _) = completion.outcome else {
                Issue.record("request \(completion.id): \(completion.outcome)")
                continue
            }
            #expect(completion.newConnections == 1)
        }
        #expect(server.done.wait(timeout: .now() + 5) == .success)
    }

    @Test func thePlainClientRefusesWhatOnlyCurlDoes() throws {
        var compressed = HTTPLoadClient.Configuration(client: .plain)
        compressed.acceptCompressed = true
        #expect(throws: HTTPLoadClient.StartError.self) { _ = try HTTPLoadClient(configuration: compressed) { _ in } }
        compressed.client = .auto
        #expect(try HTTPLoadClient(configuration: compressed) { _ in }.client == .curl)
        #expect(try HTTPLoadClient { _ in }.client == .plain)
        #expect(HTTPClientChoice.auto.resolved(forURL: "https://example.com/s?q={query}") == .curl)
        #expect(HTTPClientChoice.auto.resolved(forURL: "http://user:pw@example.com/s?q={query}") == .curl)
        #expect(HTTPClientChoice.auto.resolved(forURL: "HTTP://example.com/s?q={query}") == .auto)
        #expect(HTTPClientChoice.plain.resolved(forURL: "https://example.com/") == .plain)
        #expect(HTTPClientChoice.plainRefusal(url: "https://example.com/")?.contains("http:// only") == true)
    }

    @Test func malformedHeadersAreRefused() {
        #expect(throws: HTTPLoadClient.StartError.self) {
            _ = try HTTPLoadClient(configuration: .init(headers: ["no colon here"])) { _ in }
        }
        #expect(throws: HTTPLoadClient.StartError.self) {
            _ = try HTTPLoadClient(configuration: .init(headers: ["X-A: b\r\nX-Injected: c"])) { _ in }
        }
    }

    @Test func timeHeapPopsInTimeOrder() {
        var heap = TimeHeap()
        var generator = SystemRandomNumberGenerator()
        let times = (0..<500).map { _ in UInt64.random(in: 0..<1_000_000, using: &generator) }
        for (id, time) in times.enumerated() { heap.push(time, UInt64(id)) }
        var popped: [UInt64] = []
        while let (time, _) = heap.peek() {
            popped.append(time)
            heap.pop()
        }
        #expect(popped == times.sorted())
    }
}

/// An HTTP/1.1 server on a raw socket that answers one keep-alive request per connection with
/// `{}` and closes the connection `closeAfterMillis` later, as a server's idle timeout would.
final class KeepAliveThenClose: Sendable {
    let port: UInt16
    private let listener: Int32
    /// Signalled each time a connection has been closed.
    let closed = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)

    init(connections: Int, closeAfterMillis: Int) throws {
        (listener, port) = try listenOnLoopback()
        let thread = Thread { [self] in serve(connections: connections, closeAfterMillis: closeAfterMillis) }
        thread.start()
    }

    private func serve(connections: Int, closeAfterMillis: Int) {
        for _ in 0..<connections {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { break }
            _ = readRequestHead(client)
            let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}".utf8)
            _ = response.withUnsafeBytes { send(client, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            usleep(UInt32(closeAfterMillis * 1000))
            close(client)
            closed.signal()
        }
        close(listener)
        done.signal()
    }
}

/// A listening TCP socket on 127.0.0.1 at a port the kernel picks.
func listenOnLoopback() throws -> (listener: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            bind(fd, generic, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, generic, &length) == 0
        }
    }
    guard bound else {
        close(fd)
        throw URLTemplate.ParseError(description: "cannot listen")
    }
    return (fd, UInt16(bigEndian: address.sin_port))
}

/// Reads from `client` up to the blank line that ends a request's head (or until it closes).
func readRequestHead(_ client: Int32) -> [UInt8] {
    var request: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while !request.suffix(4).elementsEqual("\r\n\r\n".utf8) {
        let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress!, $0.count, 0) }
        if n <= 0 { break }
        request.append(contentsOf: chunk[0..<n])
    }
    return request
}
