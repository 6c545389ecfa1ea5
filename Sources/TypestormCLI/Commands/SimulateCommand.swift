import Foundation
import Measurement
import SearchField
import Simulation

/// `typestorm simulate`: many synthetic typists against every preset in virtual time, one
/// comparison table.
enum SimulateCommand {
    static let command = Command(
        name: "simulate",
        abstract: "Run synthetic typists against the strategies in virtual time and compare them.",
        discussion: """
        Every strategy sees the same keystrokes (derived from the seed and each typist's index) and
        the same modelled backend: network round trip, servers of --workers workers shared by
        --per-server typists each, log-normal service time with a slow tail, errors, timeouts and
        cancellation (--cancel). Same flags and seed, same numbers.

        Strategies: \(Preset.allCases.map(\.rawValue).joined(separator: ", ")); add variants with
        '+write-back', '+text-keyed' or '+cache' (e.g. split-state+cache).
        """,
        options: [
            .value("typists", "N", help: "Number of typists.", default: "1000"),
            .value("seed", "S", help: "Seed for every random stream.", default: "1"),
            .value("strategies", "LIST", help: "Comma-separated strategies (default: every preset)."),
            .value("queries", "N", help: "Queries each typist types.", default: "4"),
            .value("workers", "N", help: "Workers per server.", default: "8"),
            .value("per-server", "N", help: "Typists sharing one server (segments split on these cells).", default: "100"),
            .value("service", "DURATION", help: "Median service time (log-normal, σ 0.5).", default: "20ms"),
            .value("rtt", "DURATION", help: "Median network round trip (log-normal, σ 0.3).", default: "40ms"),
            .value("error-rate", "P", help: "Share of requests the server fails.", default: "0.002"),
            .value("cancel", "MODE", help: "How cancellation reaches the server: honoured, client-only, ignored.", default: "honoured"),
            .value("cancel-delay", "DURATION", help: "With --cancel honoured: how long the server takes to notice.", default: "5ms"),
            .value("segment", "I/N", help: "Simulate only segment I of N (whole server cells), for sharding.", default: "0/1"),
            .value("record", "FILE", help: "Also write the mergeable run record (JSON) to FILE."),
            .json,
        ],
        run: run
    )

    static func run(_ invocation: Invocation) async throws -> Int32 {
        let arguments = invocation.arguments
        let typists = try arguments.int("typists", default: 1000, in: 1...10_000_000)
        let seed = try arguments.uint64("seed", default: 1)
        let strategies = try parseStrategies(arguments.value("strategies"))
        let segment = try parseSegment(arguments.value("segment") ?? "0/1")
        var backend = BackendModel(
            roundTrip: .logNormal(median: try arguments.durationNanos("rtt", default: 40_000_000)!, sigma: 0.3),
            workers: try arguments.int("workers", default: 8, in: 1...1_000_000),
            typistsPerServer: try arguments.int("per-server", default: 100, in: 1...10_000_000),
            service: .distribution(.logNormal(median: try arguments.durationNanos("service", default: 20_000_000)!, sigma: 0.5)),
            errorRate: try arguments.double("error-rate", default: 0.002, in: 0...1))
        backend.cancellation = try parseCancellation(arguments)
        let typing = SimpleTypingModel(queriesPerSession: try arguments.int("queries", default: 4, in: 1...1000))
        let scenario = SimulationScenario(typists: typists, seed: seed, strategies: strategies, backend: backend, typing: typing)

        let console = invocation.console
        let started = Date()
        var index = 0
        let record = Simulation.run(scenario, segment: segment, toolVersion: VersionCommand.version) { name in
            index += 1
            console.err("simulating \(name) (\(index)/\(strategies.count), \(typists) typists)…\n")
        }
        let elapsed = Date().timeIntervalSince(started)
        if let path = arguments.value("record") {
            do {
                try record.encoded().write(to: URL(fileURLWithPath: path))
            } catch {
                throw ToolError("cannot write the run record to '\(path)': \(error.localizedDescription)", exitCode: ExitCode.cannotCreate)
            }
        }
        if arguments.flag("json") {
            let output = SimulateOutput(
                scenario: .init(name: scenario.name, hash: scenario.hash, typists: typists, seed: seed,
                                segment: "\(segment.index)/\(segment.count)", backend: describe(backend)),
                strategies: strategies.compactMap { spec in
                    record.groups.first { $0.name == spec.name }.map { StrategyMetricsJSON(name: $0.name, metrics: MetricsJSON($0.metrics)) }
                })
            console.out(try encodeJSON(output) + "\n")
        } else {
            console.out("Simulated \(typists) typists (segment \(segment.index)/\(segment.count)), seed \(seed), in \(String(format: "%.1f", elapsed)) s\n")
            console.out("Backend: \(describe(backend))\n\n")
            let groups = strategies.compactMap { spec in record.groups.first { $0.name == spec.name } }
            console.out(comparisonTable(groups.map { ($0.name, $0.metrics) }))
            console.out("""

            req/settle: requests per settle (burst of typing); churn: debounce waits cancelled per settle;
            ooo: out-of-order applies; stale: settles ending on a wrong screen; mismatch: share of time the
            screen answered another query; TTFR: time from the last keystroke to fresh results; never: settles
            never fresh; false∅: false empties per settle; wasted: share of server time spent on unused work.

            """)
        }
        return ExitCode.success
    }

    static func parseStrategies(_ text: String?, option: String = "strategies") throws -> [StrategySpec] {
        guard let text, !text.isEmpty else { return Preset.allCases.map { StrategySpec(preset: $0) } }
        return try text.split(separator: ",").map { name in
            let name = name.trimmingCharacters(in: .whitespaces)
            guard let spec = StrategySpec.parse(name) else {
                let base = String(name.split(separator: "+").first ?? "")
                let hint = Spelling.suggestion(for: base, among: Preset.allCases.map(\.rawValue)).map { " (did you mean '\($0)'?)" } ?? ""
                throw UsageError.invalidValue(
                    option: option, value: name,
                    expected: "presets \(Preset.allCases.map(\.rawValue).joined(separator: ", ")) with optional +write-back, +text-keyed, +cache" + hint)
            }
            return spec
        }
    }

    static func parseSegment(_ text: String) throws -> Segment {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (0..<count).contains(index) else {
            throw UsageError.invalidValue(option: "segment", value: text, expected: "I/N with 0 ≤ I < N, e.g. 0/4")
        }
        return Segment(index: index, count: count)
    }

    static func parseCancellation(_ arguments: ParsedArguments) throws -> CancellationMode {
        switch try arguments.choice("cancel", among: ["honoured", "client-only", "ignored"], default: "honoured") {
        case "client-only": return .clientOnly
        case "ignored": return .ignored
        default: return .honoured(delay: try arguments.durationNanos("cancel-delay", default: 5_000_000)!)
        }
    }

    static func describe(_ backend: BackendModel) -> String {
        if backend.scriptedDefault != nil || !backend.scripted.isEmpty {
            let scripted = backend.scripted.keys.sorted().map { "\($0)=\(millis(backend.scripted[$0]!))" }
            let all = scripted + (backend.scriptedDefault.map { ["*=\(millis($0))"] } ?? [])
            return "scripted (\(all.joined(separator: ", "))), cancellation \(backend.cancellation)"
        }
        let service: String = switch backend.service {
        case let .distribution(distribution): "\(distribution)"
        case let .cost(model): "\(model.catalogItems) items at \(model.nanosPerItem) ns/item"
        }
        return "rtt \(backend.roundTrip), \(backend.workers) workers per \(backend.typistsPerServer) typists, service \(service), "
            + "slow tail \(backend.slowTailProbability * 100)% ×\(Int(backend.slowTailFactor)), errors \(backend.errorRate * 100)%, "
            + "cancellation \(backend.cancellation)"
    }

    // MARK: Rendering

    static func millis(_ ns: Int64) -> String {
        let value = Double(ns) / 1e6
        if value >= 100 { return "\(Int(value.rounded()))ms" }
        if value >= 10 { return String(format: "%.1fms", value) }
        return String(format: "%.2fms", value)
    }

    static func share(_ value: Double?) -> String {
        value.map { String(format: "%.1f%%", $0 * 100) } ?? "–"
    }

    static func number(_ value: Double?, digits: Int = 2) -> String {
        value.map { String(format: "%.\(digits)f", $0) } ?? "–"
    }

    static func comparisonTable(_ rows: [(String, MetricSet)]) -> String {
        let headers = ["strategy", "req/settle", "req/key", "churn", "ooo", "stale", "mismatch", "TTFR p50", "TTFR p90",
                       "never", "false∅", "blinks", "wasted", "queue p90", "latency p90"]
        let body = rows.map { name, metrics -> [String] in
            let derived = DerivedMetrics(metrics)
            let ttfr = metrics.histograms[MetricName.timeToFresh]
            return [
                name, number(derived.requestsPerSettle), number(derived.requestsPerKeystroke), number(derived.taskChurnPerSettle),
                "\(derived.outOfOrderApplies)", share(derived.staleSettleShare), share(derived.mismatchShare),
                ttfr?.percentile(50).map(millis) ?? "–", ttfr?.percentile(90).map(millis) ?? "–",
                share(derived.neverFreshShare), number(derived.falseEmptiesPerSettle), number(derived.blinksPerSettle),
                share(derived.wastedServiceShare),
                metrics.histograms[MetricName.queueTime]?.percentile(90).map(millis) ?? "–",
                metrics.histograms[MetricName.requestLatency]?.percentile(90).map(millis) ?? "–",
            ]
        }
        return renderTable(headers: headers, rows: body)
    }

    /// Left-aligned first column, right-aligned numbers.
    static func renderTable(headers: [String], rows: [[String]]) -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ") + "\n"
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ") + "\n"
        return line(headers) + rule + rows.map(line).joined()
    }
}

/// A strategy's metrics as `--json` prints them: the recorder's counters, maxima and histogram
/// summaries by their `MetricName`, and the derived ratios.
struct MetricsJSON: Codable {
    var counters: [String: Int64]
    var maxima: [String: Int64]
    var histograms: [String: HistogramSummary]
    var derived: DerivedMetrics

    init(_ metrics: MetricSet) {
        counters = metrics.counters
        maxima = metrics.maxima
        histograms = metrics.histograms.mapValues(HistogramSummary.init)
        derived = DerivedMetrics(metrics)
    }
}

struct StrategyMetricsJSON: Codable {
    var name: String
    var metrics: MetricsJSON
}

struct SimulateOutput: Codable {
    struct Scenario: Codable {
        var name: String
        var hash: String
        var typists: Int
        var seed: UInt64
        var segment: String
        var backend: String
    }

    var scenario: Scenario
    var strategies: [StrategyMetricsJSON]
}

func encodeJSON<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
