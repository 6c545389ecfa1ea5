import Foundation
import TypestormMetrics
import Testing
@testable import Orchestration

extension CommandLineTests {
    /// A live phase against a slow backend (the in-process engine served through a model whose
    /// every request takes 400 ms): the running snapshots carry time-to-fresh-results and
    /// request-latency quantiles, so an `abort` threshold on `ttfr_ns.p99` stops the 60 s phase
    /// while it runs.
    @Test(.timeLimit(.minutes(5))) func anAbortThresholdOnALatencyStopsALiveRunWhileItRuns() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let scenario = directory.write("slow.json", """
        {
          "name": "slow-live",
          "seed": 4,
          "duration": "60s",
          "catalog": { "generate": { "items": 200 } },
          "population": { "typists": 8, "session": { "queries": 1000 } },
          "strategies": [ { "preset": "naive" } ],
          "runners": [ { "kind": "in-process", "backend": "model" } ],
          "backend": { "serviceTime": { "median": "400ms", "p99": "400ms" }, "networkRTT": "0ms", "networkRTTSpread": 0 },
          "thresholds": [ { "metric": "ttfr_ns.p99", "max": "150ms", "abort": true } ],
          "driver": { "snapshotInterval": "100ms", "hangTimeout": "60s", "drain": "2s" }
        }
        """)
        let started = Date()
        let (status, summary) = try typestorm(
            ["run", scenario, "--workers", "1", "--out", directory.file("run"), "--out-jsonl", directory.file("progress.jsonl"), "--quiet"],
            in: directory, timeoutSeconds: 120)
        let seconds = Date().timeIntervalSince(started)
        #expect(status == .exited(1), "\(summary)")
        #expect(seconds < 45, "the 60 s phase was cut short: \(seconds) s")
        #expect(summary.contains("the run was aborted by a threshold: naive|"), "\(summary)")
        #expect(summary.contains(": ttfr_ns.p99 = "), "\(summary)")
        let record = try RunRecord.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("run/record.json"))))
        #expect(record.partial)
        // The snapshots written while the phase ran hold the latency quantiles.
        let lines = try String(contentsOfFile: directory.file("progress.jsonl"), encoding: .utf8).split(separator: "\n")
        let running = try lines.compactMap { line -> [String: Any]? in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["phase"] as? Int == 0 ? object : nil
        }
        let withLatency = running.filter { object in
            let quantiles = object["quantiles"] as? [String: Any]
            return quantiles?[MetricName.timeToFresh] != nil && quantiles?[MetricName.requestLatency] != nil
        }
        #expect(!withLatency.isEmpty, "no running snapshot held ttfr_ns and request_latency_ns quantiles: \(lines.prefix(3))")
        if let first = withLatency.first, let ttfr = (first["quantiles"] as? [String: Any])?[MetricName.timeToFresh] as? [String: Any] {
            #expect((ttfr["p99"] as? Int64 ?? 0) >= 300_000_000, "the model serves every request in 400 ms: \(ttfr)")
        }
    }
}
