import Foundation
import Testing
@testable import TypestormMetrics

/// The packed wire form of histogram counts (`Histogram.packedCountsKey`, used by the worker
/// protocol) and the array form that run records on disk keep.
@Suite("Histogram codec", .timeLimit(.minutes(5)))
struct HistogramCodecTests {
    static func encoder(packed: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if packed { encoder.userInfo[Histogram.packedCountsKey] = true }
        return encoder
    }

    static func roundTrip(_ histogram: Histogram, packed: Bool) throws -> Histogram {
        try JSONDecoder().decode(Histogram.self, from: Self.encoder(packed: packed).encode(histogram))
    }

    static func json(_ histogram: Histogram, packed: Bool) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Self.encoder(packed: packed).encode(histogram)) as? [String: Any])
    }

    /// Latencies over six decades with counts from 1 to large, from a seeded LCG.
    static func random(seed: UInt64, values: Int, configuration: Histogram.Configuration) -> Histogram {
        var state = seed
        var histogram = Histogram(configuration)
        for _ in 0..<values {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let unit = Double(state >> 11) * 0x1.0p-53
            let value = Int64(pow(10, unit * 12.6))
            histogram.record(value, count: Int64(state >> 60) + 1 + (state & 1 == 0 ? Int64(state >> 40) : 0))
        }
        return histogram
    }

    static let cases: [(String, Histogram)] = {
        var single = Histogram(.latency)
        single.record(1_500_000)
        var top = Histogram(.counts)
        top.record(5_000_000_000) // above highestTrackable: the last slot, clamped
        var huge = Histogram(.latency)
        huge.record(2_000, count: Int64.max / 2)
        huge.record(3_000_000_000_000, count: Int64.max / 2)
        var first = Histogram(.counts)
        first.record(0, count: 3)
        return [
            ("empty", Histogram(.latency)), ("single bucket", single), ("slot 0", first), ("top slot", top), ("huge counts", huge),
            ("random latencies", random(seed: 1, values: 20_000, configuration: .latency)),
            ("random counts", random(seed: 2, values: 5_000, configuration: .counts)),
        ]
    }()

    @Test(arguments: cases.map(\.0))
    func packedFormRoundTrips(name: String) throws {
        let histogram = try #require(Self.cases.first { $0.0 == name }?.1)
        let packed = try Self.roundTrip(histogram, packed: true)
        #expect(packed == histogram)
        #expect(packed.counts == histogram.counts)
        #expect(try Self.roundTrip(histogram, packed: false) == histogram)
        // The packed form holds the same pairs as the documented array form, in a string.
        let object = try Self.json(histogram, packed: true)
        #expect(object["counts"] == nil)
        #expect(object["packedCounts"] is String)
    }

    @Test func runRecordsOnDiskKeepTheCountsArray() throws {
        var metrics = MetricSet()
        metrics.record("ttfr", 1_000_000)
        metrics.record("ttfr", 1_000_000_000)
        let record = RunRecord(metadata: RunMetadata(toolVersion: "t", scenarioName: "s", scenarioHash: "h", seed: 1, runner: "virtual",
                                                     segments: [Segment(index: 0, count: 1)]),
                               groups: [MetricGroup(name: "naive", metrics: metrics)])
        let text = String(decoding: try record.encoded(), as: UTF8.self)
        #expect(!text.contains("packedCounts"))
        let object = try #require(JSONSerialization.jsonObject(with: try record.encoded()) as? [String: Any])
        let groups = try #require(object["groups"] as? [[String: Any]])
        let histograms = try #require((groups.first?["metrics"] as? [String: Any])?["histograms"] as? [String: Any])
        let ttfr = try #require(histograms["ttfr"] as? [String: Any])
        #expect((ttfr["counts"] as? [Any])?.count == 4)
    }

    @Test func bothFormsDecodeToTheSameHistogram() throws {
        let histogram = Self.random(seed: 9, values: 3_000, configuration: .latency)
        let array = try JSONDecoder().decode(Histogram.self, from: Self.encoder(packed: false).encode(histogram))
        let packed = try JSONDecoder().decode(Histogram.self, from: Self.encoder(packed: true).encode(histogram))
        #expect(array == packed)
        // And the packed text is much shorter than the array it replaces.
        let arrayBytes = try Self.encoder(packed: false).encode(histogram).count
        let packedBytes = try Self.encoder(packed: true).encode(histogram).count
        #expect(packedBytes * 2 < arrayBytes, "packed \(packedBytes) bytes vs array \(arrayBytes)")
    }

    @Test func base64MatchesFoundation() throws {
        var state: UInt64 = 5
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            let text = Base64.encode(bytes)
            #expect(text == Data(bytes).base64EncodedString())
            #expect(try Base64.decode(text) == bytes)
        }
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
    }

    /// A histogram JSON object whose packed counts are `packed` (and whose count is `count`).
    static func packedJSON(_ packed: String, count: Int64 = 1) -> Data {
        Data(#"{"configuration":{"digits":3,"highest":1000000000,"lowest":1},"count":\#(count),"sum":1,"min":1,"max":1,"clamped":0,"packedCounts":"\#(packed)"}"#.utf8)
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    @Test(arguments: [
        ("not base64", "a!b@", "not base64"),
        ("bad length", "QUJD=", "multiple of 4"),
        ("padding inside", "QQ==QUJD", "not base64"),
        ("truncated varint", base64([0x00, 0x81]), "end inside a number"),
        ("missing count", base64([0x05]), "end inside a number"),
        ("over 64 bits", base64([0x00] + Array(repeating: 0xFF, count: 10) + [0x01]), "over 64 bits"),
        ("bucket out of range", base64([0xFF, 0xFF, 0xFF, 0x7F, 0x01]), "beyond"),
        ("zero count", base64([0x01, 0x00]), "count 0"),
        ("negative count", base64([0x01] + Array(repeating: 0xFF, count: 9) + [0x01]), "count -1"),
    ])
    func malformedPackedCountsAreDecodeErrors(name: String, packed: String, fragment: String) {
        #expect {
            try JSONDecoder().decode(Histogram.self, from: Self.packedJSON(packed))
        } throws: { error in
            guard case let .dataCorrupted(context)? = error as? DecodingError else { return false }
            return context.debugDescription.contains(fragment)
        }
    }

    @Test func packedTotalsAreChecked() throws {
        // Two buckets of Int64.max: the total overflows (an error, not a trap).
        let max = [UInt8](repeating: 0xFF, count: 8) + [0x7F]
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Histogram.self, from: Self.packedJSON(Self.base64([0x00] + max + [0x00] + max)))
        }
        // A count that disagrees with the buckets.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Histogram.self, from: Self.packedJSON(Self.base64([0x03, 0x02]), count: 1))
        }
        // The same bucket, right count: accepted.
        let histogram = try JSONDecoder().decode(Histogram.self, from: Self.packedJSON(Self.base64([0x03, 0x02]), count: 2))
        #expect(histogram.totalCount == 2)
        #expect(histogram.counts[3] == 2)
    }
}
