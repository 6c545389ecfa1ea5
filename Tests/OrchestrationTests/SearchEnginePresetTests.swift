import Foundation
import LiveLoad
import TypestormMetrics
import Testing
@testable import Orchestration

/// The `preset` of an `http-url` runner against a loopback server answering in each engine's
/// JSON shape: the scenario's preset picks the count path, the runner's backend parses the
/// count from a real HTTP response, and an answer of another engine's shape is `count_missing`.
@Suite("Search engine presets", .timeLimit(.minutes(5)))
struct SearchEnginePresetTests {
    /// A search response of each engine, as the engine's documentation shows it, with 42 hits.
    static let shapes: [SearchEnginePreset: String] = [
        .meilisearch: #"{"hits":[{"id":1,"title":"a"}],"query":"a","processingTimeMs":1,"limit":20,"offset":0,"estimatedTotalHits":42}"#,
        .typesense: #"{"facet_counts":[],"found":42,"hits":[{"document":{"id":"1"},"highlights":[]}],"out_of":500,"page":1,"request_params":{"q":"a"},"search_time_ms":0}"#,
        .elasticsearch: #"{"took":2,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":42,"relation":"eq"},"max_score":1.2,"hits":[{"_id":"1","_score":1.2,"_source":{"title":"a"}}]}}"#,
        .opensearch: #"{"took":3,"timed_out":false,"hits":{"total":{"value":42,"relation":"eq"},"max_score":1.0,"hits":[]}}"#,
        .algolia: #"{"hits":[{"objectID":"1"}],"nbHits":42,"page":0,"nbPages":3,"hitsPerPage":20,"exhaustiveNbHits":true,"query":"a","params":"query=a","processingTimeMS":1}"#,
        .solr: #"{"responseHeader":{"status":0,"QTime":1,"params":{"q":"a"}},"response":{"numFound":42,"start":0,"numFoundExact":true,"docs":[{"id":"1"}]}}"#,
    ]

    /// The backend of an `http-url` runner with `preset`, aimed at `path` on `port`.
    func backend(preset: SearchEnginePreset, port: UInt16, path: String) throws -> any LiveSearchBackend {
        try httpURLBackend(#""preset": "\#(preset.rawValue)", "url": "http://127.0.0.1:\#(port)/\#(path)?q={query}""#)
    }

    @Test(arguments: SearchEnginePreset.allCases)
    func eachPresetReadsItsEnginesCount(_ preset: SearchEnginePreset) async throws {
        let server = try CannedJSONServer { path in
            let engine = path.dropFirst().prefix { $0 != "?" }
            return SearchEnginePreset(rawValue: String(engine)).flatMap { Self.shapes[$0] } ?? #"{"unexpected":true}"#
        }
        defer { server.close() }
        let right = try backend(preset: preset, port: server.port, path: preset.rawValue)
        defer { right.shutdown() }
        let outcome = await searchOnce(right)
        #expect(outcome.result == .results(count: 42), "\(preset): \(outcome.result)")
        #expect(outcome.errorCause == nil)

        // Another engine's answer has no count where this preset looks.
        let other: SearchEnginePreset = preset == .solr ? .meilisearch : .solr
        let wrong = try backend(preset: preset, port: server.port, path: other.rawValue)
        defer { wrong.shutdown() }
        let missing = await searchOnce(wrong)
        #expect(missing.result == .failed(.serverError), "\(preset) reading a \(other) answer: \(missing.result)")
        #expect(missing.errorCause == .countMissing)
    }
}
