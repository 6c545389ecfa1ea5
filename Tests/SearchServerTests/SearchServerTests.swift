import Locking
import Dispatch
import Foundation
import Glibc
import TestBackends
import Matching
import Testing
@testable import SearchServer

private let names = ["Red Lamp", "Blue Lamp", "red chair", "Green Kettle", "Lamp Shade", "Desk lamp \"LED\"", "빨간 램프"]

private let catalog = SubstringBackend(items: names.enumerated().map { index, name in
    SubstringBackend.Item(name: name, scope: index % 2 == 0 ? "even" : "odd")
})

@Suite("SearchServer over real sockets", .timeLimit(.minutes(5)))
struct SearchServerTests {
    @Test func healthzAnswersOK() async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            let response = try fetch(server.port, "/healthz")
            #expect(response.status == 200)
            #expect(response.json["status"] as? String == "ok")
            #expect(response.headers["content-type"] == "application/json")
        }
    }

    @Test func searchReturnsThePageTotalPathAndTiming() async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            let response = try fetch(server.port, "/search?q=lamp&limit=2&offset=1")
            #expect(response.status == 200)
            let json = response.json
            #expect(json["total"] as? Int == 4)
            #expect(json["path"] as? String == "scan")
            let items = try #require(json["items"] as? [[String: Any]])
            #expect(items.map { $0["name"] as? String } == ["Blue Lamp", "Lamp Shade"])
            #expect(items.map { $0["id"] as? String } == ["1", "4"])
            let timing = try #require(json["timing"] as? [String: Any])
            #expect(timing["serviceMicros"] is Int)
            #expect(response.headers["server-timing"]?.contains("search;dur=") == true)
        }
    }

    @Test func aRepeatedFirstPageIsAnsweredFromTheCacheWithTheSameHits() async throws {
        var cached = configuration()
        cached.firstPageCacheEntries = 4096
        try await SearchServer.withServer(configuration: cached, backend: catalog) { server in
            let first = try fetch(server.port, "/search?q=lamp&limit=2").json
            let second = try fetch(server.port, "/search?q=lamp&limit=2").json
            let later = try fetch(server.port, "/search?q=lamp&limit=2&offset=1").json
            #expect(first["path"] as? String == "scan")
            #expect(second["path"] as? String == "cache")
            #expect(second["itemsScanned"] as? Int == 0)
            #expect(second["total"] as? Int == first["total"] as? Int)
            let ids = { (json: [String: Any]) in (json["items"] as? [[String: Any]])?.map { $0["id"] as? String } }
            #expect(ids(second) == ids(first))
            #expect(later["path"] as? String == "scan", "only first pages are cached")
            let metrics = try fetch(server.port, "/metrics").body
            #expect(metrics.contains("typestorm_search_cache_hits_total 1\n"))
        }
        let off = configuration()  // the default: no cache
        try await SearchServer.withServer(configuration: off, backend: catalog) { server in
            _ = try fetch(server.port, "/search?q=lamp")
            #expect(try fetch(server.port, "/search?q=lamp").json["path"] as? String == "scan")
        }
    }

    @Test func scopeTokensAndEscapedUnicodeReachTheBackend() async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            let scoped = try fetch(server.port, "/search?q=lamp&scope=odd")
            #expect((scoped.json["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Blue Lamp", "Desk lamp \"LED\""])
            let tokens = try fetch(server.port, "/search?q=lamp&tokens=desk,led")
            #expect(tokens.json["total"] as? Int == 1)
            #expect(tokens.json["tokens"] as? [String] == ["desk", "led"])
            let korean = try fetch(server.port, "/search?q=%EB%9E%A8%ED%94%84")
            #expect(korean.json["query"] as? String == "램프")
            #expect((korean.json["items"] as? [[String: Any]])?.first?["name"] as? String == "빨간 램프")
            let plus = try fetch(server.port, "/search?q=red+chair")
            #expect(plus.json["total"] as? Int == 1)
        }
    }

    @Test(arguments: [
        ("/search?q=%ZZ", 400, "invalid percent-encoding"),
        ("/search?q=lamp%4", 400, "invalid percent-encoding"),
        ("/search?q=%FF%FE", 400, "not valid UTF-8"),
        ("/search?q=lamp&color=red", 400, "unknown parameter 'color'"),
        ("/search?q=lamp&q=chair", 400, "more than once"),
        ("/search?q=" + String(repeating: "a", count: 300), 400, "the limit is 256"),
        ("/search?q=lamp&limit=0", 400, "parameter 'limit'"),
        ("/search?q=lamp&offset=-1", 400, "parameter 'offset'"),
        ("/search?q=lamp&limit=ten", 400, "parameter 'limit'"),
        ("/search?q=lamp&fault_error=1", 400, "--fault-params"),
        ("/search?q=" + String(repeating: "a", count: 5000), 414, "the limit is 4096"),
        ("/nope", 404, "no such endpoint"),
    ] as [(String, Int, String)])
    func badInputGetsAClearJSONError(target: String, status: Int, phrase: String) async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            let response = try fetch(server.port, target)
            #expect(response.status == status)
            let message = try #require(response.json["error"] as? String)
            #expect(message.contains(phrase), "\(message)")
            #expect(response.json["status"] as? Int == status)
            // Still serving correct answers afterwards.
            #expect(try fetch(server.port, "/search?q=kettle").json["total"] as? Int == 1)
        }
    }

    @Test(arguments: [
        // Over the head limit (8 KiB): refused before libmicrohttpd sees it, even far beyond
        // libmicrohttpd's own 16 KiB buffer.
        ("GET /search?q=" + String(repeating: "a", count: 9_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request line is longer than 8192 bytes", "search"),
        ("GET /search?q=" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "the request target limit is 4096", "search"),
        ("GET /search?q=" + String(repeating: "a", count: 1 << 20) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "longer than 8192", "search"),
        ("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 20_000) + "\r\n\r\n", 431, "headers are longer than 8192 bytes", "healthz"),
        ("GET /search?q=lamp HTTP/1.1\r\n" + String(repeating: "X-Many: 1\r\n", count: 101) + "\r\n", 431, "more than 100 header lines", "search"),
    ] as [(String, Int, String, String)])
    func anOversizedHeadGetsAJSONRefusalAndServingGoesOn(request: String, status: Int, phrase: String, endpoint: String) async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send(request)
            let response = try connection.readResponse()
            #expect(response.status == status)
            #expect(response.headers["content-type"] == "application/json")
            let message = try #require(response.json["error"] as? String, "\(response.body.prefix(200))")
            #expect(message.contains(phrase), "\(message)")
            #expect(response.json["status"] as? Int == status)
            #expect(connection.waitForClose())
            #expect(server.metrics.count(endpoint: endpoint, status: status) == 1)
            #expect(try fetch(server.port, "/search?q=kettle").json["total"] as? Int == 1)
        }
    }

    @Test func aHeadJustUnderTheLimitIsServedAndItsTargetJudgedByTheTargetLimit() async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            let response = try fetch(server.port, "/search?q=" + String(repeating: "a", count: 7_000))
            #expect(response.status == 414)
            #expect((response.json["error"] as? String)?.contains("the limit is 4096") == true)
            var headers = ""
            for index in 0..<99 { headers += "X-Header-\(index): \(index)\r\n" }
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send("GET /search?q=kettle HTTP/1.1\r\nHost: x\r\n\(headers)\r\n")  // 100 header lines
            #expect(try connection.readResponse().json["total"] as? Int == 1)
        }
    }

    @Test func pipelinedFirstRequestsAreAllAnswered() async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /search?q=kettle HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let text = connection.readToEnd()
            #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 3, "\(text)")
            #expect(text.contains(#""status":"ok""#), "\(text)")
            #expect(text.contains(#""total":1"#), "\(text)")
        }
    }

    /// The acceptor checks a connection's first request only; later requests on a kept-alive
    /// connection are libmicrohttpd's, which answers a head over its 16 KiB buffer itself.
    @Test func aLaterOversizedRequestOnAKeptAliveConnectionIsStillRefused() async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.get("/search?q=kettle")
            #expect(try connection.readResponse().json["total"] as? Int == 1)
            connection.get("/search?q=" + String(repeating: "a", count: 20_000))
            #expect(try connection.readResponse().status == 414)
            #expect(try fetch(server.port, "/search?q=kettle").json["total"] as? Int == 1)
        }
    }

    @Test func aFirstRequestTrickledSlowerThanTheTimeoutIsClosed() async throws {
        try await SearchServer.withServer(configuration: configuration { $0.connectionTimeoutSeconds = 1 }, backend: catalog) { server in
            let slow = try RawConnection(port: server.port)
            defer { slow.close() }
            slow.send("GET /search?q=lamp HTTP/1.1\r\n")
            let started = Date()
            // A header line every 200 ms: progress, but the head is never whole.
            var closed = false
            for index in 0..<25 where !closed {
                slow.send("X-Slow-\(index): 1\r\n")
                try await Task.sleep(for: .milliseconds(200))
                closed = slow.isClosedByPeer
            }
            #expect(closed, "still open after \(Date().timeIntervalSince(started)) s")
            #expect(Date().timeIntervalSince(started) < 4)
        }
    }

    @Test func otherMethodsGet405() async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            let response = try fetch(server.port, "/search?q=lamp", method: "DELETE")
            #expect(response.status == 405)
            #expect(response.headers["allow"] == "GET, HEAD")
        }
    }

    @Test func metricsMoveWithRequests() async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            func value(_ text: String, _ line: String) -> Double? {
                text.split(separator: "\n").first { $0.hasPrefix(line + " ") }.flatMap { Double($0.split(separator: " ").last!) }
            }
            let before = try fetch(server.port, "/metrics")
            #expect(before.status == 200)
            #expect(before.headers["content-type"]?.hasPrefix("text/plain") == true)
            #expect(value(before.body, "typestorm_search_latency_seconds_count") == 0)
            _ = try fetch(server.port, "/search?q=lamp")
            _ = try fetch(server.port, "/search?q=%ZZ")
            let after = try fetch(server.port, "/metrics").body
            #expect(value(after, "typestorm_http_responses_total{endpoint=\"search\",status=\"200\"}") == 1)
            #expect(value(after, "typestorm_http_responses_total{endpoint=\"search\",status=\"400\"}") == 1)
            #expect(value(after, "typestorm_search_latency_seconds_count") == 2)
            #expect(value(after, "typestorm_search_items_scanned_total") == Double(names.count))
            #expect(value(after, "typestorm_search_service_seconds_count") == 1)
            for name in ["typestorm_requests_in_flight", "typestorm_search_queue_depth", "typestorm_search_cancelled_total",
                         "typestorm_search_wasted_seconds_total", "typestorm_connections_open"] {
                #expect(value(after, name) != nil, "missing \(name)")
            }
        }
    }

    @Test func aClientThatDisconnectsCancelsItsSearch() async throws {
        let gate = GateBackend()
        try await SearchServer.withServer(configuration: configuration(), backend: gate) { server in
            let connection = try RawConnection(port: server.port)
            connection.get("/search?q=slow")
            #expect(gate.started.wait(seconds: 5))
            connection.close()
            #expect(gate.stopped.wait(seconds: 5))
            let observed = gate.observedCancellation.load(ordering: .relaxed)
            #expect(observed)
            #expect(await eventually { server.metrics.cancelled == 1 })
            let metrics = server.metrics
            #expect(metrics.wastedItems > 0)
            #expect(metrics.wastedSeconds > 0)
            let record = try #require(metrics.recentCancellations.first)
            #expect(record.stopNanos < 1_000_000_000)
            #expect(record.noticedNanos <= record.stoppedNanos)
            #expect(server.prometheusText.contains("typestorm_search_cancelled_total 1"))
        }
    }

    @Test func aClientLeavingDuringAnInjectedDelayCancelsIt() async throws {
        var delayed = configuration()
        delayed.faults.allowPerRequestParameters = true
        try await SearchServer.withServer(configuration: delayed, backend: catalog) { server in
            let connection = try RawConnection(port: server.port)
            connection.get("/search?q=lamp&fault_delay_ms=10000")
            #expect(await eventually { server.metrics.inFlight == 1 && server.metrics.queueDepth == 0 })
            connection.close()
            #expect(await eventually { server.metrics.cancelled == 1 })
            #expect(server.metrics.wastedItems == 0)
            // The cancellation counter moves first; the stop histogram and the 499 count follow
            // when the search thread finishes its bookkeeping.
            #expect(await eventually {
                let metrics = (try? fetch(server.port, "/metrics").body) ?? ""
                return metrics.contains("typestorm_search_cancel_stop_seconds_count 1")
                    && metrics.contains("typestorm_http_responses_total{endpoint=\"search\",status=\"499\"} 1")
            })
        }
    }

    @Test func headRequestsGetHeadersOnly() async throws {
        try await SearchServer.withServer(configuration: configuration(), backend: catalog) { server in
            let connection = try RawConnection(port: server.port)
            connection.get("/healthz", method: "HEAD", close: true)
            let response = try connection.readResponse(expectBody: false)
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
        }
    }

    @Test func aSearchThatIgnoresCancellationIsStillCountedAsWasted() async throws {
        let backend = DeafBackend()
        try await SearchServer.withServer(configuration: configuration(), backend: backend) { server in
            let connection = try RawConnection(port: server.port)
            connection.get("/search?q=deaf")
            #expect(backend.started.wait(seconds: 5))
            connection.close()
            backend.release.signal()
            #expect(await eventually { server.metrics.completedAfterDisconnect == 1 })
            #expect(server.metrics.cancelled == 0)
            #expect(server.metrics.wastedItems == 7)
        }
    }

    @Test func aFullQueueGets503WithRetryAfter() async throws {
        let gate = GateBackend()
        let config = configuration { $0.workers = 1; $0.queueCapacity = 1; $0.retryAfterSeconds = 2 }
        try await SearchServer.withServer(configuration: config, backend: gate) { server in
            let running = try RawConnection(port: server.port)
            running.get("/search?q=a")
            #expect(gate.started.wait(seconds: 5))
            let queued = try RawConnection(port: server.port)
            queued.get("/search?q=b")
            #expect(await eventually { server.metrics.queueDepth == 1 })
            let rejected = try fetch(server.port, "/search?q=c")
            #expect(rejected.status == 503)
            #expect(rejected.headers["retry-after"] == "2")
            #expect((rejected.json["error"] as? String)?.contains("queue is full") == true)
            #expect(try fetch(server.port, "/healthz").status == 200)
            gate.release()
            #expect(try running.readResponse().status == 200)
            #expect(try queued.readResponse().status == 200)
            #expect(server.metrics.overloadRejections == 1)
        }
    }

    @Test func tooManyBusyConnectionsGet503ButHealthzIsAnswered() async throws {
        let gate = GateBackend()
        let setup = configuration { $0.maxConnections = 2; $0.workers = 1 }
        try await SearchServer.withServer(configuration: setup, backend: gate) { server in
            // Two connections whose searches are being answered (one running, one queued)
            // cannot be shed.
            let running = try RawConnection(port: server.port)
            running.get("/search?q=a")
            #expect(gate.started.wait(seconds: 10))
            let queued = try RawConnection(port: server.port)
            queued.get("/search?q=b")
            #expect(await eventually { server.metrics.queueDepth == 1 })
            let third = try RawConnection(port: server.port)
            third.get("/search?q=lamp")
            let response = try third.readResponse()
            #expect(response.status == 503)
            #expect(response.headers["retry-after"] == "1")
            #expect(response.headers["content-type"] == "application/json")
            #expect((response.json["error"] as? String)?.contains("too many open connections") == true)
            #expect(try fetch(server.port, "/healthz").status == 200)
            gate.release()
            #expect(try running.readResponse().status == 200)
            #expect(try queued.readResponse().status == 200)
        }
    }

    @Test func idleConnectionsAreShedToMakeRoomOldestFirst() async throws {
        try await SearchServer.withServer(configuration: configuration { $0.maxConnections = 2 }, backend: catalog) { server in
            let first = try RawConnection(port: server.port)
            let second = try RawConnection(port: server.port)
            first.get("/healthz")
            _ = try first.readResponse()
            second.get("/healthz")
            _ = try second.readResponse()
            // A third connection is served at once; the longest-idle one is closed for it.
            #expect(try fetch(server.port, "/search?q=lamp").json["total"] as? Int == 4)
            #expect(first.waitForClose())
            #expect(server.metrics.connectionsShed >= 1)
            second.get("/healthz")
            #expect(try second.readResponse().status == 200)
        }
    }

    @Test func idleClientsAreDisconnected() async throws {
        try await SearchServer.withServer(configuration: configuration { $0.connectionTimeoutSeconds = 1 }, backend: catalog) { server in
            let idle = try RawConnection(port: server.port)
            idle.send("GET /search?q=la")  // a partial request line, then silence
            let started = Date()
            #expect(idle.waitForClose())
            #expect(Date().timeIntervalSince(started) < 5)
        }
    }

    @Test func injectedErrorsAndDelays() async throws {
        var failing = configuration()
        failing.faults.errorRate = 1
        try await SearchServer.withServer(configuration: failing, backend: catalog) { server in
            let response = try fetch(server.port, "/search?q=lamp")
            #expect(response.status == 500)
            #expect((response.json["error"] as? String)?.contains("injected") == true)
            #expect(server.metrics.injectedErrors == 1)
        }
        var perRequest = configuration()
        perRequest.faults.allowPerRequestParameters = true
        try await SearchServer.withServer(configuration: perRequest, backend: catalog) { server in
            let delayed = try fetch(server.port, "/search?q=lamp&fault_delay_ms=30")
            #expect(delayed.status == 200)
            let timing = try #require(delayed.json["timing"] as? [String: Any])
            #expect((timing["injectedDelayMicros"] as? Int) == 30_000)
            #expect((timing["serviceMicros"] as? Int ?? 0) >= 30_000)
            #expect(try fetch(server.port, "/search?q=lamp&fault_error=1").status == 500)
            #expect(try fetch(server.port, "/search?q=lamp&fault_error=0").status == 200)
        }
    }

    @Test func configuredLatencyAndSlowTailAddUp() async throws {
        var slow = configuration()
        slow.faults.latency = .fixed(nanos: 20_000_000)
        slow.faults.slowTailProbability = 1
        slow.faults.slowTailNanos = 10_000_000
        try await SearchServer.withServer(configuration: slow, backend: catalog) { server in
            let response = try fetch(server.port, "/search?q=lamp")
            #expect(response.status == 200)
            let timing = try #require(response.json["timing"] as? [String: Any])
            #expect(timing["injectedDelayMicros"] as? Int == 30_000)
            #expect((timing["serviceMicros"] as? Int ?? 0) >= 30_000)
        }
    }

    @Test func searchesStillRunningAtTheDrainDeadlineAreCancelled() async throws {
        let gate = GateBackend()
        let connection = try await SearchServer.withServer(configuration: configuration { $0.drainTimeoutSeconds = 0.2 }, backend: gate) { server in
            let connection = try RawConnection(port: server.port)
            connection.get("/search?q=forever")
            #expect(gate.started.wait(seconds: 5))
            return connection
        }
        let observed = gate.observedCancellation.load(ordering: .relaxed)
        #expect(observed)
        #expect(connection.waitForClose())
    }

    @Test func gracefulShutdownDrainsInFlightSearches() async throws {
        let gate = GateBackend()
        let server = SearchServer(configuration: configuration(), backend: gate)
        let port = PortBox()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run { bound in port.value.withLock { $0 = bound } } }
            #expect(await eventually { port.value.withLock { $0 } != nil })
            let bound = try #require(port.value.withLock { $0 })
            let inFlight = try RawConnection(port: bound)
            inFlight.get("/search?q=x")
            #expect(gate.started.wait(seconds: 5))
            server.shutdownGracefully()
            #expect(await eventually { (try? RawConnection(port: bound)) == nil })
            gate.release()
            let response = try inFlight.readResponse()
            #expect(response.status == 200)
            #expect(response.json["path"] as? String == "gate")
            try await group.waitForAll()
        }
        #expect(server.metrics.count(endpoint: "search", status: 200) == 1)
    }
}

@Suite("Request parsing", .timeLimit(.minutes(5)))
struct RequestParserTests {
    private func scan(_ text: String, maxHeadBytes: Int = 64, maxHeaderLines: Int = 2) -> RequestHead {
        var limits = RequestLimits()
        limits.maxHeadBytes = maxHeadBytes
        limits.maxHeaderLines = maxHeaderLines
        return Array(text.utf8).withUnsafeBytes { RequestHead.scan($0, limits: limits) }
    }

    @Test func aRequestHeadIsWholeAtItsEmptyLine() {
        #expect(scan("GET / HTTP/1.1\r\nHost: x\r\n\r\n") == .complete)
        #expect(scan("GET / HTTP/1.0\n\n") == .complete)
        #expect(scan("\r\n\r\nGET / HTTP/1.0\r\n\r\n") == .complete)  // empty lines before the request line
        #expect(scan("GET / HTTP/1.1\r\nHost: x\r\n") == .incomplete)
        #expect(scan("\r\n\r\n") == .incomplete)
        #expect(scan("GET /sear") == .incomplete)
        #expect(scan("") == .incomplete)
    }

    @Test func aRequestHeadOverTheLimitsIsRefused() {
        let longLine = scan("GET /" + String(repeating: "a", count: 70))
        #expect(longLine == .refused(RequestRejection(status: 414, message: "request line is longer than 64 bytes; the request target limit is 4096")))
        guard case .refused(let longHeaders) = scan("GET / HTTP/1.1\r\nX: " + String(repeating: "b", count: 60)) else {
            Issue.record("long headers were not refused")
            return
        }
        #expect(longHeaders.status == 431)
        guard case .refused(let many) = scan("GET / HTTP/1.1\r\na:1\r\nb:2\r\nc:3\r\n", maxHeadBytes: 4096) else {
            Issue.record("three header lines were not refused at a limit of two")
            return
        }
        #expect(many == RequestRejection(status: 431, message: "more than 2 header lines"))
        #expect(scan("GET / HTTP/1.1\r\na:1\r\nb:2\r\n\r\n", maxHeadBytes: 4096) == .complete)
    }

    @Test func decodesFormEncoding() throws {
        let parameters = try RequestParser.parameters("q=a+b%20c&scope=&tokens=x,y&flag")
        #expect(parameters == ["q": "a b c", "scope": "", "tokens": "x,y", "flag": ""])
    }

    @Test func namesWhereAnEscapeIsBroken() {
        #expect(throws: RequestRejection(status: 400, message: "invalid percent-encoding in parameter 'q' at byte 4 of the query string: '%' must be followed by two hex digits")) {
            _ = try RequestParser.parameters("q=ab%G1")
        }
    }

    @Test func defaultsAndLimits() throws {
        let (query, faults) = try RequestParser.searchQuery([:], limits: RequestLimits(), allowFaultParameters: false)
        #expect(query == SearchRequest(text: "", scope: nil, tokens: [], limit: 20, offset: 0, needsTotal: true))
        #expect(faults == RequestFaults())
    }

    @Test func jsonStringsAreEscaped() {
        #expect(JSONText.string("a\"b\\c\nd\u{1}é") == "\"a\\\"b\\\\c\\nd\\u0001é\"")
    }

    @Test func faultSamplingIsSeededAndHonoursRates() {
        var faults = FaultInjection()
        faults.latency = .exponential(meanNanos: 1_000_000)
        faults.errorRate = 0.25
        faults.seed = 42
        let first = FaultSampler(faults), second = FaultSampler(faults)
        let a = (0..<2000).map { _ in first.decide(RequestFaults()) }
        let b = (0..<2000).map { _ in second.decide(RequestFaults()) }
        #expect(a.map(\.delayNanos) == b.map(\.delayNanos))
        let errorShare = Double(a.filter(\.fail).count) / 2000
        #expect(errorShare > 0.2 && errorShare < 0.3)
        let meanDelay = Double(a.map(\.delayNanos).reduce(0, +)) / 2000
        #expect(meanDelay > 850_000 && meanDelay < 1_150_000)
    }

    @Test func latencyDistributionsParse() throws {
        #expect(try LatencyDistribution(parsing: "exp:5ms") == .exponential(meanNanos: 5_000_000))
        #expect(try LatencyDistribution(parsing: "uniform:1ms-2ms") == .uniform(lowNanos: 1_000_000, highNanos: 2_000_000))
        #expect(throws: FaultConfigurationError.self) { try LatencyDistribution(parsing: "gauss:3") }
    }

    @Test func substringBackendCountsAndPages() throws {
        let backend = SubstringBackend.synthetic(count: 10_000)
        let all = try backend.search(SearchRequest(text: "lamp", limit: 1000, offset: 0, needsTotal: true), isCancelled: { false })
        let page = try backend.search(SearchRequest(text: "lamp", limit: 5, offset: 7, needsTotal: true), isCancelled: { false })
        #expect(all.total == page.total)
        #expect(all.total > 0)
        #expect(Array(all.items[7..<12]) == page.items)
        #expect(throws: SearchCancelled.self) { try backend.search(SearchRequest(text: "lamp", limit: 20, needsTotal: true), isCancelled: { true }) }
    }
}

final class PortBox: Sendable {
    let value = Locked<UInt16?>(nil)
}

/// Never looks at `isCancelled`: the server can only find out afterwards.
final class DeafBackend: SearchBackend {
    let started = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    func search(_ request: SearchRequest, isCancelled: () -> Bool) throws -> BackendResult {
        started.signal()
        _ = release.wait(timeout: .now() + 10)
        return BackendResult(items: [], total: 0, path: "deaf", itemsScanned: 7)
    }
}
