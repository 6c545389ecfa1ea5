import Matching
import TypestormMetrics
import SearchServer

/// The search server a run starts for its `http-embedded` phases, as the driver sees it.
package protocol EmbeddedServer: Sendable {
    /// Base URL the workers' HTTP runner targets, e.g. `http://127.0.0.1:41234`.
    var baseURL: String { get }
    /// The server's own measurements so far, as the record's group `server`.
    func metricsGroup() -> MetricGroup
}

/// Starts the embedded server for a scenario, scoped to the run: it serves while `body` runs
/// (the driver and its workers) and drains when `body` returns.
package enum EmbeddedServerFactory {
    /// The backend that serves the scenario's catalog: the filter engine over it.
    static func makeBackend(for scenario: Scenario, baseDirectory: String) throws -> any SearchBackend {
        let catalog = try ScenarioCatalog.load(scenario.catalog, baseDirectory: baseDirectory)
        return EngineBackend(catalog: catalog, engine: try SearchEngine.build(catalog: catalog))
    }

    package static func withServer<Result: Sendable>(
        for scenario: Scenario, baseDirectory: String, threads: Int,
        _ body: (any EmbeddedServer) async throws -> Result
    ) async throws -> Result {
        try await withServer(backend: try makeBackend(for: scenario, baseDirectory: baseDirectory), threads: threads, body)
    }

    /// Serves `backend` on 127.0.0.1 (an ephemeral port) while `body` runs.
    package static func withServer<Result: Sendable>(
        backend: any SearchBackend, threads: Int, _ body: (any EmbeddedServer) async throws -> Result
    ) async throws -> Result {
        var configuration = SearchServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.workers = threads
        return try await SearchServer.withServer(configuration: configuration, backend: backend) { running in
            try await body(RunningServer(running: running))
        }
    }

    struct RunningServer: EmbeddedServer {
        let running: RunningSearchServer

        var baseURL: String { running.baseURL }

        func metricsGroup() -> MetricGroup {
            let metrics = running.metrics
            var set = MetricSet()
            set.add(MetricName.serverRequests, Int64(metrics.total(endpoint: "search")))
            set.add(MetricName.serverOK, Int64(metrics.count(endpoint: "search", status: 200)))
            set.add(MetricName.serverCancelled, Int64(metrics.cancelled))
            set.add(MetricName.serverItemsScanned, Int64(metrics.itemsScanned))
            set.add(MetricName.serverWastedItems, Int64(metrics.wastedItems))
            set.add(MetricName.serverWastedNs, Int64(metrics.wastedSeconds * 1e9))
            set.add(MetricName.serverOverloadRejections, Int64(metrics.overloadRejections))
            set.add(MetricName.serverConnections, Int64(metrics.connectionsAccepted))
            return MetricGroup(name: "server", labels: ["runner": "http-embedded"], metrics: set)
        }
    }
}
