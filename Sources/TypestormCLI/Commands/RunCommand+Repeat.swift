import Diagnostics
import Foundation
import Orchestration

extension RunCommand {
    /// `run --repeat N`: N runs of the same scenario into `DIR/run-1` … `DIR/run-N`, so
    /// `compare` has the repeated runs its Welch test needs. Stops at the first run stopped by a
    /// signal; the exit code is the worst of the runs (a signal, then partial, then a threshold).
    /// With `--json`, prints a JSON array of the runs' `run --json` objects.
    static func repeated(_ count: Int, scenario: Scenario, path: String?, workers: Int?, out: String?,
                         progress: ProgressRenderer.Mode, json: Bool, console: Console) async throws -> Int32 {
        let base = out ?? RunSession.defaultDirectory(for: scenario)
        guard !FileManager.default.fileExists(atPath: base) else {
            throw ToolError("the run directory \(base) already exists; choose another with --out", exitCode: ExitCode.cannotCreate)
        }
        var results: [RunSession.Result] = []
        for index in 1...count {
            if progress != .quiet { console.err("run: repetition \(index) of \(count) → \(base)/run-\(index)\n") }
            let result = try await session(scenario: scenario, path: path, workers: workers, out: "\(base)/run-\(index)",
                                           progress: progress, console: console)
            results.append(result)
            if !json {
                console.out("── run \(index) of \(count): \(result.runDirectory) (exit \(result.exitCode))\n")
                console.out(result.summary)
            }
            if result.exitCode > 128 { break }
        }
        let codes = results.map(\.exitCode)
        if json {
            console.out("[\n" + results.map { RunJSON.render($0).trimmingCharacters(in: .newlines) }.joined(separator: ",\n") + "\n]\n")
        } else {
            console.out("\n\(results.count) runs in \(base); compare them with another such directory: typestorm compare BASELINE-DIR \(base)\n")
        }
        return codes.first { $0 > 128 } ?? codes.max() ?? 0
    }
}
