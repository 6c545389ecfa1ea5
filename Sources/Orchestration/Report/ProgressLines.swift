import Foundation
import TypestormMetrics
import Locking

/// `run --out-jsonl FILE`: the run's figures while it runs, one JSON line per group per
/// progress tick, for a dashboard or `tail -f | jq`.
///
/// Each line: `t` (seconds since the run started), `phase` (0-based, -1 before the first),
/// `runner`, `group` (the group key), `name`, `labels`, `counters` (every counter so far) and
/// `quantiles` (per histogram: `count`, `p50`, `p90`, `p99`, `max`; nanoseconds for latencies).
/// During a live phase the groups hold running counts (keystrokes, requests, errors by cause)
/// and the recorder's histograms so far (time to fresh results, request latency, …, refreshed at
/// the snapshot interval); the recorder's full metrics replace them when the phase ends.
package final class ProgressLines: Sendable {
    private let handle: Locked<FileHandle?>

    /// Creates (or truncates) `path`; throws when it cannot be written.
    package init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        self.handle = Locked(handle)
    }

    package func write(_ progress: DriverProgress) {
        let lines = progress.groups.map { Self.line(progress, $0) }.joined()
        guard !lines.isEmpty else { return }
        handle.withLock { try? $0?.write(contentsOf: Data(lines.utf8)) }
    }

    package func close() {
        handle.withLock { handle in
            try? handle?.close()
            handle = nil
        }
    }

    static func line(_ progress: DriverProgress, _ group: MetricGroup) -> String {
        var quantiles: [String: Any] = [:]
        for (name, histogram) in group.metrics.histograms where !histogram.isEmpty {
            var entry: [String: Any] = ["count": NSNumber(value: histogram.totalCount), "max": NSNumber(value: histogram.max)]
            for (key, p) in [("p50", 50.0), ("p90", 90.0), ("p99", 99.0)] {
                if let value = histogram.percentile(p) { entry[key] = NSNumber(value: value) }
            }
            quantiles[name] = entry
        }
        let object: [String: Any] = [
            "t": Double(progress.elapsedNanos) / 1e9,
            "phase": progress.phase,
            "runner": progress.runner as Any? ?? NSNull(),
            "group": group.key, "name": group.name, "labels": group.labels,
            "counters": group.metrics.counters.filter { !$0.key.hasPrefix(MetricName.timelinePrefix) }.mapValues { NSNumber(value: $0) },
            "quantiles": quantiles,
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
