import Foundation

/// The main job — what `typestorm` with no arguments runs: the default scenario on the shipped
/// catalog, every strategy compared in virtual time, in-process and over HTTP, across several
/// worker processes, ending with the summary and the report's path.
package enum MainJobPlan {
    /// The default scenario's path inside the package.
    package static let relativeScenarioPath = ShippedData.defaultScenario

    /// Finds `Datasets/scenarios/default.json` through the shipped-data lookup
    /// (`$TYPESTORM_HOME`, beside the executable, the current directory).
    package static func defaultScenarioPath(executable: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        try? ShippedData.find(relativeScenarioPath, environment: environment, executable: executable)
    }
}
