/// Why a request failed, precisely enough to act on: "connection refused" sends a user to check
/// the URL, "HTTP 503" to the server's capacity, "timeout" to its latency.
///
/// The recorder counts failures by cause under `error_cause.<key>` next to the coarse
/// `errors_server`/`errors_timeout`/`errors_transport` counters, which every runner keeps (the
/// virtual runner and the in-process engine know only the coarse class).
public struct ErrorCause: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Metric-name-safe identifier: `connection_refused`, `http_503`, …
    public let key: String

    /// A cause from its metric-name-safe key (`connection_refused`, `http_503`); the inverse of ``key``.
    public init(key: String) { self.key = key }

    /// Nothing listened on the address: check the URL and that the server runs.
    public static let connectionRefused = ErrorCause(key: "connection_refused")
    /// The host name did not resolve.
    public static let dns = ErrorCause(key: "dns")
    /// The TLS handshake or the certificate check failed.
    public static let tls = ErrorCause(key: "tls")
    /// No answer within the runner's request timeout; also counted under ``MetricName/timeouts``.
    public static let timeout = ErrorCause(key: "timeout")
    /// The connection broke while sending or receiving, or the server closed it without answering.
    public static let connectionReset = ErrorCause(key: "connection_reset")
    /// Connecting failed for another reason than a refusal (unreachable host, no route).
    public static let connectFailed = ErrorCause(key: "connect_failed")
    /// A 2xx answer without a number at the runner's count path (a response check failed).
    public static let countMissing = ErrorCause(key: "count_missing")
    /// A server error whose status is unknown (a modelled backend, the in-process engine).
    public static let serverError = ErrorCause(key: "server_error")
    /// Any other transport failure.
    public static let transport = ErrorCause(key: "transport")

    /// A non-2xx answer.
    public static func httpStatus(_ status: Int) -> ErrorCause { ErrorCause(key: "http_\(status)") }

    /// The HTTP status, for `http_N` causes.
    public var httpStatus: Int? {
        key.hasPrefix("http_") ? Int(key.dropFirst(5)) : nil
    }

    /// The coarse counter this cause is also counted under.
    public var coarseMetric: String {
        if httpStatus != nil || self == .serverError || self == .countMissing { return MetricName.serverErrors }
        if self == .timeout { return MetricName.timeouts }
        return MetricName.transportErrors
    }

    /// How people say it: "connection refused", "HTTP 503", "DNS", "TLS".
    public var label: String {
        if let status = httpStatus { return "HTTP \(status)" }
        switch self {
        case .dns: return "DNS"
        case .tls: return "TLS"
        default: return key.replacingUnderscores()
        }
    }

    public var description: String { label }

    public static func < (lhs: ErrorCause, rhs: ErrorCause) -> Bool { lhs.key < rhs.key }
}

extension MetricName {
    /// Counter prefix of failed requests by cause: `error_cause.connection_refused`.
    public static let errorCausePrefix = "error_cause."
    /// The coarse failure counters; their sum is every failed request (cancellations are not
    /// failures).
    public static let failureCounters = [serverErrors, timeouts, transportErrors]
}

extension MetricSet {
    /// Failed requests (not cancelled ones), or `nil` when no failure counter was recorded.
    public var failedRequests: Int64? {
        let present = MetricName.failureCounters.compactMap { counters[$0] }
        return present.isEmpty ? nil : present.reduce(0, +)
    }

    /// Failed requests by cause, most frequent first (ties by key). Failures a runner counted
    /// only by class (no cause) appear under that class's generic cause, so the counts always
    /// add up to `failedRequests`.
    public var errorBreakdown: [(cause: ErrorCause, count: Int64)] {
        var byCause: [ErrorCause: Int64] = [:]
        var explained: [String: Int64] = [:]
        for (name, count) in counters where name.hasPrefix(MetricName.errorCausePrefix) && count > 0 {
            let cause = ErrorCause(key: String(name.dropFirst(MetricName.errorCausePrefix.count)))
            byCause[cause, default: 0] += count
            explained[cause.coarseMetric, default: 0] += count
        }
        let generic: [(String, ErrorCause)] = [
            (MetricName.serverErrors, .serverError), (MetricName.timeouts, .timeout), (MetricName.transportErrors, .transport),
        ]
        for (metric, cause) in generic {
            let rest = counter(metric) - explained[metric, default: 0]
            if rest > 0 { byCause[cause, default: 0] += rest }
        }
        return byCause.map { (cause: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.cause < $1.cause }
    }

    /// "connection refused × 120, HTTP 503 × 4", or `nil` when nothing failed.
    public var errorBreakdownText: String? {
        let parts = errorBreakdown.map { "\($0.cause.label) × \($0.count)" }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

private extension String {
    func replacingUnderscores() -> String {
        String(map { $0 == "_" ? " " : $0 })
    }
}
