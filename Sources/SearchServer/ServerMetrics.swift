import Locking
import Synchronization

/// A Prometheus histogram with fixed bucket bounds (seconds).
struct PrometheusHistogram: Sendable {
    static let latencyBounds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    let bounds: [Double]
    private(set) var counts: [UInt64]
    private(set) var sum = 0.0
    private(set) var count: UInt64 = 0

    init(bounds: [Double] = latencyBounds) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    mutating func record(seconds: Double) {
        count += 1
        sum += seconds
        if let index = bounds.firstIndex(where: { seconds <= $0 }) { counts[index] += 1 }
    }

    func render(name: String, help: String, into out: inout String) {
        out += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        var cumulative: UInt64 = 0
        for (bound, bucket) in zip(bounds, counts) {
            cumulative += bucket
            out += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_bucket{le=\"+Inf\"} \(count)\n\(name)_sum \(sum)\n\(name)_count \(count)\n"
    }
}

/// A point-in-time copy of the server's counters, for tests, benchmarks and run records.
package struct ServerMetricsSnapshot: Sendable, Equatable, Codable {
    /// Responses by endpoint (`search`, `healthz`, `metrics`, `other`) and HTTP status.
    package var responses: [String: [Int: UInt64]] = [:]
    package var inFlight = 0
    package var openConnections = 0
    /// Connections accepted since start: far below the request count when clients reuse them.
    package var connectionsAccepted = 0
    package var queueDepth = 0
    /// Searches whose client went away, noticed by the server and stopped.
    package var cancelled: UInt64 = 0
    /// Searches that finished after their client had gone (too short to notice mid-scan): the
    /// whole search was wasted, and is counted in `wastedSeconds`/`wastedItems` too.
    package var completedAfterDisconnect: UInt64 = 0
    /// Service time spent on searches whose client went away, seconds.
    package var wastedSeconds = 0.0
    /// Items examined by cancelled searches.
    package var wastedItems: UInt64 = 0
    /// Items examined by all searches.
    package var itemsScanned: UInt64 = 0
    /// Requests refused for overload (503 with Retry-After).
    package var overloadRejections: UInt64 = 0
    /// Idle or slow connections closed to make room for new ones at the connection limit.
    package var connectionsShed: UInt64 = 0
    package var injectedErrors: UInt64 = 0
    /// Searches answered from the first-page cache (no search run).
    package var cacheHits: UInt64 = 0
    /// The latest cancelled searches (up to 4,096): when each was noticed and stopped.
    package var recentCancellations: [CancellationRecord] = []

    package func count(endpoint: String, status: Int) -> UInt64 { responses[endpoint]?[status] ?? 0 }
    package func total(endpoint: String) -> UInt64 { responses[endpoint]?.values.reduce(0, +) ?? 0 }
}

/// How one cancelled search was noticed and stopped (monotonic nanoseconds).
package struct CancellationRecord: Sendable, Equatable, Codable {
    /// When the server learnt the client was gone (the epoll hang-up event, or the drain deadline).
    package var noticedNanos: UInt64
    /// When the worker was done with the request (the backend returned).
    package var stoppedNanos: UInt64
    package var itemsScanned: Int

    package var stopNanos: UInt64 { stoppedNanos > noticedNanos ? stoppedNanos - noticedNanos : 0 }
}

/// The search server's counters and histograms, rendered for `GET /metrics`.
final class ServerMetrics: Sendable {
    private struct State {
        var responses: [String: [Int: UInt64]] = [:]
        var latency = PrometheusHistogram()
        var queue = PrometheusHistogram()
        var service = PrometheusHistogram()
        var cancelStop = PrometheusHistogram()
        var cancelled: UInt64 = 0
        var completedAfterDisconnect: UInt64 = 0
        var wastedSeconds = 0.0
        var wastedItems: UInt64 = 0
        var itemsScanned: UInt64 = 0
        var overload: UInt64 = 0
        var injectedErrors: UInt64 = 0
        var cacheHits: UInt64 = 0
        var recent: [CancellationRecord] = []
    }

    static let recentCapacity = 4096

    private let state = Locked(State())
    let inFlight = Atomic<Int>(0)
    let openConnections = Atomic<Int>(0)
    let connectionsAccepted = Atomic<Int>(0)
    let connectionsShed = Atomic<UInt64>(0)

    func recordResponse(endpoint: String, status: Int, latencyNanos: UInt64?) {
        state.withLock { s in
            s.responses[endpoint, default: [:]][status, default: 0] += 1
            if let latencyNanos { s.latency.record(seconds: Double(latencyNanos) / 1e9) }
        }
    }

    func recordSearch(queueNanos: UInt64, serviceNanos: UInt64, itemsScanned: Int) {
        state.withLock { s in
            s.queue.record(seconds: Double(queueNanos) / 1e9)
            s.service.record(seconds: Double(serviceNanos) / 1e9)
            s.itemsScanned += UInt64(itemsScanned)
        }
    }

    func recordCancellation(_ record: CancellationRecord, serviceNanos: UInt64) {
        state.withLock { s in
            s.cancelled += 1
            s.wastedSeconds += Double(serviceNanos) / 1e9
            s.wastedItems += UInt64(record.itemsScanned)
            s.itemsScanned += UInt64(record.itemsScanned)
            s.cancelStop.record(seconds: Double(record.stopNanos) / 1e9)
            if s.recent.count >= Self.recentCapacity { s.recent.removeFirst(s.recent.count / 2) }
            s.recent.append(record)
        }
    }

    func recordCompletedAfterDisconnect(serviceNanos: UInt64, itemsScanned: Int) {
        state.withLock { s in
            s.completedAfterDisconnect += 1
            s.wastedSeconds += Double(serviceNanos) / 1e9
            s.wastedItems += UInt64(itemsScanned)
        }
    }

    /// A search answered from the first-page cache: its service time (the lookup) and its response.
    func recordCacheHit(serviceNanos: UInt64, latencyNanos: UInt64) {
        state.withLock { s in
            s.cacheHits += 1
            s.queue.record(seconds: 0)
            s.service.record(seconds: Double(serviceNanos) / 1e9)
            s.responses["search", default: [:]][200, default: 0] += 1
            s.latency.record(seconds: Double(latencyNanos) / 1e9)
        }
    }

    func recordOverload() { state.withLock { $0.overload += 1 } }
    func recordInjectedError() { state.withLock { $0.injectedErrors += 1 } }

    func snapshot(queueDepth: Int) -> ServerMetricsSnapshot {
        state.withLock { s in
            ServerMetricsSnapshot(
                responses: s.responses,
                inFlight: inFlight.load(ordering: .relaxed),
                openConnections: openConnections.load(ordering: .relaxed),
                connectionsAccepted: connectionsAccepted.load(ordering: .relaxed),
                queueDepth: queueDepth,
                cancelled: s.cancelled,
                completedAfterDisconnect: s.completedAfterDisconnect,
                wastedSeconds: s.wastedSeconds,
                wastedItems: s.wastedItems,
                itemsScanned: s.itemsScanned,
                overloadRejections: s.overload,
                connectionsShed: connectionsShed.load(ordering: .relaxed),
                injectedErrors: s.injectedErrors,
                cacheHits: s.cacheHits,
                recentCancellations: s.recent
            )
        }
    }

    /// The Prometheus text exposition (format 0.0.4).
    func prometheusText(queueDepth: Int, workers: Int) -> String {
        var out = ""
        state.withLock { s in
            out += "# HELP typestorm_http_responses_total HTTP responses by endpoint and status.\n"
            out += "# TYPE typestorm_http_responses_total counter\n"
            for endpoint in s.responses.keys.sorted() {
                for (status, count) in s.responses[endpoint]!.sorted(by: { $0.key < $1.key }) {
                    out += "typestorm_http_responses_total{endpoint=\"\(endpoint)\",status=\"\(status)\"} \(count)\n"
                }
            }
            s.latency.render(name: "typestorm_search_latency_seconds", help: "Search request latency, accept to response queued.", into: &out)
            s.queue.render(name: "typestorm_search_queue_seconds", help: "Time a search waited for a worker.", into: &out)
            s.service.render(name: "typestorm_search_service_seconds", help: "Time a worker spent on a search, injected delay included.", into: &out)
            s.cancelStop.render(name: "typestorm_search_cancel_stop_seconds", help: "Time from the server noticing a client disconnect (epoll hang-up) to the search stopping.", into: &out)
            func counter(_ name: String, _ help: String, _ value: String) {
                out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(value)\n"
            }
            counter("typestorm_search_cancelled_total", "Searches stopped because the client disconnected.", "\(s.cancelled)")
            counter("typestorm_search_completed_after_disconnect_total", "Searches that finished after their client had disconnected.", "\(s.completedAfterDisconnect)")
            counter("typestorm_search_wasted_seconds_total", "Service time spent on searches whose client disconnected.", "\(s.wastedSeconds)")
            counter("typestorm_search_wasted_items_total", "Items examined by searches whose client disconnected.", "\(s.wastedItems)")
            counter("typestorm_search_items_scanned_total", "Items examined by all searches.", "\(s.itemsScanned)")
            counter("typestorm_overload_rejections_total", "Requests refused with 503 for too many connections or a full queue.", "\(s.overload)")
            counter("typestorm_injected_errors_total", "Searches answered with an injected 500.", "\(s.injectedErrors)")
            counter("typestorm_search_cache_hits_total", "Searches answered from the first-page cache without searching.", "\(s.cacheHits)")
        }
        func gauge(_ name: String, _ help: String, _ value: Int) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n\(name) \(value)\n"
        }
        out += "# HELP typestorm_connections_accepted_total Client connections accepted.\n# TYPE typestorm_connections_accepted_total counter\n"
        out += "typestorm_connections_accepted_total \(connectionsAccepted.load(ordering: .relaxed))\n"
        out += "# HELP typestorm_connections_shed_total Idle or slow connections closed to make room at the connection limit.\n# TYPE typestorm_connections_shed_total counter\n"
        out += "typestorm_connections_shed_total \(connectionsShed.load(ordering: .relaxed))\n"
        gauge("typestorm_requests_in_flight", "Requests received and not yet completed.", inFlight.load(ordering: .relaxed))
        gauge("typestorm_connections_open", "Open client connections.", openConnections.load(ordering: .relaxed))
        gauge("typestorm_search_queue_depth", "Searches waiting for a worker.", queueDepth)
        gauge("typestorm_search_workers", "Worker threads running searches.", workers)
        return out
    }
}
