import Measurement

/// The search server a run starts for its `http-embedded` phases.
///
/// The driver owns it: started before the workers, stopped after the last one is reaped, its
/// own measurements (requests served, CPU time) added to the record as a group `server`.
public protocol EmbeddedServer: Sendable {
    /// Base URL the workers' HTTP runner targets, e.g. `http://127.0.0.1:41234`.
    var baseURL: String { get }
    /// Stops serving and returns the server's measurements (group name `server`).
    func stop() async -> MetricGroup
}

/// Starts the embedded server for a scenario.
public enum EmbeddedServerFactory {
    /// Whether this build can start one.
    public static var isAvailable: Bool { false }

    /// Loads the scenario's catalog and starts serving on 127.0.0.1 (an ephemeral port).
    public static func start(for scenario: Scenario, baseDirectory: String) async throws(WorkloadUnavailable) -> any EmbeddedServer {
        throw WorkloadUnavailable(runner: "http-embedded", reason: "the embedded search server is not wired into this build yet")
    }
}
