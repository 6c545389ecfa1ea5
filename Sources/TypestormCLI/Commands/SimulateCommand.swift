import Diagnostics
import FieldHarness
import FieldRuntime
import Foundation
import Reporting
import TypestormMetrics
import Orchestration
import TypestormSystem
import SearchField
import Simulation

/// `typestorm simulate`: many synthetic typists against every preset in virtual time, one
/// comparison table.
enum SimulateCommand {
    /// The modelled backend's defaults: a scenario's, so `simulate` and a scenario without a
    /// `backend` block run the same model.
    static let defaults = ScenarioBackend()

    static let command = Command(
        name: "simulate",
        abstract: "Run synthetic typists against the strategies in virtual time and compare them.",
        discussion: """
        The typists are the ones a scenario's virtual runner types (the Typists module's model of
        human typing: speed, slips and corrections, pauses, Korean and Chinese input methods), on
        the --device keyboard in the --language languages, searching for phrases of the shipped
        query lists. Every strategy sees the same keystrokes (derived from the seed and each
        typist's index) and the same modelled backend: network round trip, servers of --workers workers shared by
        --per-server typists each, log-normal service time with a slow tail, errors, timeouts and
        cancellation (--cancel). Same flags and seed, same numbers.

        Strategies: \(Preset.allCases.map(\.rawValue).joined(separator: ", ")); add variants with
        '+write-back', '+text-keyed' or '+cache' (e.g. split-state+cache).
        """,
        options: [
            .value("typists", "N", help: "Number of typists.", default: "1000"),
            .value("seed", "S", help: "Seed for every random stream.", default: "1"),
            .value("strategies", "LIST", help: "Comma-separated strategies (default: every preset)."),
            .value("queries", "N", help: "Most queries each typist searches for.", default: "4"),
            .value("language", "L", help: "Query languages, comma-separated, equal shares: en, ko, zh.", default: "en"),
            .value("device", "KIND", help: "Keyboard: desktop or mobile.", default: "desktop"),
            .value("query-lists", "DIR", help: "Query lists the typists search for (default: the shipped Datasets/queries)."),
            .value("workers", "N", help: "Workers per server.", default: "\(defaults.workers)"),
            .value("per-server", "N", help: "Typists sharing one server (segments split on these cells).", default: "\(defaults.typistsPerServer)"),
            .value("service", "DURATION", help: "Median service time (log-normal through the median and --service-p99).",
                   default: DurationText.format(defaults.serviceMedianNanos)),
            .value("service-p99", "DURATION", help: "99th percentile of the service time.", default: DurationText.format(defaults.serviceP99Nanos)),
            .value("slow-tail", "P", help: "Share of requests whose service time is multiplied by --slow-tail-factor.",
                   default: "\(defaults.slowTailProbability)"),
            .value("slow-tail-factor", "F", help: "Slow-tail multiplier.", default: "\(defaults.slowTailFactor)"),
            .value("rtt", "DURATION", help: "Median network round trip (log-normal, σ \(defaults.networkRTTSpread)).",
                   default: DurationText.format(defaults.networkRoundTripNanos)),
            .value("error-rate", "P", help: "Share of requests the server fails.", default: "\(defaults.errorRate)"),
            .value("network", "PROFILE", help: "Every typist's access network, added to --rtt: \(NetworkProfile.all.map(\.name).joined(separator: ", ")) (docs/strategies.md)."),
            .value("cancel", "MODE", help: "How cancellation reaches the server: honoured, client-only, ignored.", default: defaults.cancellation.rawValue),
            .value("cancel-delay", "DURATION", help: "With --cancel honoured: how long the server takes to notice.",
                   default: DurationText.format(defaults.cancelDelayNanos)),
            .value("segment", "I/N", help: "Simulate only segment I of N (whole server cells), for sharding.", default: "0/1"),
            .value("record", "FILE", help: "Also write the mergeable run record (JSON) to FILE."),
            .value("field-parameters", "LIST", help: "Parameters your fields' factories read: NAME=VALUE, comma-separated."),
            .value("timeline", "TYPIST[@MS]", help: "Also show typist TYPIST's timeline in each field of yours, as 'replay' does; with @MS only the search around MS ms (5 s before to 2 s after)."),
            .json,
        ],
        run: run
    )

    static func run(_ invocation: Invocation) async throws -> Int32 {
        let arguments = invocation.arguments
        let typists = try arguments.int("typists", default: 1000, in: 1...10_000_000)
        let seed = try arguments.uint64("seed", default: 1)
        let choices = try parseChoices(arguments.value("strategies"))
        let strategies = choices.compactMap(\.preset)
        let fieldParameters = try parseFieldParameters(arguments.value("field-parameters"))
        let segment = try parseSegment(arguments.value("segment") ?? "0/1")
        // The scenario's defaults (one place), with the flags on top.
        var model = defaults
        model.workers = try arguments.int("workers", default: defaults.workers, in: 1...1_000_000)
        model.typistsPerServer = try arguments.int("per-server", default: defaults.typistsPerServer, in: 1...10_000_000)
        model.serviceMedianNanos = try arguments.durationNanos("service", default: defaults.serviceMedianNanos)!
        model.serviceP99Nanos = try arguments.durationNanos("service-p99", default: max(defaults.serviceP99Nanos, model.serviceMedianNanos))!
        guard model.serviceP99Nanos >= model.serviceMedianNanos else {
            throw UsageError.invalidValue(option: "service-p99", value: DurationText.format(model.serviceP99Nanos),
                                          expected: "at least the median service time (\(DurationText.format(model.serviceMedianNanos)))")
        }
        model.slowTailProbability = try arguments.double("slow-tail", default: defaults.slowTailProbability, in: 0...1)
        model.slowTailFactor = try arguments.double("slow-tail-factor", default: defaults.slowTailFactor, in: 1...1_000_000)
        model.networkRoundTripNanos = try arguments.durationNanos("rtt", default: defaults.networkRoundTripNanos)!
        model.errorRate = try arguments.double("error-rate", default: defaults.errorRate, in: 0...1)
        switch try arguments.choice("cancel", among: ScenarioBackend.Cancellation.allCases.map(\.rawValue), default: defaults.cancellation.rawValue) {
        case "client-only": model.cancellation = .clientOnly
        case "ignored": model.cancellation = .ignored
        default: model.cancellation = .honoured
        }
        model.cancelDelayNanos = try arguments.durationNanos("cancel-delay", default: defaults.cancelDelayNanos)!
        var backend = model.model
        if let name = try arguments.choice("network", among: NetworkProfile.all.map(\.name)) {
            backend.clientNetworks = NetworkProfile.named(name).map(ClientNetworks.all)
        }
        let population = Population(
            typists: typists, mix: try mix(arguments), queriesPerSession: try arguments.int("queries", default: 4, in: 1...1000),
            queryLists: arguments.value("query-lists"))
        let typing: ScenarioTypists
        do {
            typing = try ScenarioTypists(population: population, seed: seed, baseDirectory: FileManager.default.currentDirectoryPath)
        } catch {
            throw ToolError("cannot load the typists' query lists: \(error); give --query-lists DIR", exitCode: ExitCode.noInput)
        }
        let scenario = SimulationPlan(typists: typists, seed: seed, strategies: strategies, backend: backend,
                                          typing: VirtualWorkload.typing(population))

        let console = invocation.console
        let started = Date()
        var index = 0
        var record = Simulation.run(scenario, segment: segment, toolVersion: VersionCommand.version,
                                    sessions: { $0.map(typing.session(forTypist:)) }) { name in
            index += 1
            console.err("simulating \(name) (\(index)/\(choices.count), \(typists) typists)…\n")
        }
        // The user fields: the same typists and backend, on the virtual executors.
        let range = Simulation.typistRange(of: segment, typists: typists, typistsPerServer: backend.typistsPerServer)
        let (timelineTypist, timelineAround) = try parseTimeline(arguments.value("timeline"), typists: typists)
        var timelines: [String: [TimelineLine]] = [:]
        for case let .field(name, definition) in choices {
            index += 1
            console.err("simulating \(name) (\(index)/\(choices.count), \(typists) typists, your field)…\n")
            let recorder: Recorder
            do {
                let run = try await VirtualFieldRunner.run(
                    definition, name: name, typists: range, sessions: range.map(typing.session(forTypist:)), backend: backend,
                    seed: seed, parameters: fieldParameters, settleIntervalNanos: scenario.settleIntervalNanos, timelineOf: timelineTypist)
                recorder = run.recorder
                if let timeline = run.timeline {
                    let window = timelineAround.map { ($0 - 5_000_000_000)...($0 + 2_000_000_000) } ?? Int64.min...Int64.max
                    timelines[name] = timeline.filter { window.contains($0.time) }.compactMap { TimelineLine(time: $0.time, entry: $0.entry) }
                }
            } catch let error as FieldRunError {
                throw ToolError(error.description, exitCode: ExitCode.software)
            }
            var metrics = recorder.metrics()
            metrics.renumberExampleTypists { range.lowerBound + $0 }
            try record.add(MetricGroup(name: name, labels: ["runner": "virtual"], metrics: metrics))
        }
        let names = choices.map(\.name)
        let elapsed = Date().timeIntervalSince(started)
        if let path = arguments.value("record") {
            do {
                try record.encoded().write(to: URL(fileURLWithPath: path))
            } catch {
                throw ToolError("cannot write the run record to '\(path)': \(ErrorText.describe(error))", exitCode: ExitCode.cannotCreate)
            }
        }
        if arguments.flag("json") {
            let output = SimulateOutput(
                scenario: .init(name: scenario.name, hash: scenario.hash, typists: typists, seed: seed,
                                segment: "\(segment.index)/\(segment.count)", backend: describe(backend)),
                strategies: names.compactMap { name in
                    record.groups.first { $0.name == name }.map { StrategyMetricsJSON(name: $0.name, metrics: MetricsJSON($0.metrics)) }
                },
                timelines: timelineTypist == nil ? nil : timelines)
            console.out(try encodeJSON(output) + "\n")
        } else {
            console.out("Simulated \(typists) typists (segment \(segment.index)/\(segment.count)), seed \(seed), in \(String(format: "%.1f", elapsed)) s\n")
            console.out("Backend: \(describe(backend))\n\n")
            let groups = names.compactMap { name in record.groups.first { $0.name == name } }
            console.out(StrategyComparison.table(groups.map { ($0.name, $0.metrics) }).render())
            console.out("""

            req/settle: requests per settle (burst of typing); churn: debounce waits cancelled per settle;
            ooo: out-of-order applies; stale: settles ending on a wrong screen; mismatch: share of time the
            screen answered another query; TTFR: time from the last keystroke to fresh results; never: settles
            never fresh; false∅: false empties per settle; wasted: share of server time spent on unused work.

            """)
            for name in names {
                guard let lines = timelines[name] else { continue }
                console.out("\nTimeline of typist \(timelineTypist ?? 0) in \(name):\n" + ReplayCommand.renderTimeline(lines))
            }
        }
        return ExitCode.success
    }

    /// `--device` on every `--language`, in equal shares.
    static func mix(_ arguments: ParsedArguments) throws -> [Population.MixEntry] {
        let device = Device(rawValue: try arguments.choice("device", among: Device.allCases.map(\.rawValue), default: "desktop")!)!
        let languages = try (arguments.value("language") ?? "en").split(separator: ",").map { code -> ScenarioLanguage in
            guard let language = ScenarioLanguage(rawValue: code.trimmingCharacters(in: .whitespaces)) else {
                throw UsageError.invalidValue(option: "language", value: String(code), expected: "en, ko or zh (comma-separated)")
            }
            return language
        }
        guard !languages.isEmpty else { throw UsageError.invalidValue(option: "language", value: "", expected: "en, ko or zh") }
        return languages.map { Population.MixEntry(device: device, language: $0, share: 1 / Double(languages.count)) }
    }

    /// A strategy to simulate: a preset (with its variants), or a field registered by the
    /// executable (`TypestormTool.main(fields:)`).
    enum StrategyChoice {
        case preset(StrategySpec)
        case field(String, FieldDefinition)

        var name: String {
            switch self {
            case let .preset(spec): spec.name
            case let .field(name, _): name
            }
        }

        var preset: StrategySpec? {
            if case let .preset(spec) = self { spec } else { nil }
        }
    }

    /// `--strategies`: registered field names first, then presets; without it every preset and
    /// every registered field.
    /// `--timeline TYPIST[@MS]`: the typist, and the time its search is shown around (ns).
    static func parseTimeline(_ text: String?, typists: Int) throws -> (typist: Int?, around: Int64?) {
        guard let text else { return (nil, nil) }
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        guard let typist = Int(parts[0]), (0..<typists).contains(typist),
              parts.count == 1 || Double(parts[1]).map({ $0 >= 0 }) == true else {
            throw UsageError.invalidValue(option: "timeline", value: text, expected: "a typist 0…\(typists - 1), optionally @MS (e.g. 17@12300)")
        }
        return (typist, parts.count == 2 ? Int64(Double(parts[1])! * 1e6) : nil)
    }

    static func parseChoices(_ text: String?, option: String = "strategies") throws -> [StrategyChoice] {
        guard let text, !text.isEmpty else {
            return Preset.allCases.map { .preset(StrategySpec(preset: $0)) }
                + FieldRegistry.names.map { .field($0, FieldRegistry.field(named: $0)!) }
        }
        return try text.split(separator: ",").map { part in
            let name = part.trimmingCharacters(in: .whitespaces)
            if let field = FieldRegistry.field(named: name) { return .field(name, field) }
            return .preset(try parseStrategies(name, option: option)[0])
        }
    }

    /// `--field-parameters debounce=300ms,limit=20`.
    static func parseFieldParameters(_ text: String?) throws -> FieldParameters {
        var values: [String: String] = [:]
        for part in (text ?? "").split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, !pair[0].isEmpty else {
                throw UsageError.invalidValue(option: "field-parameters", value: String(part), expected: "NAME=VALUE, comma-separated")
            }
            values[pair[0]] = pair[1]
        }
        return FieldParameters(values)
    }

    static func parseStrategies(_ text: String?, option: String = "strategies") throws -> [StrategySpec] {
        guard let text, !text.isEmpty else { return Preset.allCases.map { StrategySpec(preset: $0) } }
        return try text.split(separator: ",").map { name in
            let name = name.trimmingCharacters(in: .whitespaces)
            guard let spec = StrategySpec.parse(name) else {
                let base = String(name.split(separator: "+").first ?? "")
                let known = Preset.allCases.map(\.rawValue) + FieldRegistry.names
                let hint = Suggestion.closest(to: base, among: known).map { " (did you mean '\($0)'?)" } ?? ""
                let fields = FieldRegistry.names.isEmpty ? "" : ", or your fields \(FieldRegistry.names.joined(separator: ", "))"
                throw UsageError.invalidValue(
                    option: option, value: name,
                    expected: "presets \(Preset.allCases.map(\.rawValue).joined(separator: ", ")) with optional +write-back, +text-keyed, +cache"
                        + fields + hint)
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

    static func describe(_ backend: BackendModel) -> String {
        if backend.scriptedDefaultNanos != nil || !backend.scriptedNanos.isEmpty {
            let scripted = backend.scriptedNanos.keys.sorted().map { "\($0)=\(StrategyComparison.millis(backend.scriptedNanos[$0]!))" }
            let all = scripted + (backend.scriptedDefaultNanos.map { ["*=\(StrategyComparison.millis($0))"] } ?? [])
            return "scripted (\(all.joined(separator: ", "))), cancellation \(backend.cancellation)"
        }
        let service: String = switch backend.service {
        case let .distribution(distribution): distribution.readableDescription
        case let .cost(model): "\(model.catalogItems) items at \(model.nanosPerItem) ns/item"
        }
        return "rtt \(backend.roundTrip.readableDescription), \(backend.workers) worker\(backend.workers == 1 ? "" : "s") per \(backend.typistsPerServer) typists, service \(service), "
            + "slow tail \(backend.slowTailProbability * 100)% ×\(Int(backend.slowTailFactor)), errors \(backend.errorRate * 100)%, "
            + "cancellation \(backend.cancellation)"
            + (backend.clientNetworks.map { ", typists' networks " + $0.profiles.map(\.description).joined(separator: ", ") } ?? "")
    }

    // MARK: Rendering
}

/// A strategy's metrics as `--json` prints them: the recorder's counters, maxima and histogram
/// summaries by their `MetricName`, and the derived ratios.
struct MetricsJSON: Codable {
    var counters: [String: Int64]
    var maxima: [String: Int64]
    var histograms: [String: HistogramSummary]
    var derived: DerivedMetrics
    /// The first example of each flaw seen (absent when none was).
    var examples: [String: FlawExample]?

    init(_ metrics: MetricSet) {
        counters = metrics.counters
        maxima = metrics.maxima
        histograms = metrics.histograms.mapValues(HistogramSummary.init)
        derived = DerivedMetrics(metrics)
        examples = metrics.examples
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
    /// With `--timeline`: per field of yours, the typist's timeline (absent without the flag).
    var timelines: [String: [TimelineLine]]?
}

func encodeJSON<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
