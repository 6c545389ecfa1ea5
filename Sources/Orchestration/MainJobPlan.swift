import Foundation

/// The main job — what `typestorm` with no arguments runs: the default scenario on the shipped
/// catalog, every strategy compared in virtual time, in-process and over HTTP, across several
/// worker processes, ending with the summary and the report's path.
public struct MainJobPlan: Sendable {
    public var scenario: Scenario
    /// Runner kinds of the default scenario that this build cannot run.
    public var skipped: [String]

    /// The default scenario's path inside the package.
    public static let relativeScenarioPath = ShippedData.defaultScenario

    /// Finds `Datasets/scenarios/default.json` through the shipped-data lookup
    /// (`$TYPESTORM_HOME`, beside the executable, the current directory).
    public static func defaultScenarioPath(executable: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        try? ShippedData.find(relativeScenarioPath, environment: environment, executable: executable)
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
