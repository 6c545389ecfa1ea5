import ProductCatalog
import Foundation

extension RunSession {
    /// Checks what the run reads before anything is created or started: the catalog file is
    /// loaded once here (every row parsed), so a bad row fails with its file:line and exit 65
    /// instead of failing every worker after the load has begun, and an unreadable file with 66.
    static func checkInputs(_ scenario: Scenario, scenarioPath: String?, baseDirectory: String) throws(Failure) {
        try checkRequests(scenario, scenarioPath: scenarioPath, baseDirectory: baseDirectory)
        guard case let .file(path) = scenario.catalog else { return }
        let resolved = ScenarioCatalog.path(path, baseDirectory: baseDirectory)
        guard FileManager.default.fileExists(atPath: resolved) else {
            throw Failure(message: "\(scenarioPath ?? "scenario"): $.catalog.file: \(path) does not exist (looked for \(resolved))", kind: .missingInput)
        }
        do {
            _ = try CatalogLoader.load(path: resolved)
        } catch {
            let kind: RunFailureKind = if case .cannotRead = error.kind { .missingInput } else { .badInput }
            throw Failure(message: "\(scenarioPath ?? "scenario"): $.catalog.file: \(error)", kind: kind)
        }
    }

    /// The `http-url` runners' environment headers are set here (the workers inherit this
    /// environment) and their CA files exist: exit 66 otherwise, before anything starts.
    static func checkRequests(_ scenario: Scenario, scenarioPath: String?, baseDirectory: String) throws(Failure) {
        let file = scenarioPath ?? "scenario"
        for (index, runner) in scenario.runners.enumerated() {
            guard case let .httpURL(_, request) = runner else { continue }
            do { _ = try request.headerLines(environment: ProcessInfo.processInfo.environment) } catch {
                throw Failure(message: "\(file): $.runners[\(index)].headers.\(error.header): \(error.description)", kind: .missingInput)
            }
            if let caFile = request.caFile {
                let resolved = ScenarioCatalog.path(caFile, baseDirectory: baseDirectory)
                guard FileManager.default.isReadableFile(atPath: resolved) else {
                    throw Failure(message: "\(file): $.runners[\(index)].caFile: \(caFile) cannot be read (looked for \(resolved))", kind: .missingInput)
                }
            }
        }
    }
}
