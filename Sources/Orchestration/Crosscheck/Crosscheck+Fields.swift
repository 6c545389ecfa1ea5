import FieldHarness
import Foundation
import TypestormMetrics
import TypestormSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A field of yours in a crosscheck: its virtual side needs Typestorm's virtual executors, which
// must be installed before any task exists, while its live side needs Swift's own (the ones this
// process runs on). So the virtual side runs in a process of its own: the same executable,
// started as `crosscheck SCENARIO --base-dir DIR --virtual-out FILE`, which installs the virtual
// executors (as a worker of `run` does for a virtual scenario that names a field), runs every
// field of the scenario in virtual time and writes their metrics to FILE.
extension Crosscheck {
    /// The option that makes `crosscheck` the virtual side of a scenario's fields of yours.
    package static let virtualOutputOption = "virtual-out"

    /// The virtual side of the scenario's fields (`names`), from a process of their own started
    /// from `executable`; by strategy name.
    static func virtualSideOfFields(_ scenario: Scenario, names: [String], baseDirectory: String, executable: String)
        async throws -> [String: MetricSet] {
        let fm = FileManager.default
        let directory = fm.temporaryDirectory.appendingPathComponent("typestorm-crosscheck-\(getpid())-\(UUID().uuidString)")
        try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: directory) }
        let scenarioFile = directory.appendingPathComponent("scenario.json")
        let output = directory.appendingPathComponent("virtual.json")
        try Data(scenario.canonicalJSON.prettyCanonical.utf8).write(to: scenarioFile)
        let arguments = ["crosscheck", scenarioFile.path, "--base-dir", baseDirectory, "--\(virtualOutputOption)", output.path]
        let child = try ChildProcess.spawn(SpawnOptions(executable: executable, arguments: arguments, standardInput: .null,
                                                        standardOutput: .null, standardError: .inherit))
        var status = child.exitStatus()
        while status == nil {
            do {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                child.terminate(graceNanos: 1_000_000_000)
                throw error
            }
            status = child.exitStatus()
        }
        let what = "the virtual side of \(names.map { "'\($0)'" }.joined(separator: ", ")) (\(executable) \(arguments.joined(separator: " ")))"
        guard let status, status.isSuccess else {
            throw Unsuitable(description: "\(what) \(status?.description ?? "did not end"); its error is above")
        }
        do {
            return try JSONDecoder().decode([String: MetricSet].self, from: Data(contentsOf: output))
        } catch {
            throw Unsuitable(description: "\(what) wrote no readable metrics to \(output.path): \(ErrorText.describe(error))")
        }
    }

    /// Runs every field of yours of `scenario` in virtual time, as the crosscheck's virtual side
    /// runs a preset (the scenario's typists, all arriving at once, one pass), and writes their
    /// metrics by strategy name to `output`. Needs the virtual executors installed.
    package static func writeVirtualSideOfFields(_ scenario: Scenario, baseDirectory: String, output: String) async throws {
        let simulation = VirtualWorkload.simulationPlan(scenario)
        let typists = try ScenarioTypists(scenario: scenario, baseDirectory: baseDirectory)
        let count = scenario.population.typists
        var metrics: [String: MetricSet] = [:]
        for strategy in scenario.strategies where !strategy.isPreset {
            let recorder = try await VirtualFieldRunner.run(
                try strategy.field(), name: strategy.name, typists: 0..<count, sessions: (0..<count).map(typists.session(forTypist:)),
                backend: simulation.backend, seed: simulation.seed, parameters: strategy.fieldParameters,
                settleInterval: simulation.settleInterval)
            metrics[strategy.name] = recorder.metrics()
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(metrics).write(to: URL(fileURLWithPath: output), options: .atomic)
    }
}
