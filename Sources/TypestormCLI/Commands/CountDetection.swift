import Diagnostics
import Foundation
import LiveLoad
import Orchestration

/// Where a search API's answers carry their count, found from a few single requests before the
/// load when the user named no count path (`CountShape`): the one detection `load`, `calibrate`
/// and `run` (for a scenario's `http-url` runners) share.
enum CountDetection {
    /// Three prefixes of the shipped English phrases (from `seed`), sent one at a time.
    static func probe(target: HTTPSearchTarget, headers: [String], caFile: String? = nil, compressed: Bool = false,
                      client: HTTPClientChoice = .auto, seed: UInt64, timeoutNanos: Int64, tool: String) async throws -> CountShape.Probe {
        let queries = CalibrationQueries.prefixes(of: try CalibrateCommand.loadPhrases(nil), count: 3, seed: seed)
        do {
            return try await CountShape.probe(target: target, headers: headers, caFile: caFile, compressed: compressed,
                                              client: client, queries: queries, timeoutNanos: UInt64(max(timeoutNanos, 1_000_000)))
        } catch {
            throw ToolError("\(tool): cannot start the HTTP client to look for the answers' count: \(error)", exitCode: ExitCode.software)
        }
    }

    /// The scenario with each `http-url` runner that names no count path (nor a preset) given
    /// the one its first answers show, and one line per such runner saying which it is (or why
    /// there is none: the count's metrics are then absent). The run directory's scenario, and
    /// so its hash, holds the path used, as an override would.
    /// A header whose variable is unset fails here as the run's own check would fail it (66);
    /// a runner whose CA file is missing is left to that check.
    static func detectingCounts(in scenario: Scenario, file: String, baseDirectory: String) async throws -> (Scenario, [String]) {
        var scenario = scenario
        var lines: [String] = []
        for (index, runner) in scenario.runners.enumerated() {
            guard case .httpURL(let template, var request) = runner, request.effectiveCountPath == nil else { continue }
            let caFile = request.caFile.map { ScenarioCatalog.path($0, baseDirectory: baseDirectory) }
            if let caFile, !FileManager.default.fileExists(atPath: caFile) { continue }
            let target: HTTPSearchTarget
            let headers: [String]
            do {
                target = HTTPSearchTarget(template: try URLTemplate(template, requiresQuery: request.body == nil), countPath: nil,
                                          body: try request.body.map { text in try BodyTemplate(text) })
                headers = try request.headerLines(environment: ProcessInfo.processInfo.environment)
            } catch let error as HTTPRequestSpec.MissingEnvironment {
                throw ToolError("\(file): $.runners[\(index)].headers.\(error.header): \(error.description)", exitCode: ExitCode.noInput)
            } catch {
                throw ToolError("\(file): $.runners[\(index)]: \(error)", exitCode: ExitCode.dataError)
            }
            let probe = try await probe(target: target, headers: headers,
                                        caFile: caFile,
                                        compressed: request.compressed, client: request.client, seed: scenario.seed, timeoutNanos: scenario.backend.timeoutNanos,
                                        tool: "run")
            lines.append("runners[\(index)] (http-url): " + probe.summary(setting: "the runner's \"count\""))
            if let path = probe.path {
                request.countPath = path.description
                scenario.runners[index] = .httpURL(template: template, request: request)
            }
        }
        return (scenario, lines)
    }
}
