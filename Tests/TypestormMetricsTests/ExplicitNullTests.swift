import Foundation
import Testing
import TypestormMetrics

/// `@ExplicitNull`: a `nil` optional keeps its key as `null`; decoding takes `null` or no key.
@Suite("Explicit null", .timeLimit(.minutes(5)))
struct ExplicitNullTests {
    struct Sample: Codable, Equatable {
        @ExplicitNull var ratio: Double?
        var plain: Double?
        var count: Int
    }

    static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func nilIsWrittenAsNullWhereAPlainOptionalIsLeftOut() throws {
        #expect(try Self.text(Sample(ratio: nil, plain: nil, count: 3)) == #"{"count":3,"ratio":null}"#)
        #expect(try Self.text(Sample(ratio: 0.25, plain: 1, count: 3)) == #"{"count":3,"plain":1,"ratio":0.25}"#)
    }

    @Test func decodingTakesNullOrAMissingKey() throws {
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Sample.self, from: Data(#"{"count":1,"ratio":null}"#.utf8)) == Sample(ratio: nil, count: 1))
        #expect(try decoder.decode(Sample.self, from: Data(#"{"count":1}"#.utf8)) == Sample(ratio: nil, count: 1))
        #expect(try decoder.decode(Sample.self, from: Data(#"{"count":1,"ratio":2.5}"#.utf8)) == Sample(ratio: 2.5, count: 1))
        #expect(throws: DecodingError.self) { try decoder.decode(Sample.self, from: Data(#"{"count":1,"ratio":"x"}"#.utf8)) }
    }

    @Test func derivedMetricsAndHistogramSummariesKeepEveryKey() throws {
        let empty = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(DerivedMetrics(MetricSet()))) as? [String: Any])
        #expect(empty.count == 18)
        #expect(empty["requests_per_settle"] is NSNull)
        #expect(empty["out_of_order_applies"] as? Int == 0)
        let summary = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(HistogramSummary(Histogram(.latency)))) as? [String: Any])
        #expect(Set(summary.keys) == ["count", "mean", "p50", "p90", "p95", "p99", "p999", "max"])
        #expect(summary["p99"] is NSNull)
        let decoded = try JSONDecoder().decode(DerivedMetrics.self, from: JSONEncoder().encode(DerivedMetrics(MetricSet())))
        #expect(decoded == DerivedMetrics(MetricSet()))
    }
}
