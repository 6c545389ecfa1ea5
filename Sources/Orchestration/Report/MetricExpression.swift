import TypestormMetrics

/// A metric reference as scenarios and summaries write it: a counter (`requests`), a maximum
/// (`inflight.max` when no histogram has that name), a histogram statistic (`ttfr.p99`,
/// `ttfr.p50`, `ttfr.p999`, `ttfr.max`, `ttfr.mean`, `ttfr.count`), a sum of those
/// (`errors_server+errors_timeout`, over the terms that were recorded), or a ratio of two such
/// (`requests/settles`).
package struct MetricExpression: Sendable, Equatable, CustomStringConvertible {
    package let text: String

    package init(_ text: String) { self.text = text }

    package var description: String { text }

    /// The value in `metrics`, or `nil` if what it names was not recorded.
    package func value(in metrics: MetricSet) -> Double? {
        if text == Self.failedShare { return Self.failedShare(in: metrics) }
        if let slash = text.firstIndex(of: "/") {
            let numerator = MetricExpression(String(text[..<slash])).value(in: metrics)
            let denominator = MetricExpression(String(text[text.index(after: slash)...])).value(in: metrics)
            guard let numerator, let denominator, denominator != 0 else { return nil }
            return numerator / denominator
        }
        if text.contains("+") {
            let terms = text.split(separator: "+").compactMap { MetricExpression(String($0)).value(in: metrics) }
            return terms.isEmpty ? nil : terms.reduce(0, +)
        }
        if let counter = metrics.counters[text] { return Double(counter) }
        if let maximum = metrics.maxima[text] { return Double(maximum) }
        guard let dot = text.lastIndex(of: ".") else { return nil }
        let name = String(text[..<dot]), statistic = String(text[text.index(after: dot)...])
        guard let histogram = metrics.histograms[name] else {
            if statistic == "max", let maximum = metrics.maxima[name] { return Double(maximum) }
            return nil
        }
        switch statistic {
        case "count": return Double(histogram.totalCount)
        case "mean": return histogram.mean
        case "max": return histogram.isEmpty ? nil : Double(histogram.max)
        case "min": return histogram.isEmpty ? nil : Double(histogram.min)
        default:
            guard statistic.hasPrefix("p"), let digits = Double(statistic.dropFirst()) else { return nil }
            // p50, p99, p999 (99.9), p9999 (99.99)
            var percentile = digits
            while percentile > 100 { percentile /= 10 }
            return histogram.percentile(percentile).map(Double.init)
        }
    }

    /// Whether the named metric is a latency (histogram in nanoseconds), for formatting.
    package func isDuration(in metrics: MetricSet) -> Bool {
        guard !text.contains("/"), let dot = text.lastIndex(of: ".") else { return false }
        let statistic = text[text.index(after: dot)...]
        guard let histogram = metrics.histograms[String(text[..<dot])], statistic != "count" else { return false }
        return histogram.configuration == .latency
    }
}

/// The result of checking one threshold against one group.
package struct ThresholdResult: Sendable, Equatable {
    package var threshold: Threshold
    package var group: String
    /// `nil`: the metric was not recorded for the group (counts as failed: a check that cannot
    /// be made must not pass silently).
    package var value: Double?
    package var passed: Bool
    /// The metric is a latency in nanoseconds (shown as a duration).
    package var isDuration: Bool = false
    /// Why a value is missing when it was not simply unrecorded ("every request failed").
    package var unmeasurable: String? = nil

    package var message: String {
        let limits = [threshold.minimum.map { "≥ \(format($0))" }, threshold.maximum.map { "≤ \(format($0))" }]
            .compactMap { $0 }.joined(separator: " and ")
        if let unmeasurable { return "\(group): \(threshold.metric) cannot be measured: \(unmeasurable) (required \(limits))" }
        guard let value else { return "\(group): \(threshold.metric) was not recorded (required \(limits))" }
        return "\(group): \(threshold.metric) = \(format(value)) (required \(limits))\(passed ? "" : " FAILED")"
    }

    func format(_ value: Double) -> String {
        if isDuration { return RunSummary.formatDuration(value) }
        return value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : String(format: "%.4g", value)
    }
}

extension Threshold {
    /// Checks the threshold against every matching group of `record`.
    package func evaluate(_ record: RunRecord) -> [ThresholdResult] {
        let expression = MetricExpression(metric)
        return record.groups.compactMap { group in
            if let strategy, group.name != strategy { return nil }
            if let runner, group.labels["runner"] != runner { return nil }
            let isDuration = expression.isDuration(in: group.metrics)
            // A latency of a group whose every request failed describes no answer at all (the
            // settles that needed no request): it must not pass as "0ns".
            if isDuration, MetricExpression.failedShare(in: group.metrics) == 1 {
                return ThresholdResult(threshold: self, group: group.key, value: nil, passed: false, isDuration: true,
                                       unmeasurable: "every request failed")
            }
            let value = expression.value(in: group.metrics)
            let passed = value.map { value in
                (minimum.map { value >= $0 } ?? true) && (maximum.map { value <= $0 } ?? true)
            } ?? false
            return ThresholdResult(threshold: self, group: group.key, value: value, passed: passed, isDuration: isDuration)
        }
    }
}

import Foundation
