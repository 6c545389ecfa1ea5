import Diagnostics
import Foundation
import LiveLoad
import Orchestration
import Typists

/// `typestorm calibrate URL-TEMPLATE --out backend.json`: measures a search API and writes the
/// scenario `backend` model fitted to it, for `sweep --backend` and `run --backend`.
enum CalibrateCommand {
    static let command = Command(
        name: "calibrate",
        abstract: "Measure your search API and write the scenario backend model fitted to it (for sweep/run --backend).",
        discussion: """
        Sends realistic queries (prefixes of the shipped English phrases, or of the phrases in
        --queries FILE, one a line) to the URL template, first one at a time, then 2, 4, … up to
        --concurrency requests in flight, each level for --duration; then bursts of requests it
        aborts early, against bursts it lets complete, to see whether aborting frees the server.
        Progress goes to stderr. It fits the service time (log-normal, with a slow tail if the
        p99 says so), the round trip (TCP connect time), the workers (throughput × service
        time), the error rates and the cancellation mode, and writes them to --out as a backend
        object: 'typestorm sweep SCENARIO --backend FILE', 'typestorm run SCENARIO --backend FILE'.
        Keys it cannot measure (typistsPerServer, timeout, localFilter) are left out.
        JSON keys (--json): url, steps[] (concurrency, requests, succeeded, throughput, failures,
        p50Ms, p90Ms, p99Ms, connectionReuse), latency (samples, concurrency, p50Ms, p90Ms, p99Ms,
        tailShare, roundTripMs), errorRate, transportErrorRate, connectionReuse, capacity (workers, or
        workersAtLeast when not saturated: a lower bound, not written to --out; saturated,
        maxThroughput), stall (cause, latencyMs, spread, freshConnectionMs: a latency flat at every
        concurrency with almost no spread is a fixed wait, such as a Nagle/delayed-ACK stall, not a
        capacity), cancellation (burst, abortAfterMs, afterAbortedMs,
        afterCompletedMs, mode, delayMs), model (p50Ms, p90Ms, p99Ms), backend, out. The method: docs/tuning.md.
        Exit codes: 0 written; 1 no request succeeded (the causes are named); 64 bad arguments;
        65 a bad --queries file; 66 --queries unreadable; 73 --out cannot be written.
        """,
        options: [
            .value("out", "FILE", help: "Where to write the fitted backend model (JSON)."),
            .value("queries", "FILE", help: "Phrases to send prefixes of, one a line (default: the shipped English list)."),
            .value("concurrency", "N", help: "Highest number of requests in flight (steps 1, 2, 4, … N).", default: "16"),
            .value("duration", "D", help: "How long each concurrency step lasts.", default: "5s"),
            .value("seed", "S", help: "Seed of the query order.", default: "1"),
            .value("timeout", "D", help: "Per-request timeout.", default: "5s"),
            .value("header", "'NAME: VALUE'", help: "A header sent with every request (e.g. an API key).", repeatable: true),
            .value("ca-file", "FILE", help: "PEM file of the certificate authorities to trust for https://."),
            HTTPClientOption.option,
.value("count", "PATH", help: "JSON path of the result count (total, hits.total.value, items.#): a 2xx answer without a count there is a failure (count_missing), not a success. Default: detected from the first answers (as 'load' does); when none fits, any 2xx answer counts as a success."),
            .value("trials", "N", help: "Aborted and completed bursts each in the cancellation probe (0: skip it).", default: "5"),
            .json,
        ],
        positionals: [Positional("url-template", help: "Search URL with {query}, e.g. 'http://127.0.0.1:7700/search?q={query}'.")],
        run: run
    )

    static func run(_ invocation: Invocation) async throws -> Int32 {
        let arguments = invocation.arguments
        let url = try arguments.requiredPositional(0, name: "url-template")
        let template = try parseTemplate(url)
        guard let out = arguments.value("out") else { throw UsageError.invalid("--out FILE is required: where to write the fitted backend model") }
        let concurrency = try arguments.int("concurrency", default: 16, in: 1...4096)
        let stepNanos = try arguments.durationNanos("duration", default: 5_000_000_000)!
        let timeoutNanos = try arguments.durationNanos("timeout", default: 5_000_000_000)!
        guard stepNanos >= 100_000_000 else { throw UsageError.invalidValue(option: "duration", value: arguments.value("duration") ?? "", expected: "at least 100ms") }
        guard timeoutNanos >= 1_000_000 else { throw UsageError.invalidValue(option: "timeout", value: arguments.value("timeout") ?? "", expected: "at least 1ms") }
        let seed = try arguments.uint64("seed", default: 1)
        let trials = try arguments.int("trials", default: 5, in: 0...1000)
        let headers = arguments.values("header")
        for header in headers where !header.contains(":") || header.hasPrefix(":") {
            throw UsageError.invalidValue(option: "header", value: header, expected: "'Name: value'")
        }

        var countPath = try parseCountPath(arguments.value("count"))
        let client = try HTTPClientOption.value(arguments) ?? .auto
        if client == .plain, let refusal = HTTPClientChoice.plainRefusal(url: url) { throw UsageError.invalid("--http-client plain: \(refusal)") }
        let phrases = try loadPhrases(arguments.value("queries"))
        if countPath == nil {
            // Found in the first answers, so that an API reporting errors with status 200 is not fitted as fast.
            let probe: CountShape.Probe
            do {
                probe = try await CountShape.probe(target: HTTPSearchTarget(template: template, countPath: nil), headers: headers,
                                                   caFile: arguments.value("ca-file"), client: client,
                                                   queries: CalibrationQueries.prefixes(of: phrases, count: 3, seed: seed), timeoutNanos: UInt64(timeoutNanos))
            } catch {
                throw ToolError("calibrate: cannot start the HTTP client: \(error)", exitCode: ExitCode.software)
            }
            invocation.console.err("calibrate: " + probe.summary + "\n")
            countPath = probe.path
        }
        var settings = CalibrationSettings(
            target: HTTPSearchTarget(template: template, countPath: countPath), headers: headers, caFile: arguments.value("ca-file"),
            queries: CalibrationQueries.prefixes(of: phrases, count: 4096, seed: seed), maxConcurrency: concurrency,
            stepNanos: stepNanos, timeoutNanos: timeoutNanos, cancellationTrials: trials)
        settings.client = client
        // Fail on an unwritable --out before any request is sent.
        let directory = URL(fileURLWithPath: out).deletingLastPathComponent().path
        let manager = FileManager.default
        guard manager.fileExists(atPath: out) ? manager.isWritableFile(atPath: out) : manager.isWritableFile(atPath: directory) else {
            throw ToolError("cannot write '\(out)' (--out): \(manager.fileExists(atPath: directory) ? "permission denied" : "no directory \(directory)")",
                            exitCode: ExitCode.cannotCreate)
        }
        let console = invocation.console
        let result: CalibrationResult
        do {
            result = try await CalibrationRun.run(settings) { console.err($0) }
        } catch {
            switch error.kind {
            case .unreachable, .noFit: throw ToolError("calibrate: \(error.message)", exitCode: ExitCode.failure)
            case .client: throw ToolError("calibrate: \(error.message)", exitCode: ExitCode.software)
            }
        }
        let text = result.fit.backendJSON.prettyCanonical
        // What is written must be what the scenario reader accepts; anything else is our bug.
        do { _ = try ScenarioReader.readBackend(bytes: Array(text.utf8), file: out) } catch {
            throw ToolError("calibrate: the fitted model does not read back: \(error.description)", exitCode: ExitCode.software)
        }
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: out)) } catch {
            throw ToolError("cannot write '\(out)' (--out): \(error.localizedDescription)", exitCode: ExitCode.cannotCreate)
        }
        if arguments.flag("json") {
            var json = result.json
            if case let .object(members) = json { json = .object(members + [("out", .string(out))]) }
            console.out(json.canonical + "\n")
        } else {
            console.out(result.table + "wrote \(out): typestorm sweep SCENARIO --backend \(out)\n")
        }
        return ExitCode.success
    }

    /// The URL template; a bad one is a usage error in the template's words.
    static func parseTemplate(_ url: String) throws(UsageError) -> URLTemplate {
        do { return try URLTemplate(url) } catch { throw UsageError.invalid(error.description) }
    }

    /// `--count PATH` as a count path; a bad one is a usage error naming the flag.
    static func parseCountPath(_ path: String?) throws(UsageError) -> JSONCountPath? {
        guard let path else { return nil }
        do { return try JSONCountPath(path) } catch {
            throw UsageError.invalidValue(option: "count", value: path, expected: "a JSON path such as total, hits.total.value or items.#")
        }
    }

    /// The phrases of `--queries FILE` (the query-list format), or the shipped English list.
    static func loadPhrases(_ file: String?) throws -> [String] {
        let path: String
        if let file { path = file } else {
            do { path = try ShippedData.find(ShippedData.queries + "/en.txt") } catch {
                throw ToolError("\(error) (or give --queries FILE)", exitCode: ExitCode.noInput)
            }
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ToolError("\(path)\(file == nil ? "" : " (--queries)"): cannot be read as UTF-8 text", exitCode: ExitCode.noInput)
        }
        let entries: [QueryPool.Entry]
        do { entries = try QueryPool.parseEntries(text, file: path) } catch {
            throw ToolError("\(error)", exitCode: ExitCode.dataError)
        }
        guard !entries.isEmpty else { throw ToolError("\(path) (--queries): no phrases (one a line, # starts a comment)", exitCode: ExitCode.dataError) }
        return entries.map(\.text)
    }
}
