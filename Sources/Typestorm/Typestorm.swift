// The library's one module. `import Typestorm` brings the whole public face: typists and
// populations, the strategies and their presets, the field host and its recorder with the
// metric set, the virtual runner and the live runners with their backends, the catalog and the
// filter engine, scenario reading, run records and the report writer (docs/library.md).
@_exported import Typists
@_exported import SearchField
@_exported import TypestormMetrics
@_exported import FieldRuntime
@_exported import Simulation
@_exported import LiveLoad
@_exported import ProductCatalog
@_exported import Matching
@_exported import Orchestration
@_exported import Reporting
@_exported import FieldHarness

import Dispatch
import Foundation
import TypestormCLI

/// The whole `typestorm` command line, to run from an executable of your own.
///
/// The `typestorm` tool itself is `exit(await TypestormTool.main())`.
public enum TypestormTool {
    /// Runs the command line with `arguments` (without the program name) and returns the exit
    /// code (the table in the README: 0 success, 64 a wrong command line, and so on).
    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Int32 {
        await CommandLineTool.main(arguments: arguments)
    }

    /// The whole command line with your own fields as strategies beside the presets:
    /// `simulate --strategies my-search,split-state`. Call it as the first statement of your
    /// executable's synchronous `main`: a command that runs your fields in virtual time
    /// installs the virtual executors before any task exists, which nothing later can.
    ///
    /// ```swift
    /// TypestormTool.main(fields: ["my-search": FieldDefinition(minimumLength: 2) { env in MySearchAdapter(env) }])
    /// ```
    public static func main(fields: [String: FieldDefinition], arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        FieldRegistry.register(fields)
        let virtual = needsVirtualExecutors(arguments)
        if virtual { installVirtualExecutors() }
        if virtual {
            runVirtualMain { await CommandLineTool.main(arguments: arguments) }
        }
        Task {
            let code = await CommandLineTool.main(arguments: arguments)
            exit(code)
        }
        dispatchMain()
    }

    /// Whether the command may run user fields in virtual time in this process: `simulate`, a
    /// worker whose scenario names one (the processes `run` and `sweep --workers` start are this
    /// executable's `worker`), a `sweep` of one, and the virtual side of a `crosscheck` (the
    /// process `crosscheck` starts for its fields, `crosscheck … --virtual-out FILE`). Every
    /// other command runs on Swift's own executors.
    static func needsVirtualExecutors(_ arguments: [String]) -> Bool {
        switch arguments.first {
        case "simulate": return true
        case "crosscheck":
            let option = "--" + Crosscheck.virtualOutputOption
            return arguments.contains { $0 == option || $0.hasPrefix(option + "=") }
        case "worker": return scenarioNamesAField(workerScenario(Array(arguments.dropFirst())))
        case "sweep": return sweepRunsAFieldHere(Array(arguments.dropFirst()))
        default: return false
        }
    }

    /// Whether a `sweep` runs a field of yours in this process: `--strategies` names one (or a
    /// strategy of the scenario whose preset is one), and the grid is not spread over worker
    /// processes (those are workers of their own).
    static func sweepRunsAFieldHere(_ arguments: [String]) -> Bool {
        func value(_ option: String) -> String? {
            if let index = arguments.firstIndex(of: option), index + 1 < arguments.count { return arguments[index + 1] }
            return arguments.first { $0.hasPrefix(option + "=") }.map { String($0.dropFirst(option.count + 1)) }
        }
        if let workers = value("--workers").flatMap(Int.init), workers > 1 { return false }
        guard let names = value("--strategies")?.split(separator: ",").map(String.init) else { return false }
        if names.contains(where: { FieldRegistry.field(named: $0) != nil }) { return true }
        let scenario = arguments.first { $0.hasSuffix(".json") && FileManager.default.fileExists(atPath: $0) }
        return scenarioNamesAField(scenario, among: Set(names))
    }

    /// The scenario file of a `worker` command line: its first argument that is not an option or
    /// an option's value.
    static func workerScenario(_ arguments: [String]) -> String? {
        let valued: Set = ["--segment", "--segment-count", "--out", "--base-dir", "--parent-pid", "--server-url"]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("-") {
                index += valued.contains(argument) ? 2 : 1
                continue
            }
            return argument
        }
        return nil
    }

    /// Whether the scenario at `path` has a strategy whose `preset` is a registered field (among
    /// `names` when given, else on a virtual runner), read without any task: the executors are
    /// chosen before the first one exists. A file that cannot be read is left to the worker to
    /// report.
    static func scenarioNamesAField(_ path: String?, among names: Set<String>? = nil) -> Bool {
        guard let path, let data = FileManager.default.contents(atPath: path),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let strategies = root["strategies"] as? [[String: Any]] else { return false }
        // A live run of a field runs on Swift's own executors (the reader refuses virtual and
        // live runners together for a field).
        let runners = root["runners"] as? [[String: Any]] ?? []
        guard names != nil || runners.contains(where: { $0["kind"] as? String == "virtual" }) else { return false }
        return strategies.contains { strategy in
            guard let preset = strategy["preset"] as? String, FieldRegistry.field(named: preset) != nil else { return false }
            return names.map { $0.contains(strategy["name"] as? String ?? preset) } ?? true
        }
    }
}
