import JSONReading
import Diagnostics
import Foundation
import LiveLoad
import Orchestration

/// `typestorm load URL-TEMPLATE`: human typists against a search URL without a scenario file.
///
/// It builds the scenario a user would otherwise write (one `http-url` runner, one strategy, the
/// chosen languages) and runs it exactly as `run` does, run directory and thresholds included.
enum LoadCommand {
    static let command = Command(
        name: "load",
        abstract: "Hit a search URL with human typists, no scenario file needed; writes the usual run directory.",
        discussion: """
        The URL template holds {query} (and optionally {scope}, {tokens}, {limit}, {offset}), e.g.
        'http://127.0.0.1:7700/search?q={query}'. Typists type queries of the chosen languages at
        human speed through the chosen search-field strategy; each keeps searching until the
        duration ends. The scenario this builds is written to the run directory as scenario.json
        (use it as a starting point for 'typestorm run'); --set changes any field of it.
        Exit codes as for 'run': 0 complete; 1 a threshold failed (more than 1 % of the requests
        failed); 2 partial; 64 bad arguments; 65 a bad --set value; 70 no worker started.
        """,
        options: [
            .value("typists", "N", help: "Typists.", default: "50"),
            .value("duration", "D", help: "How long they type (e.g. 30s, 2m).", default: "30s"),
            .value("strategy", "S", help: "Search-field strategy (a preset: naive, split-state, debounce-switch, …).", default: "split-state"),
            .value("language", "L", help: "Query languages, comma-separated, equal shares: en, ko, zh.", default: "en"),
            .value("device", "KIND", help: "Keyboard: desktop or mobile.", default: "desktop"),
            .value("ramp", "D", help: "Spread the arrivals over this long (default: all at once)."),
            .value("stages", "D:N,…", help: "Ramp the typists in the field to N over D, stage after stage (k6's stages), e.g. 30s:200,1m:200,10s:0; typists come as it rises and leave at once as it falls. Sets --typists and --duration unless given."),
            .value("seed", "S", help: "Seed of the typists' randomness.", default: "1"),
            .value("timeout", "D", help: "Per-request timeout.", default: "5s"),
            .value("workers", "N", help: "Worker processes.", default: "1"),
            .value("debounce", "D", help: "The strategy's debounce (e.g. 150ms; default: the preset's)."),
            .value("min-length", "N", help: "The strategy's minimum query length (default: the preset's)."),
.value("count", "PATH", help: "JSON path of the result count (total, hits.total.value, items.#): a 2xx answer without a count there fails as count_missing. Default: detected from three answers before the load (total, count, found, nbHits, estimatedTotalHits, hits.total.value, response.numFound, or the length of an array answer); when none fits, false empties are not measured."),
            .value("header", "'NAME: VALUE'", help: "A header sent with every request; 'Authorization: $API_KEY' reads the value from the environment (scenario.json keeps only the name).", repeatable: true),
            HTTPClientOption.option,
            .value("set", "PATH=VALUE", help: "Set any field of the built scenario (as 'run --set').", repeatable: true),
            .value("out", "DIR", help: "Run directory to create (default: runs/load-<UTC time>)."),
            .flag("quiet", short: "q", help: "No progress output."),
            .json,
        ],
        positionals: [Positional("url-template", help: "Search URL with {query}, e.g. 'http://127.0.0.1:7700/search?q={query}'.")],
        run: { invocation in
            let arguments = invocation.arguments
            let url = try arguments.requiredPositional(0, name: "url-template")
            do { _ = try URLTemplate(url) } catch let error as URLTemplate.ParseError {
                throw UsageError.invalid(error.description)
            }
            let stages = try arguments.value("stages").map(parseStages)
            if stages != nil, arguments.value("ramp") != nil {
                throw UsageError.invalid("give --ramp or --stages, not both")
            }
            // With stages, the stages say how many typists come unless --typists is given.
            let typists: Int? = if stages != nil, arguments.value("typists") == nil { nil } else {
                try arguments.int("typists", default: 50, in: 1...10_000_000)
            }
            let workers = try arguments.int("workers", default: 1, in: 1...256)
            let seed = try arguments.uint64("seed", default: 1)
            let strategy = try arguments.choice("strategy", among: ScenarioStrategy.presets, default: "split-state")!
            let device = try arguments.choice("device", among: Device.allCases.map(\.rawValue), default: "desktop")!
            let languages = try (arguments.value("language") ?? "en").split(separator: ",").map { code -> String in
                let code = code.trimmingCharacters(in: .whitespaces)
                guard ScenarioLanguage(rawValue: code) != nil else {
                    throw UsageError.invalidValue(option: "language", value: code, expected: "en, ko or zh (comma-separated)")
                }
                return code
            }
            guard !languages.isEmpty else { throw UsageError.invalidValue(option: "language", value: "", expected: "en, ko or zh") }
            for name in ["duration", "timeout", "ramp", "debounce"] { _ = try arguments.durationNanos(name) }
            let minLength = try arguments.value("min-length").map { _ in try arguments.int("min-length", default: 0, in: 0...1_000) }
            var count = try arguments.value("count").map { path in try CalibrateCommand.parseCountPath(path)!.description }
            let headers = try arguments.values("header").map { header -> (name: String, value: String) in
                guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                    throw UsageError.invalidValue(option: "header", value: header, expected: "'Name: value'")
                }
                return (String(header[..<colon]).trimmingCharacters(in: .whitespaces),
                        String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
            }
            let overrides = try arguments.values("set").map(RunOverrides.assignment)
            let client = try HTTPClientOption.value(arguments) ?? .auto
            if client == .plain, let refusal = HTTPClientChoice.plainRefusal(url: url) { throw UsageError.invalid("--http-client plain: \(refusal)") }
            if count == nil, !arguments.values("set").contains(where: { $0.hasPrefix("runners") }) {
                let probe = try await detectCount(url: url, headers: headers, client: client, seed: seed,
                                                  timeoutNanos: try arguments.durationNanos("timeout", default: 5_000_000_000)!)
                if !arguments.flag("quiet") { invocation.console.err("load: " + probe.summary + "\n") }
                count = probe.path?.description
            }
            let text = scenarioJSON(
                url: url, typists: typists, duration: arguments.value("duration") ?? stages.map(totalDuration) ?? "30s", strategy: strategy,
                device: device, languages: languages, ramp: arguments.value("ramp"), stages: stages, seed: seed,
                timeout: arguments.value("timeout") ?? "5s", debounce: arguments.value("debounce"), minLength: minLength,
                count: count, headers: headers, client: client)
            let scenario: Scenario
            do {
                scenario = try ScenarioReader.read(bytes: Array(text.utf8), file: nil, overrides: overrides)
            } catch let error as ScenarioError {
                throw ToolError(error.description, exitCode: ExitCode.dataError)
            }
            let mode: ProgressRenderer.Mode = arguments.flag("quiet") ? .quiet : (invocation.console.isInteractive ? .terminal : .lines)
            return try await RunCommand.execute(
                scenario: scenario, path: nil, workers: workers, out: arguments.value("out"),
                progress: mode, json: arguments.flag("json"), console: invocation.console)
        }
    )

    /// Without `--count`: a few single requests before the load, to find where the answers carry
    /// their count (`CountShape`). A header read from the environment must be set by now.
    static func detectCount(url: String, headers: [(name: String, value: String)], client: HTTPClientChoice = .auto, seed: UInt64,
                            timeoutNanos: Int64) async throws -> CountShape.Probe {
        let environment = ProcessInfo.processInfo.environment
        let lines = try headers.map { header -> String in
            guard header.value.hasPrefix("$") else { return "\(header.name): \(header.value)" }
            let variable = String(header.value.dropFirst())
            guard let value = environment[variable] else {
                throw ToolError("--header \(header.name): the environment variable \(variable) is not set", exitCode: ExitCode.noInput)
            }
            return "\(header.name): \(value)"
        }
        let target: HTTPSearchTarget
        do { target = HTTPSearchTarget(template: try URLTemplate(url), countPath: nil) } catch {
            throw ToolError("load: \(error)", exitCode: ExitCode.usage)
        }
        return try await CountDetection.probe(target: target, headers: lines, client: client, seed: seed, timeoutNanos: timeoutNanos, tool: "load")
    }

    /// The scenario `load` runs, as JSON text (every value already checked or quoted).
    static func scenarioJSON(url: String, typists: Int?, duration: String, strategy: String, device: String,
                             languages: [String], ramp: String?, stages: [Stage]? = nil, seed: UInt64, timeout: String,
                             debounce: String? = nil, minLength: Int? = nil, count: String? = nil,
                             headers: [(name: String, value: String)] = [], client: HTTPClientChoice = .auto) -> String {
        func quoted(_ text: String) -> String { JSONValue.string(text).canonical }
        let share = 1.0 / Double(languages.count)
        let mix = languages.map { #"{"device": \#(quoted(device)), "language": \#(quoted($0)), "share": \#(share)}"# }.joined(separator: ", ")
        var arrival = ramp.map { #"{"kind": "ramp", "over": \#(quoted($0))}"# } ?? #"{"kind": "all-at-once"}"#
        if let stages {
            let items = stages.map { #"{"to": \#($0.target), "over": \#(quoted($0.over))}"# }.joined(separator: ", ")
            arrival = #"{"kind": "stages", "stages": [\#(items)]}"#
        }
        let typistCount = typists.map { #""typists": \#($0), "# } ?? ""
        var strategyMembers = #""preset": \#(quoted(strategy))"#
        if let debounce { strategyMembers += #", "debounce": \#(quoted(debounce))"# }
        if let minLength { strategyMembers += #", "minLength": \#(minLength)"# }
        var runnerMembers = #""kind": "http-url", "url": \#(quoted(url))"#
        if let count { runnerMembers += #", "count": \#(quoted(count))"# }
        if client != .auto { runnerMembers += #", "client": \#(quoted(client.rawValue))"# }
        if !headers.isEmpty {
            runnerMembers += #", "headers": {"# + headers.map { header in
                // `$NAME`: the value is read from the environment, so the secret is not written into scenario.json.
                let value = header.value.hasPrefix("$") ? #"{"env": \#(quoted(String(header.value.dropFirst())))}"# : quoted(header.value)
                return "\(quoted(header.name)): \(value)"
            }.joined(separator: ", ") + "}"
        }
        return """
        {
          "name": "load",
          "description": \(quoted("typestorm load \(url)")),
          "seed": \(seed),
          "duration": \(quoted(duration)),
          "catalog": { "generate": { "items": 1000 } },
          "population": { \(typistCount)"mix": [\(mix)], "arrival": \(arrival), "session": { "queries": 1000, "repeat": true } },
          "strategies": [ { \(strategyMembers) } ],
          "runners": [ { \(runnerMembers) } ],
          "backend": { "timeout": \(quoted(timeout)) }
        }
        """
    }

    /// One `--stages` entry, `D:N`: reach N typists over D.
    struct Stage: Equatable {
        var over: String
        var target: Int
    }

    /// `30s:200,1m:200,10s:0` (durations checked here, the rest by the scenario reader).
    static func parseStages(_ text: String) throws -> [Stage] {
        let expected = "stages as DURATION:TYPISTS, comma-separated, e.g. 30s:200,1m:200,10s:0"
        let stages = try text.split(separator: ",", omittingEmptySubsequences: false).map { item -> Stage in
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, DurationText.nanos(String(parts[0])).map({ $0 >= 0 }) == true,
                  let target = Int(parts[1]), target >= 0 else {
                throw UsageError.invalidValue(option: "stages", value: String(item), expected: expected)
            }
            return Stage(over: String(parts[0]), target: target)
        }
        guard stages.contains(where: { $0.target > 0 }) else {
            throw UsageError.invalidValue(option: "stages", value: text, expected: "at least one stage with more than 0 typists")
        }
        return stages
    }

    /// The stages' total length, the default `--duration` with `--stages`.
    static func totalDuration(_ stages: [Stage]) -> String {
        DurationText.format(stages.reduce(0) { $0 + (DurationText.nanos($1.over) ?? 0) })
    }
}
