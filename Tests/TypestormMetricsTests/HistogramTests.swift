import Foundation
import Testing
@testable import TypestormMetrics

@Suite("Histogram", .timeLimit(.minutes(5)))
struct HistogramTests {
    /// A deterministic stream of latencies spread over six decades (1 µs to 1 s).
    static func latencies(count: Int, seed: UInt64) -> [Int64] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let unit = Double(state >> 11) * 0x1.0p-53
            return Int64(pow(10, 3 + unit * 6))
        }
    }

    @Test func percentilesKeepThreeSignificantDigits() throws {
        let values = Self.latencies(count: 20_000, seed: 7)
        var histogram = Histogram(.latency)
        values.forEach { histogram.record($0) }
        let sorted = values.sorted()
        for p in [50.0, 90.0, 99.0, 99.9] {
            let exact = sorted[Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1]
            let measured = try #require(histogram.percentile(p))
            #expect(measured >= exact, "p\(p): \(measured) below exact \(exact)")
            #expect(Double(measured - exact) <= Double(exact) * 0.001 + 1, "p\(p): \(measured) vs exact \(exact)")
        }
        #expect(histogram.percentile(100) == sorted.last)
        #expect(histogram.min == sorted.first)
        #expect(histogram.totalCount == 20_000)
        #expect(histogram.sum == values.reduce(0, +))
    }

    @Test func smallCountsAreExact() {
        var histogram = Histogram(.counts)
        for value in [0, 1, 1, 2, 3, 5, 8, 13, 21, 34] as [Int64] { histogram.record(value) }
        #expect(histogram.percentile(50) == 3)
        #expect(histogram.percentile(90) == 21)
        #expect(histogram.percentile(0) == 0)
        #expect(histogram.mean == 8.8)
    }

    @Test func mergingShardsEqualsRecordingIntoOne() throws {
        let values = Self.latencies(count: 9_000, seed: 42)
        var whole = Histogram(.latency)
        var shards = [Histogram](repeating: Histogram(.latency), count: 3)
        for (i, value) in values.enumerated() {
            whole.record(value)
            shards[i % 3].record(value)
        }
        var merged = Histogram(.latency)
        for shard in shards.reversed() { try merged.merge(shard) }
        #expect(merged == whole)
    }

    /// The counts live in pages allocated on first use: pages touched in one histogram and not
    /// in the other never make them differ, and answers read every page in slot order.
    @Test func pagedCountsAnswerLikeDenseOnes() throws {
        let values = Self.latencies(count: 5_000, seed: 3)
        var dense = [Int64](repeating: 0, count: Histogram.Configuration.latency.countsLength)
        var histogram = Histogram(.latency)
        for value in values {
            histogram.record(value)
            dense[Histogram.Configuration.latency.index(of: value)] += 1
        }
        for index in [0, 63, 64, 5_000, dense.count - 1] { #expect(histogram.counts[index] == dense[index]) }
        let expected = dense.indices.filter { dense[$0] != 0 }
        #expect(histogram.buckets.map(\.value) == expected.map { Histogram.Configuration.latency.lowestValue(atIndex: $0) })
        #expect(histogram.buckets.map(\.count) == expected.map { dense[$0] })

        var touched = Histogram(.latency)
        touched.record(1_000_000)
        var other = Histogram(.latency)
        other.record(1_000_000)
        #expect(touched == other)
        touched.record(2_000_000_000)
        other.record(2_000_000_000, count: 1)
        #expect(touched == other)
        other.record(3_000)
        #expect(touched.counts != other.counts)
        #expect(Histogram(.latency) == Histogram(.latency))
    }

    @Test func mergeRefusesADifferentShape() {
        var latency = Histogram(.latency)
        var counts = Histogram(.counts)
        counts.record(3)
        #expect(throws: MergeError.self) { try latency.merge(counts) }
    }

    @Test func valuesAboveTheRangeAreClampedButCounted() {
        var histogram = Histogram(.latency)
        histogram.record(7_200_000_000_000)
        #expect(histogram.clamped == 1)
        #expect(histogram.max == 7_200_000_000_000)
        #expect(histogram.totalCount == 1)
    }

    @Test func codableRoundTripIsExactAndSparse() throws {
        var histogram = Histogram(.latency)
        Self.latencies(count: 500, seed: 3).forEach { histogram.record($0) }
        let data = try JSONEncoder().encode(histogram)
        let decoded = try JSONDecoder().decode(Histogram.self, from: data)
        #expect(decoded == histogram)
        #expect(data.count < 10_000)
    }

    @Test func decodingRejectsInconsistentCounts() {
        let json = #"{"configuration":{"lowest":1,"highest":1000,"digits":3},"count":5,"sum":3,"min":1,"max":2,"clamped":0,"counts":[1,2]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Histogram.self, from: Data(json.utf8)) }
    }

    @Test func fractionAtOrBelow() {
        var histogram = Histogram(.counts)
        for value in 1...100 as ClosedRange<Int64> { histogram.record(value) }
        #expect(histogram.fraction(atOrBelow: 25) == 0.25)
        #expect(histogram.fraction(atOrBelow: 1_000) == 1)
    }
}

@Suite("Run record", .timeLimit(.minutes(5)))
struct RunRecordTests {
    func record(segment: Int, of count: Int, requests: Int64, latency: [Int64]) -> RunRecord {
        var metrics = MetricSet()
        metrics.add("requests.started", requests)
        metrics.raiseMaximum("inflight.max", to: requests)
        latency.forEach { metrics.record("request.latency", $0) }
        let metadata = RunMetadata(toolVersion: "test", scenarioName: "s", scenarioHash: "abc", seed: 9, runner: "virtual", segments: [Segment(index: segment, count: count)])
        return RunRecord(metadata: metadata, groups: [MetricGroup(name: "naive", metrics: metrics)])
    }

    @Test func mergeAddsCountersAndCoversSegments() throws {
        var merged = record(segment: 1, of: 2, requests: 5, latency: [2_000, 3_000])
        try merged.merge(record(segment: 0, of: 2, requests: 7, latency: [4_000]))
        let group = try #require(merged.group(named: "naive"))
        #expect(group.metrics.counter("requests.started") == 12)
        #expect(group.metrics.maxima["inflight.max"] == 7)
        #expect(group.metrics.histograms["request.latency"]?.totalCount == 3)
        #expect(merged.metadata.segments == [Segment(index: 0, count: 2), Segment(index: 1, count: 2)])
        #expect(merged.coversAllSegments)
    }

    @Test func mergeRefusesTheSameSegmentTwiceAndOtherScenarios() {
        var a = record(segment: 0, of: 2, requests: 1, latency: [])
        #expect(throws: MergeError.self) { try a.merge(record(segment: 0, of: 2, requests: 1, latency: [])) }
        var other = record(segment: 1, of: 2, requests: 1, latency: [])
        other.metadata.scenarioHash = "different"
        #expect(throws: MergeError.self) { try a.merge(other) }
    }

    @Test func encodingIsStableAndRoundTrips() throws {
        let a = record(segment: 0, of: 1, requests: 3, latency: [1_500, 2_500])
        let bytes = try a.encoded()
        #expect(try a.encoded() == bytes)
        #expect(try RunRecord.decode(bytes) == a)
    }

    /// Groups added in any order end up in key order, each key once, with equal keys merged: the
    /// same record as adding them one by one to a list searched and sorted in full each time.
    @Test func groupsStayInKeyOrderWhateverTheOrderTheyCameIn() throws {
        var keys: [(String, [String: String])] = []
        for index in 0..<300 {
            keys.append(("s\(index % 7)", index % 3 == 0 ? [:] : ["debounce": String(index % 50), "population": "p\(index % 4)"]))
        }
        // A fixed shuffle (a multiplicative walk over the indices), so the test is the same every run.
        let order = (0..<keys.count).map { ($0 * 97 + 13) % keys.count }
        var record = RunRecord(metadata: RunMetadata(toolVersion: "test", scenarioName: "s", scenarioHash: "abc", seed: 1, runner: "virtual", segments: [Segment(index: 0, count: 1)]))
        var reference: [MetricGroup] = []
        for index in order {
            var metrics = MetricSet()
            metrics.add("settles", Int64(index + 1))
            let group = MetricGroup(name: keys[index].0, labels: keys[index].1, metrics: metrics)
            try record.add(group)
            if let found = reference.firstIndex(where: { $0.key == group.key }) {
                try reference[found].metrics.merge(group.metrics)
            } else {
                reference.append(group)
                reference.sort { $0.key < $1.key }
            }
        }
        #expect(record.groups == reference)
        #expect(zip(record.groups, record.groups.dropFirst()).allSatisfy { $0.key < $1.key })
        for group in reference {
            #expect(record.group(named: group.name, labels: group.labels) == group)
        }
        #expect(record.group(named: "absent") == nil)
    }

    /// A record file listing its groups out of order reads back in key order, and a group added
    /// to it merges into the one of the same key.
    @Test func decodingPutsGroupsInKeyOrder() throws {
        var metrics = MetricSet()
        metrics.add("settles", 2)
        let a = RunRecord(metadata: RunMetadata(toolVersion: "test", scenarioName: "s", scenarioHash: "abc", seed: 1, runner: "virtual", segments: [Segment(index: 0, count: 1)]),
                          groups: ["a", "b", "c", "d"].map { MetricGroup(name: $0, metrics: metrics) })
        var object = try #require(try JSONSerialization.jsonObject(with: try a.encoded()) as? [String: Any])
        object["groups"] = Array(try #require(object["groups"] as? [Any]).reversed())
        var read = try RunRecord.decode(try JSONSerialization.data(withJSONObject: object))
        #expect(read.groups.map(\.name) == ["a", "b", "c", "d"])
        #expect(read == a)
        try read.add(MetricGroup(name: "c", metrics: metrics))
        #expect(read.groups.map(\.name) == ["a", "b", "c", "d"])
        #expect(read.group(named: "c")?.metrics.counter("settles") == 4)
    }

    @Test func decodingRefusesAnotherSchemaVersion() throws {
        var text = String(decoding: try record(segment: 0, of: 1, requests: 1, latency: []).encoded(), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"schemaVersion\" : 1", with: "\"schemaVersion\" : 99")
        #expect(throws: MergeError.incompatibleSchema(expected: 1, found: 99)) { try RunRecord.decode(Data(text.utf8)) }
    }
}
