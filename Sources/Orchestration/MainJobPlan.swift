import Foundation

/// The main job — what `typestorm` with no arguments runs: the default scenario on the shipped
/// catalog, every strategy compared in virtual time, in-process and over HTTP, across several
/// worker processes, ending with the summary and the report's path.
public struct MainJobPlan: Sendable {
    public var scenario: Scenario
    /// Runner kinds of the default scenario that this build cannot run.
    public var skipped: [String]

    /// The default scenario's path inside the package.
    public static let relativeScenarioPath = "Datasets/scenarios/default.json"

    /// Finds `Datasets/scenarios/default.json`: `$TYPESTORM_HOME`, then the package that holds
    /// the executable (`<package>/.build/<config>/typestorm`), then the current directory and
    /// its parents.
    public static func defaultScenarioPath(executable: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let fm = FileManager.default
        var roots: [URL] = []
        if let home = environment["TYPESTORM_HOME"] { roots.append(URL(fileURLWithPath: home)) }
        var directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            roots.append(directory)
            directory.deleteLastPathComponent()
        }
        var current = URL(fileURLWithPath: fm.currentDirectoryPath)
        for _ in 0..<5 {
            roots.append(current)
            current.deleteLastPathComponent()
        }
        return roots.map { $0.appendingPathComponent(relativeScenarioPath).path }.first { fm.fileExists(atPath: $0) }
    }

    /// The default scenario with the runners this build cannot run removed (named in
    /// `skipped`), so the job shows what exists instead of failing.
    public static func make(_ scenario: Scenario) -> MainJobPlan {
        var plan = MainJobPlan(scenario: scenario, skipped: [])
        plan.scenario.runners = scenario.runners.filter { runner in
            let available = WorkloadRegistry.isAvailable(runner)
            if !available { plan.skipped.append(runner.kind) }
            return available
        }
        return plan
    }
}
