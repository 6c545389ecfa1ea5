import JSONReading
import Diagnostics
import Foundation
import Orchestration

/// The scenario overrides `run` takes on its command line, k6/Locust style.
///
/// Each becomes a `ScenarioOverride`, applied to the scenario's JSON before it is checked, so a
/// bad value fails like a bad file (exit 65 with the JSON path) and the overridden values are in
/// the run's canonical scenario and hash.
enum RunOverrides {
    static let options: [Option] = [
        .value("typists", "N", help: "Override population.typists."),
        .value("duration", "D", help: "Override the phase duration (e.g. 30s, 2m)."),
        .value("seed", "S", help: "Override the scenario seed."),
        .value("strategies", "A,B", help: "Run only these strategies (names or presets; a preset the scenario lacks is added with its defaults)."),
        .value("url", "TEMPLATE", help: "Replace the runners by one http-url runner aimed at TEMPLATE (e.g. 'http://127.0.0.1:7700/search?q={query}')."),
        HTTPClientOption.option,
        .value("backend", "FILE", help: "Replace the scenario's backend model by the object in FILE (e.g. what 'typestorm calibrate' wrote)."),
        .value("set", "PATH=VALUE", help: "Set any scenario field: population.arrival.kind=ramp, strategies[0].debounce=150ms, backend.timeout=2s (VALUE is JSON, else a string).", repeatable: true),
    ]

    /// The overrides in a fixed order: the named flags, then every `--set` in the order given.
    static func parse(_ arguments: ParsedArguments) throws -> [ScenarioOverride] {
        var overrides: [ScenarioOverride] = []
        if let typists = try arguments.int("typists", default: nil, in: 0...100_000_000) { overrides.append(.typists(typists)) }
        if let duration = arguments.value("duration") { overrides.append(.duration(duration)) }
        if let seed = arguments.value("seed") { overrides.append(.seed(seed)) }
        if let list = arguments.value("strategies") {
            let names = list.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !names.isEmpty else { throw UsageError.invalidValue(option: "strategies", value: list, expected: "a comma-separated list of strategy names") }
            overrides.append(.strategies(names))
        }
        if let url = arguments.value("url") { overrides.append(.url(url)) }
        if let client = try HTTPClientOption.value(arguments) { overrides.append(.httpClient(client.rawValue)) }
        if let file = arguments.value("backend") {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ToolError("\(file) (--backend): cannot be read", exitCode: ExitCode.noInput)
            }
            do { overrides.append(.backend(try JSONParser.parse(Array(data)), file: file)) } catch {
                throw ToolError("\(file) (--backend): not valid JSON: \(error)", exitCode: ExitCode.dataError)
            }
        }
        overrides += try arguments.values("set").map(assignment)
        return overrides
    }

    /// One `--set PATH=VALUE`; a malformed one is a usage error.
    static func assignment(_ text: String) throws(UsageError) -> ScenarioOverride {
        do {
            return try ScenarioOverride.assignment(text)
        } catch {
            let problems = error.issues.map { $0.message }.joined(separator: "; ")
            throw UsageError.invalidValue(option: "set", value: text, expected: "PATH=VALUE (\(problems))")
        }
    }
}
