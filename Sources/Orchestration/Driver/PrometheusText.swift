import Foundation
import TypestormMetrics

/// `run --metrics-port`: the driver's progress in the Prometheus text format, for the scrape
/// endpoint (`MetricsEndpoint`) to serve.
enum PrometheusText {
    /// The Prometheus text format: the run's clock and workers, then per group every counter
    /// (`typestorm_metric`) and, per histogram, its quantiles (`typestorm_quantile`) and size
    /// (`typestorm_samples`).
    static func render(_ progress: DriverProgress) -> String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
        }
        var out = "# HELP typestorm_elapsed_seconds Seconds since the run started.\n# TYPE typestorm_elapsed_seconds gauge\n"
        out += "typestorm_elapsed_seconds \(Double(progress.elapsedNanos) / 1e9)\n"
        out += "# HELP typestorm_phase The phase running (0-based; -1 before the first).\n# TYPE typestorm_phase gauge\n"
        out += "typestorm_phase \(progress.phase)\n"
        out += "# HELP typestorm_typists_active Typists typing now.\n# TYPE typestorm_typists_active gauge\n"
        out += "typestorm_typists_active \(progress.typistsActive)\n"
        out += "# HELP typestorm_metric A counter of a group so far (the Recorder's metric names).\n# TYPE typestorm_metric gauge\n"
        var quantiles = "# HELP typestorm_quantile A histogram's quantile so far (nanoseconds for latencies).\n# TYPE typestorm_quantile gauge\n"
        var samples = "# HELP typestorm_samples Values a histogram holds so far.\n# TYPE typestorm_samples gauge\n"
        for group in progress.groups {
            var labels = "group=\"\(escape(group.key))\",strategy=\"\(escape(group.name))\""
            for key in group.labels.keys.sorted() where key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) {
                labels += ",\(key)=\"\(escape(group.labels[key]!))\""
            }
            for name in group.metrics.counters.keys.sorted() where !name.hasPrefix(MetricName.timelinePrefix) {
                out += "typestorm_metric{\(labels),name=\"\(escape(name))\"} \(group.metrics.counters[name]!)\n"
            }
            for name in group.metrics.histograms.keys.sorted() {
                let histogram = group.metrics.histograms[name]!
                guard !histogram.isEmpty else { continue }
                samples += "typestorm_samples{\(labels),name=\"\(escape(name))\"} \(histogram.totalCount)\n"
                for (label, p) in [("0.5", 50.0), ("0.9", 90.0), ("0.99", 99.0)] {
                    if let value = histogram.percentile(p) {
                        quantiles += "typestorm_quantile{\(labels),name=\"\(escape(name))\",quantile=\"\(label)\"} \(value)\n"
                    }
                }
            }
        }
        return out + quantiles + samples
    }
}
