import Foundation
import Glibc
import TypestormMetrics
import Testing
@testable import Orchestration

/// A loopback port that refuses connections: bound, never listening, held until `close()` so no
/// other process can take it meanwhile.
final class RefusingPort {
    let port: UInt16
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() { _ = Glibc.close(fd) }
}

/// An `http-url` scenario against `url` (JSON text).
func httpURLScenarioJSON(url: String, typists: Int = 6, duration: String = "2s", thresholds: String = "[]") -> String {
    """
    {
      "name": "http-url-test",
      "seed": 3,
      "duration": "\(duration)",
      "catalog": { "generate": { "items": 100 } },
      "population": { "typists": \(typists), "session": { "queries": 1 } },
      "strategies": [ { "preset": "naive" } ],
      "runners": [ { "kind": "http-url", "url": "\(url)" } ],
      "thresholds": \(thresholds),
      "driver": { "snapshotInterval": "100ms", "hangTimeout": "60s", "drain": "2s" }
    }
    """
}

extension CommandLineTests {
    @Test(.timeLimit(.minutes(5))) func aRunWhoseRequestsAreRefusedFailsAndSaysWhy() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let scenario = directory.write("refused.json", httpURLScenarioJSON(
            url: "http://127.0.0.1:\(refusing.port)/search?q={query}",
            thresholds: #"[{ "metric": "ttfr_ns.p99", "max": "2s" }]"#))
        let (status, summary) = try typestorm(["run", scenario, "--workers", "1", "--out", directory.file("run"), "--quiet"], in: directory)
        #expect(status == .exited(1), "\(summary)")
        #expect(summary.contains("connection refused × "), "\(summary)")
        #expect(summary.contains("FAIL naive|runner=http-url: failed_share = 1 (required ≤ 0.01) FAILED"), "\(summary)")
        #expect(summary.contains("ttfr_ns.p99 cannot be measured: every request failed"), "\(summary)")
        #expect(!summary.contains("ok   naive"), "no latency passes when every request failed:\n\(summary)")
        let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("run/record.json"))))
        let metrics = try #require(record.group(named: "naive", labels: ["runner": "http-url"])).metrics
        #expect(metrics.counter("error_cause.connection_refused") > 0)
        #expect(metrics.counter("error_cause.connection_refused") == metrics.failedRequests)
        let report = try String(contentsOfFile: directory.file("run/report.html"), encoding: .utf8)
        #expect(report.contains("requests fail (100.0 %): connection refused × "))
    }
}

extension CommandLineTests {
    @Test(.timeLimit(.minutes(5))) func anAbortThresholdStopsTheRunAsSoonAsItIsCrossed() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let scenario = directory.write("abort.json", httpURLScenarioJSON(
            url: "http://127.0.0.1:\(refusing.port)/search?q={query}", duration: "60s",
            thresholds: #"[{ "metric": "failed_share", "max": 0.2, "abort": true }]"#))
        let started = Date()
        let (status, summary) = try typestorm(["run", scenario, "--workers", "1", "--out", directory.file("run"), "--quiet"], in: directory,
                                              timeoutSeconds: 120)
        let seconds = Date().timeIntervalSince(started)
        #expect(status == .exited(1), "\(summary)")
        #expect(seconds < 45, "the 60 s phase was cut short: \(seconds) s")
        #expect(summary.contains("the run was aborted by a threshold: naive|runner=http-url: failed_share = 1"), "\(summary)")
        let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("run/record.json"))))
        #expect(record.partial)
    }
}
