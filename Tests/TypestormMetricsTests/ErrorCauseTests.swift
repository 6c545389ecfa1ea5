import SearchField
import Testing
@testable import TypestormMetrics

@Suite("Error causes", .timeLimit(.minutes(5)))
struct ErrorCauseTests {
    @Test func recorderCountsCausesNextToTheCoarseClasses() throws {
        var recorder = try Recorder(typists: 1, expectsBackend: false)
        let query = QueryIdentity(text: "a")
        recorder.record(.keystroke(text: "a", query: query), typist: 0, at: 0)
        for id in 1...3 {
            recorder.record(.requestStart(id: UInt64(id), query: query, lag: 0), typist: 0, at: Int64(id))
            recorder.record(.workStopped(id: UInt64(id), reason: id == 3 ? .serverError : .transport), typist: 0, at: Int64(id) + 1)
            recorder.recordError(id == 3 ? .httpStatus(503) : .connectionRefused, typist: 0, at: Int64(id) + 1)
        }
        recorder.finish(at: 10)
        let metrics = recorder.metrics()
        #expect(metrics.counter("error_cause.connection_refused") == 2)
        #expect(metrics.counter("error_cause.http_503") == 1)
        #expect(metrics.failedRequests == 3)
        #expect(metrics.errorBreakdown.map(\.cause) == [.connectionRefused, .httpStatus(503)])
        #expect(metrics.errorBreakdownText == "connection refused × 2, HTTP 503 × 1")
    }

    @Test func failuresWithoutACauseShowUnderTheirClass() {
        var metrics = MetricSet()
        metrics.add(MetricName.serverErrors, 5)
        metrics.add(MetricName.timeouts, 0)
        metrics.add(MetricName.transportErrors, 2)
        metrics.add(MetricName.errorCausePrefix + "http_500", 3)
        #expect(metrics.errorBreakdownText == "HTTP 500 × 3, server error × 2, transport × 2")
        #expect(metrics.errorBreakdown.map(\.count).reduce(0, +) == metrics.failedRequests)
    }

    @Test func nothingFailedMeansNoBreakdownAndNoCountersMeansNotMeasured() {
        var metrics = MetricSet()
        #expect(metrics.failedRequests == nil)
        metrics.add(MetricName.serverErrors, 0)
        #expect(metrics.failedRequests == 0)
        #expect(metrics.errorBreakdownText == nil)
    }

    @Test func labelsAndClasses() {
        #expect(ErrorCause.httpStatus(404).label == "HTTP 404")
        #expect(ErrorCause.httpStatus(404).httpStatus == 404)
        #expect(ErrorCause.dns.label == "DNS")
        #expect(ErrorCause.connectionReset.label == "connection reset")
        #expect(ErrorCause.httpStatus(500).coarseMetric == MetricName.serverErrors)
        #expect(ErrorCause.timeout.coarseMetric == MetricName.timeouts)
        #expect(ErrorCause.tls.coarseMetric == MetricName.transportErrors)
    }
}
