import Dispatch
import Foundation
import LiveLoad
import Matching
import TypestormSystem
import SearchServer
import Synchronization
import TestBackends

// HTTP benchmarks, driven by scripts/bench-http (which runs wrk and nginx next to these):
//   HTTPBenchmark serve  --backend canned|substring --items N [--dispatch pool|inline] [--port P]
//                                                              in-process server, prints {"port":P,...}
//   HTTPBenchmark client --url URL --connections C --threads T --seconds S [--requests N] [--http-client plain|curl]
//                                                              closed-loop max req/s of the HTTP client on T threads
//                                                              (--requests: stop after N, for instruction counts)
//   HTTPBenchmark cancel --items N --iterations K [--http-client plain|curl]
//                                                              server-side stop latency after a client abort
//   HTTPBenchmark count --iterations K                          ns per count read (JSONCountPath) of an engine-shaped page
// Backends here are test doubles (TestBackends): `substring` scans every item; `canned` answers
// every request with one precomputed page (it measures the HTTP layer).

/// Wraps a backend and records when each search started and stopped (monotonic ns).
final class TimedBackend: SearchBackend {
    let inner: any SearchBackend
    let starts = Mutex<[UInt64]>([])
    let stops = Mutex<[UInt64]>([])
    let started = DispatchSemaphore(value: 0)
    let stopped = DispatchSemaphore(value: 0)

    init(_ inner: any SearchBackend) { self.inner = inner }

    func search(_ request: SearchRequest, isCancelled: () -> Bool) throws -> BackendResult {
        starts.withLock { $0.append(MonotonicClock.now()) }
        started.signal()
        defer {
            stops.withLock { $0.append(MonotonicClock.now()) }
            stopped.signal()
        }
        return try inner.search(request, isCancelled: isCancelled)
    }
}

func option(_ name: String, _ fallback: String) -> String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count { return arguments[index + 1] }
    return fallback
}

func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)
    return Double(sorted[max(0, rank)])
}

func millis(_ nanos: Double) -> String { String(format: "%.3f", nanos / 1e6) }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("HTTPBenchmark: \(message)\n".utf8))
    exit(1)
}

func serve() async throws {
    let items = Int(option("items", "1000000")) ?? 1_000_000
    let query = option("query", "red lamp")
    let substring = SubstringBackend.synthetic(count: items)
    let backend: any SearchBackend
    switch option("backend", "canned") {
    case "canned":
        backend = CannedBackend(result: try substring.search(SearchRequest(text: query, limit: 20, needsTotal: true), isCancelled: { false }))
    case "substring":
        backend = substring
    case let other:
        fail("--backend \(other): use canned or substring")
    }
    var configuration = SearchServerConfiguration()
    configuration.port = UInt16(option("port", "0")) ?? 0
    configuration.workers = Int(option("workers", "2")) ?? 2
    configuration.ioThreads = Int(option("io-threads", "2")) ?? 2
    configuration.searchOnIOThreads = option("dispatch", "pool") == "inline"
    configuration.maxConnections = 4096
    configuration.queueCapacity = 8192
    let server = SearchServer(configuration: configuration, backend: backend)
    let signals = try TerminationSignals { _ in server.shutdownGracefully() }
    defer { signals.cancel() }
    try await server.run { port in
        let line = "{\"port\":\(port),\"items\":\(items),\"backend\":\"\(option("backend", "canned"))\",\"allocator\":\"\(Allocator.current.rawValue)\"}\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
    let usage = try ResourceUsage.current()
    FileHandle.standardError.write(Data("server cpu \(usage.cpuSeconds) s, peak rss \(usage.peakRSSBytes / 1_048_576) MiB\n".utf8))
}

func client() throws {
    let url = option("url", "")
    guard url.hasPrefix("http") else { fail("--url http://... is required") }
    let connections = Int(option("connections", "64")) ?? 64
    let threads = Int(option("threads", "1")) ?? 1
    guard threads >= 1, threads <= connections else { fail("--threads \(option("threads", "1")): use 1...\(connections) (at most one per connection)") }
    let seconds = Double(option("seconds", "5")) ?? 5
    let requestLimit = Int(option("requests", "0")) ?? 0
    guard requestLimit >= 0 else { fail("--requests \(option("requests", "0")): use a count (0: no limit)") }
    // Requests sent so far, against --requests.
    let sent = Atomic<Int>(connections)
    let countPath = option("count-path", "").isEmpty ? nil : try JSONCountPath(option("count-path", ""))
    struct State {
        var latencies: [UInt64] = []
        var lags: [UInt64] = []
        var errors = 0
        var counted = 0
    }
    // One record per client thread (request id % threads), so the threads never share a lock;
    // a request's successor keeps its remainder and stays on its thread.
    final class Shard: Sendable { let state = Mutex(State()) }
    let states = (0..<threads).map { _ in Shard() }
    // Ids 0..<connections, then id + step: unique among live requests, same remainder.
    let step = UInt64((connections + threads - 1) / threads * threads)
    let stopAt = Atomic<UInt64>(UInt64.max)
    let clientBox = Mutex<HTTPLoadClient?>(nil)
    var configuration = HTTPLoadClient.Configuration(maxConnections: connections, countPath: countPath)
    configuration.threads = threads
    guard let choice = HTTPClientChoice(rawValue: option("http-client", "auto")) else { fail("--http-client: use auto, plain or curl") }
    configuration.client = choice.resolved(forURL: url)
    let client = try HTTPLoadClient(configuration: configuration) { completion in
        let more = states[Int(completion.id % UInt64(threads))].state.withLock { s -> Bool in
            if case .response(let status, _, let count, _) = completion.outcome, status == 200 {
                s.latencies.append(completion.latencyNanos)
                s.lags.append(completion.scheduleLagNanos)
                if count != nil { s.counted += 1 }
            } else {
                s.errors += 1
            }
            return MonotonicClock.now() < stopAt.load(ordering: .relaxed)
        }
        guard more, requestLimit == 0 || sent.add(1, ordering: .relaxed).newValue <= requestLimit else { return }
        clientBox.withLock { $0 }?.submit(id: completion.id + step, url: url)
    }
    clientBox.withLock { $0 = client }
    // Warm-up: open the connections.
    let start = MonotonicClock.now()
    stopAt.store(start + UInt64(seconds * 1e9), ordering: .relaxed)
    let cpuBefore = try ResourceUsage.current().cpuSeconds
    for i in 0..<connections { client.submit(id: UInt64(i), url: url) }
    while client.outstanding > 0 { usleep(5_000) }
    let elapsed = Double(MonotonicClock.now() - start) / 1e9
    let cpu = try ResourceUsage.current().cpuSeconds - cpuBefore
    client.shutdown()
    clientBox.withLock { $0 = nil }
    var s = State()
    for state in states {
        state.state.withLock { part in
            s.latencies += part.latencies
            s.lags += part.lags
            s.errors += part.errors
            s.counted += part.counted
        }
    }
    let sorted = s.latencies.sorted()
    let lags = s.lags.sorted()
    print("""
    {"tool":"typestorm-\(client.client.rawValue)","connections":\(connections),"threads":\(client.threadCount),"seconds":\(String(format: "%.3f", elapsed)),"requests":\(s.latencies.count),\
    "errors":\(s.errors),"requestsPerSecond":\(String(format: "%.1f", Double(s.latencies.count) / elapsed)),\
    "latencyMs":{"p50":\(millis(percentile(sorted, 50))),"p99":\(millis(percentile(sorted, 99))),"max":\(millis(Double(sorted.last ?? 0)))},\
    "scheduleLagMsP99":\(millis(percentile(lags, 99))),"countsParsed":\(s.counted),"clientCPUSeconds":\(String(format: "%.3f", cpu))}
    """)
}

func cancel() async throws {
    let items = Int(option("items", "1000000")) ?? 1_000_000
    let iterations = Int(option("iterations", "200")) ?? 200
    let timed = TimedBackend(SubstringBackend.synthetic(count: items))
    var configuration = SearchServerConfiguration()
    configuration.workers = 1
    // Calibrate: the fastest of three full scans, uncancelled (the first one is cold).
    var scanNanos = UInt64.max
    for _ in 0..<3 {
        let probe = MonotonicClock.now()
        _ = try timed.inner.search(SearchRequest(text: "no such item", limit: 20, needsTotal: true), isCancelled: { false })
        scanNanos = min(scanNanos, MonotonicClock.now() - probe)
    }
    guard scanNanos > 4_000_000 else { fail("a full scan of \(items) items takes \(scanNanos / 1000) µs; use more items") }
    var generator = SystemRandomNumberGenerator()
    try await SearchServer.withServer(configuration: configuration, backend: timed) { server in
        // Per request: when abort() was called, and when the client had torn the transfer down
        // (its socket closed).
        let aborts = Mutex<[UInt64: (requested: UInt64, closed: UInt64)]>([:])
        let clientStops = Mutex<[UInt64]>([])
        let done = DispatchSemaphore(value: 0)
        guard let choice = HTTPClientChoice(rawValue: option("http-client", "auto")) else { fail("--http-client: use auto, plain or curl") }
        let client = try HTTPLoadClient(configuration: .init(client: choice)) { completion in
            if case .cancelled(let requested, let stop) = completion.outcome {
                aborts.withLock { $0[completion.id] = (requested, completion.finishedNanos) }
                clientStops.withLock { $0.append(stop) }
            }
            done.signal()
        }
        defer { client.shutdown() }
        var serverStops: [UInt64] = []
        var endToEnd: [UInt64] = []
        var noticeAfterClose: [UInt64] = []
        let url = "\(server.baseURL)/search?q=no+such+item"
        for i in 0..<iterations {
            let id = UInt64(i)
            client.submit(id: id, url: url)
            guard timed.started.wait(timeout: .now() + 5) == .success else { fail("search \(i) did not start") }
            // Abort somewhere inside the scan.
            let delay = UInt64.random(in: 500_000...(scanNanos / 2), using: &generator)
            var pause = timespec(tv_sec: 0, tv_nsec: Int(delay))
            nanosleep(&pause, nil)
            client.abort(id: id)
            guard done.wait(timeout: .now() + 5) == .success, timed.stopped.wait(timeout: .now() + 5) == .success else {
                fail("search \(i) did not stop")
            }
            let stoppedAt = timed.stops.withLock { $0.last! }
            if let times = aborts.withLock({ $0[id] }) {
                serverStops.append(stoppedAt > times.closed ? stoppedAt - times.closed : 0)
                // The server records the cancellation just after the backend returns.
                let waitUntil = MonotonicClock.now() + 100_000_000
                while server.metrics.cancelled < UInt64(noticeAfterClose.count + 1), MonotonicClock.now() < waitUntil { sched_yield() }
                if server.metrics.cancelled == UInt64(noticeAfterClose.count + 1),
                   let noticed = server.metrics.recentCancellations.last?.noticedNanos {
                    noticeAfterClose.append(noticed > times.closed ? noticed - times.closed : 0)
                }
                endToEnd.append(stoppedAt > times.requested ? stoppedAt - times.requested : 0)
            }
        }
        let sorted = serverStops.sorted()
        let endSorted = endToEnd.sorted()
        let notices = noticeAfterClose.sorted()
        let clientSorted = clientStops.withLock { $0 }.sorted()
        let metrics = server.metrics
        let noticeToStop = metrics.recentCancellations.map(\.stopNanos).sorted()
        print("""
        {"benchmark":"cancel","client":"\(client.client.rawValue)","backend":"substring (test double)","items":\(items),"fullScanMs":\(millis(Double(scanNanos))),\
        "iterations":\(iterations),"serverCancelled":\(metrics.cancelled),\
        "serverStopAfterCloseMs":{"p50":\(millis(percentile(sorted, 50))),"p99":\(millis(percentile(sorted, 99))),"max":\(millis(Double(sorted.last ?? 0)))},\
        "stopAfterAbortCallMs":{"p50":\(millis(percentile(endSorted, 50))),"p99":\(millis(percentile(endSorted, 99))),"max":\(millis(Double(endSorted.last ?? 0)))},\
        "clientStopMs":{"p50":\(millis(percentile(clientSorted, 50))),"p99":\(millis(percentile(clientSorted, 99)))},\
        "serverNoticeAfterCloseMs":{"p50":\(millis(percentile(notices, 50))),"p99":\(millis(percentile(notices, 99)))},\
        "serverNoticeToStopMs":{"p50":\(millis(percentile(noticeToStop, 50))),"p99":\(millis(percentile(noticeToStop, 99)))},\
        "floorP99Ms":5,"pass":\(percentile(sorted, 99) <= 5_000_000)}
        """)
    }
}

/// Nanoseconds per `JSONCountPath.extract` over compact 20-hit pages shaped like the engines'
/// answers, the count before the hits and after them (the scanner skips the hits in the second).
func countRead() throws {
    let iterations = Int(option("iterations", "200000")) ?? 200_000
    let hit = #"{"id":"p-1042","title":"Blue running shoe \u00e9","price":49.95,"tags":["shoe","run"],"score":1.25e-1}"#
    let hits = Array(repeating: hit, count: 20).joined(separator: ",")
    let cases: [(String, String)] = [
        ("total-first", #"{"total":385,"query":"ab","items":[\#(hits)]}"#),
        ("total-last", #"{"query":"ab","items":[\#(hits)],"total":385}"#),
        ("hits.total.value", #"{"took":3,"timed_out":false,"hits":{"total":{"value":385,"relation":"eq"},"hits":[\#(hits)]}}"#),
        ("response.numFound", #"{"responseHeader":{"status":0,"QTime":1},"response":{"numFound":385,"start":0,"docs":[\#(hits)]}}"#),
        ("estimatedTotalHits", #"{"hits":[\#(hits)],"query":"ab","processingTimeMs":1,"limit":20,"offset":0,"estimatedTotalHits":385}"#),
        ("items.#", #"{"items":[\#(hits)]}"#),
    ]
    var rows: [String] = []
    for (path, body) in cases {
        let countPath = try JSONCountPath(path == "total-first" || path == "total-last" ? "total" : path)
        let bytes = Array(body.utf8)
        guard countPath.extract(from: bytes) != nil else { fail("\(path): no count read from \(body.prefix(80))…") }
        var sink = 0
        var best = UInt64.max
        for _ in 0..<5 {
            let start = MonotonicClock.now()
            for _ in 0..<iterations { sink &+= countPath.extract(from: bytes) ?? 0 }
            best = min(best, MonotonicClock.now() - start)
        }
        precondition(sink != 0)
        rows.append(#"{"shape":"\#(path)","bytes":\#(bytes.count),"nsPerRead":\#(String(format: "%.1f", Double(best) / Double(iterations)))}"#)
    }
    print(#"{"tool":"count-read","iterations":\#(iterations),"rounds":5,"best":[\#(rows.joined(separator: ","))]}"#)
}

/// Runs an async subcommand on the cooperative pool while the main thread waits. The main thread
/// stays an ordinary blocked thread (no async `main`, whose dispatch main queue parks it in
/// `sigsuspend`, where valgrind cannot deliver signals): `client` is synchronous, so callgrind
/// can count its instructions.
func blocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    let failure = Mutex<(any Error)?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do { try await body() } catch { failure.withLock { $0 = error } }
        done.signal()
    }
    done.wait()
    if let error = failure.withLock({ $0 }) { throw error }
}

do {
    try Allocator.applySelectionFromEnvironment()
    switch CommandLine.arguments.dropFirst().first {
    case "serve": try blocking { try await serve() }
    case "client": try client()
    case "cancel": try blocking { try await cancel() }
    case "count": try countRead()
    default: fail("usage: HTTPBenchmark serve|client|cancel|count [options] (see the comment in main.swift)")
    }
} catch {
    fail("\(error)")
}
