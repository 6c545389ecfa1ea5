import ProductCatalog
import Foundation
import Matching
import Orchestration
@testable import SearchServer
import Typists

/// The inputs Typestorm reads from people and from the network, each as a function of raw bytes
/// that must return, for any bytes, without crashing, hanging or leaking (libFuzzer feeds them;
/// `FuzzTests` replays the stored corpora and past crashes through the same functions).
///
/// A parser may reject its input (that is its job); what it may not do is trap, read out of
/// bounds, or answer in a way that breaks its own promise (checked below where there is one).
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `TextFolding`: raw bytes, valid UTF-8 or not, as the engine folds names and queries.
    case folding
    /// The catalog loaders, one per format, strict and skipping bad rows.
    case catalogTSV = "catalog-tsv"
    case catalogCSV = "catalog-csv"
    case catalogJSONL = "catalog-jsonl"
    /// `ScenarioReader`: a scenario file.
    case scenario
    /// `TraceReader`: a keystroke trace (JSON Lines).
    case trace
    /// The server's parser of a request target (`/search?q=...`).
    case request
    /// The server's check of a connection's first request head (request line and headers).
    case requestHead = "request-head"

    /// Runs one input through the target.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .folding: Self.folding(bytes)
        case .catalogTSV: Self.catalog(bytes, format: .tsv)
        case .catalogCSV: Self.catalog(bytes, format: .csv)
        case .catalogJSONL: Self.catalog(bytes, format: .jsonl)
        case .scenario: _ = try? ScenarioReader.read(bytes: bytes, file: "fuzz.json")
        case .trace: _ = try? TraceReader.parse(String(decoding: bytes, as: UTF8.self), file: "fuzz.jsonl")
        case .request: Self.request(bytes)
        case .requestHead: if let violation = Self.requestHeadViolation(bytes) { fatalError(violation) }
        }
    }

    private static func folding(_ bytes: [UInt8]) {
        if let violation = foldingViolation(bytes) { fatalError(violation) }
    }

    /// What `TextFolding` does wrong with `bytes`, or `nil`: for UTF-8 input the output must be
    /// UTF-8, and folding a folded text must change nothing (it is NFKC_Casefold).
    public static func foldingViolation(_ bytes: [UInt8]) -> String? {
        var output: [UInt8] = []
        bytes.withUnsafeBufferPointer { TextFolding.fold($0, into: &output) }
        _ = TextFolding.foldQuery(String(decoding: bytes, as: UTF8.self))
        // The promises hold for UTF-8 input; other bytes only must not crash.
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        guard String(validating: output, as: UTF8.self) != nil else {
            return "folding produced invalid UTF-8 from \(bytes)"
        }
        var again: [UInt8] = []
        output.withUnsafeBufferPointer { TextFolding.fold($0, into: &again) }
        guard again == output else {
            return "folding is not idempotent: \(bytes) -> \(output) -> \(again)"
        }
        return nil
    }

    private static func catalog(_ bytes: [UInt8], format: CatalogFormat) {
        for skip in [false, true] {
            let options = CatalogLoadOptions(format: format, skipBadRows: skip)
            guard let result = try? CatalogLoader.load(bytes: bytes, name: "fuzz.\(format.rawValue)", format: format, options: options) else { continue }
            _ = result.catalog.count
        }
    }

    /// What `RequestHead.scan` does wrong with `bytes`, or `nil`, under the default limits and
    /// under small ones the fuzzer can reach: a complete head holds an empty line after a
    /// non-empty one, an incomplete one is shorter than the limit, a refusal is 414 or 431, and
    /// every prefix of a complete head is incomplete or refused, never complete earlier.
    public static func requestHeadViolation(_ bytes: [UInt8]) -> String? {
        var small = RequestLimits()
        small.maxHeadBytes = 96
        small.maxHeaderLines = 4
        for limits in [RequestLimits(), small] {
            let head = bytes.withUnsafeBytes { RequestHead.scan($0, limits: limits) }
            switch head {
            case .complete:
                // Bytes, not a String: a String compares characters, and a combining mark after
                // a line feed is part of no line feed to it.
                let endsOfLines = bytes.indices.filter { bytes[$0] == 10 }
                let hasEmptyLine = zip(endsOfLines, endsOfLines.dropFirst()).contains { first, next in
                    next == first + 1 || (next == first + 2 && bytes[first + 1] == 13)
                }
                guard hasEmptyLine else { return "complete without an empty line: \(bytes)" }
            case .incomplete:
                guard bytes.count < limits.maxHeadBytes else { return "incomplete at \(bytes.count) bytes, limit \(limits.maxHeadBytes)" }
            case .refused(let rejection):
                guard rejection.status == 414 || rejection.status == 431 else { return "refused with \(rejection.status): \(bytes)" }
            }
        }
        return nil
    }

    private static func request(_ bytes: [UInt8]) {
        let target = String(decoding: bytes, as: UTF8.self)
        let (_, query) = RequestParser.split(target: target)
        guard let parameters = try? RequestParser.parameters(query) else { return }
        for faults in [false, true] {
            _ = try? RequestParser.searchQuery(parameters, limits: RequestLimits(), allowFaultParameters: faults)
        }
    }
}
