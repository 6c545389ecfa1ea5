import Diagnostics
import Foundation
import Reporting
import Orchestration

/// `typestorm crosscheck`: each strategy of a scenario in virtual time and live against the
/// model-driven backend, side by side, with a verdict.
enum CrosscheckCommand {
    static let command = Command(
        name: "crosscheck",
        abstract: "Check that virtual time and live runs agree: each strategy both ways, side by side; exit 0 agree, 1 not.",
        discussion: """
        Runs every strategy of SCENARIO in virtual time and then live (in-process) against a
        backend that follows the scenario's `backend` model in real time: the same keystrokes and
        the same drawn latencies, failures and queues per request, around the real engine. Per
        strategy it compares keystrokes and requests, TTFR p50/p90/p99, stale share, never-fresh
        share, out-of-order applies, false empties and fan-out, each with a stated tolerance or
        test (docs/crosscheck.md). The scenario needs an in-process or http-embedded runner, or
        an http-url runner whose server follows the model itself (--model-server). The live side
        takes as long as the typists type, strategy after strategy.
        A field of yours (an executable of yours that calls TypestormTool.main(fields:)) is
        compared the same way: live in this process, in virtual time in a process of its own
        (this executable again, with --virtual-out).
        Exit codes: 0 all agree, 1 some disagree, 64 usage, 65 a scenario that cannot be
        crosschecked, 66 unreadable.
        """,
        options: [
            .json,
            .flag("model-server", help: "The http-url runner's server follows the scenario's backend model itself (a test server built to it): compare it too, with no model of ours around it."),
            .value("base-dir", "DIR", help: "Resolve the scenario's relative paths here (default: the current directory)."),
            .value(Crosscheck.virtualOutputOption, "FILE", help: "Only run the scenario's fields of yours in virtual time and write their metrics to FILE (how crosscheck starts its process for them)."),
        ],
        positionals: [Positional("scenario", help: "Scenario file (JSON).")],
        run: run
    )

    static let run: Command.Run = { invocation in
        let arguments = invocation.arguments
        let path = try arguments.requiredPositional(0, name: "scenario")
        let scenario = try ScenarioLoading.load(path)
        let baseDirectory = arguments.value("base-dir") ?? FileManager.default.currentDirectoryPath
        if let output = arguments.value(Crosscheck.virtualOutputOption) {
            do {
                try await Crosscheck.writeVirtualSideOfFields(scenario, baseDirectory: baseDirectory, output: output)
            } catch {
                throw ToolError("\(path): \(error)", exitCode: ExitCode.dataError)
            }
            return ExitCode.success
        }
        do {
            _ = try Crosscheck.liveRunners(scenario, modelServer: arguments.flag("model-server"))
        } catch {
            throw ToolError("\(path): \(error)", exitCode: ExitCode.dataError)
        }
        let console = invocation.console
        let result: Crosscheck.Result
        do {
            result = try await Crosscheck.run(scenario, baseDirectory: baseDirectory,
                                              modelServer: arguments.flag("model-server")) { line in
                console.err("crosscheck: \(line)…\n")
            }
        } catch {
            throw ToolError("\(path): \(error)", exitCode: ExitCode.dataError)
        }
        if arguments.flag("json") {
            console.out(try encodeJSON(result) + "\n")
        } else {
            console.out(render(result))
        }
        return result.agrees ? ExitCode.success : ExitCode.failure
    }

    static func render(_ result: Crosscheck.Result) -> String {
        var out = "Crosscheck of \(result.scenario) (\(result.typists) typists, seed \(result.seed)): virtual time against live \(result.runners.joined(separator: ", "))\n"
        for note in result.skipped { out += "  not compared: \(note)\n" }
        for strategy in result.strategies {
            let utilization = strategy.utilization.map { String(format: "%.0f %%", $0 * 100) } ?? "–"
            out += "\n\(strategy.strategy) (\(strategy.runner), modelled server utilization \(utilization), live \(String(format: "%.1f", strategy.liveSeconds)) s): "
                + (strategy.agrees ? "agree" : "DISAGREE") + "\n"
            let rows = strategy.checks.map { check in
                [check.metric, format(check.metric, check.virtual), format(check.metric, check.live), check.agrees ? "yes" : "NO", check.rule]
            }
            out += TextTable(headers: ["metric", "virtual", "live", "agree", "rule"], rows: rows).render()
            let lateness = [strategy.modelTimerLatenessP50Ns, strategy.modelTimerLatenessP99Ns, strategy.modelTimerLatenessMaxNs]
                .map { $0.map(StrategyComparison.millis) ?? "–" }
            // A server that follows the model itself times its own steps: only the keystrokes are ours.
            out += "live timing: "
                + (strategy.engineOverruns == nil ? "" : "model steps late p50 \(lateness[0]), p99 \(lateness[1]), max \(lateness[2]); ")
                + "keystrokes late p99 " + (strategy.inputLagP99Ns.map(StrategyComparison.millis) ?? "–")
                + (strategy.engineOverruns.map { "; engine overruns \($0)" } ?? "") + "\n"
            if let why = strategy.explanation { out += "why live differs: \(why)\n" }
        }
        out += "\nVerdict: \(result.verdict).\n"
        return out
    }

    static func format(_ metric: String, _ value: Double?) -> String {
        guard let value else { return "–" }
        if metric.hasSuffix("_ns") { return StrategyComparison.millis(Int64(value)) }
        if metric.hasSuffix("_share") { return String(format: "%.1f%%", value * 100) }
        if metric == "fanout_mean" { return String(format: "%.2f", value) }
        return String(format: "%.0f", value)
    }
}
