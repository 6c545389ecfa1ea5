import Foundation
import Glibc
import SearchServer
import TypestormMetrics
import Testing
@testable import Orchestration

@Suite("Prometheus endpoint", .timeLimit(.minutes(5)))
struct MetricsEndpointTests {
    @Test func servesTheLatestProgressInThePrometheusTextFormat() throws {
        let endpoint = try MetricsEndpoint(port: 0)
        defer { endpoint.close() }
        #expect(endpoint.port > 0)
        var metrics = MetricSet()
        metrics.add("keystrokes", 1234)
        metrics.add("error_cause.connection_refused", 7)
        metrics.record("ttfr_ns", 250_000_000)
        let progress = DriverProgress(
            elapsedNanos: 2_500_000_000, phase: 1, phaseCount: 2, runner: "in-process", typistsActive: 40, keystrokes: 1234,
            keystrokesPerSecond: 10, requests: 10, requestsPerSecond: 1, errors: 7, ttfrP99Nanos: nil,
            groups: [MetricGroup(name: "naive", labels: ["runner": "in-process"], metrics: metrics)], workers: [])
        endpoint.update(PrometheusText.render(progress))
        let response = try httpGet(port: endpoint.port, "/metrics")
        #expect(response.hasPrefix("HTTP/1.1 200 OK"))
        #expect(response.contains("Content-Type: text/plain; version=0.0.4"))
        #expect(response.contains("typestorm_elapsed_seconds 2.5\n"))
        #expect(response.contains("typestorm_typists_active 40\n"))
        #expect(response.contains(#"typestorm_metric{group="naive|runner=in-process",strategy="naive",runner="in-process",name="keystrokes"} 1234"#))
        #expect(response.contains(#"name="error_cause.connection_refused"} 7"#))
        #expect(response.contains(#"typestorm_quantile{group="naive|runner=in-process",strategy="naive",runner="in-process",name="ttfr_ns",quantile="0.99"} "#))
        #expect(response.contains(#"typestorm_samples{group="naive|runner=in-process",strategy="naive",runner="in-process",name="ttfr_ns"} 1"#))
        #expect(try httpGet(port: endpoint.port, "/other").hasPrefix("HTTP/1.1 404"))
    }

    @Test func aPortInUseIsRefusedWithTheReason() throws {
        let first = try MetricsEndpoint(port: 0)
        defer { first.close() }
        #expect(throws: MetricsEndpoint.Failure.self) { try MetricsEndpoint(port: first.port) }
    }
}

extension CommandLineTests {
    @Test func runServesMetricsOnTheGivenPort() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("s.json", probeScenarioJSON(typists: 4, duration: "1s"))
        let (status, _) = try typestorm(["run", scenario, "--out", directory.file("run"), "--metrics-port", "0", "--quiet"], in: directory)
        #expect(status == .exited(0))
        let stderr = try String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)
        #expect(stderr.contains("run: metrics at http://127.0.0.1:"), "\(stderr)")
    }
}
