import Diagnostics
import FieldRuntime
import Foundation
import Reporting
import TypestormMetrics
import Orchestration
import SearchField
import Simulation
import Typists

/// `typestorm replay`: one keystroke trace through one strategy, shown as a timeline, then its
/// metrics. How a user debugs a strategy.
enum ReplayCommand {
    static let command = Command(
        name: "replay",
        abstract: "Replay a keystroke trace through one strategy and show the timeline and metrics.",
        discussion: """
        The trace is JSON Lines (Typists' trace format), one object per line with 't_ms' (milliseconds,
        non-decreasing) and one of:
          {"t_ms": 0, "key": "s", "text": "s"}      the field's whole text after a key
          {"t_ms": 900, "scope": "shoes"}           a scope change (null: all scopes)
          {"t_ms": 950, "tokens": ["red"]}          the active tokens
          {"t_ms": 990, "submit": true}             Return
          {"t_ms": 5000, "end": true}               the typist leaves the field

        --latency scripts the backend: '120ms' answers every request after 120 ms, 'sw=900ms,*=100ms'
        sets times per query text ('*' for the rest). Without it, the modelled backend answers
        (network, queueing, log-normal service time).
        """,
        options: [
            .value("trace", "FILE", help: "The keystroke trace (JSON Lines)."),
            .value("strategy", "NAME", help: "A preset, optionally with +write-back, +text-keyed or +cache.", default: "split-state"),
            .value("latency", "SPEC", help: "Scripted response times: '100ms' or 'sw=900ms,*=100ms'."),
            .value("cancel", "MODE", help: "How cancellation reaches the server: honoured, client-only, ignored.", default: "honoured"),
            .value("cancel-delay", "DURATION", help: "With --cancel honoured: how long the server takes to notice.", default: "0ms"),
            .value("debounce", "DURATION", help: "Override the strategy's debounce (or throttle) interval."),
            .value("min-length", "N", help: "Override the minimum query length."),
            .value("stalled", "DURATION", help: "Override the stalled-indicator delay."),
            .value("cache", "N", help: "Client LRU cache entries (0: off)."),
            .value("session", "N", help: "Which session of a multi-session trace to replay (from 0).", default: "0"),
            .value("seed", "S", help: "Seed for the modelled backend.", default: "1"),
            .json,
        ],
        run: run
    )

    static func run(_ invocation: Invocation) async throws -> Int32 {
        let arguments = invocation.arguments
        guard let path = arguments.value("trace") else { throw UsageError.missingValue(option: "trace", valueName: "FILE") }
        let strategyName = arguments.value("strategy") ?? "split-state"
        var spec = try SimulateCommand.parseStrategies(strategyName, option: "strategy")[0]
        if let debounce = try arguments.durationNanos("debounce") { spec.configuration.debounceNanos = debounce }
        if let minimum = try arguments.int("min-length", in: 0...1000) { spec.configuration.normalizer.minimumLength = minimum }
        if let stalled = try arguments.durationNanos("stalled") { spec.configuration.stalledDelayNanos = stalled }
        if let cache = try arguments.int("cache", in: 0...100_000) { spec.configuration.cacheCapacity = cache }
        let cancellation = try parseCancellation(arguments)
        var backend = SimulateCommand.defaults.model
        backend.typistsPerServer = 1
        backend.cancellation = cancellation
        if let latency = arguments.value("latency") {
            let (scripted, fallback) = try parseLatency(latency)
            backend = .scripted(scripted, default: fallback ?? 100_000_000, cancellation: cancellation)
            if fallback == nil { backend.scriptedDefaultNanos = nil }
        }
        let sessions: [TraceSession]
        do {
            sessions = try TraceReader.read(path: path)
        } catch let error as TraceError {
            throw ToolError("bad trace: \(error)", exitCode: error.line == 0 ? ExitCode.noInput : ExitCode.dataError)
        }
        let sessionIndex = try arguments.int("session", default: 0, in: 0...Int.max)
        guard sessionIndex < sessions.count else {
            throw ToolError("bad trace: \(path) holds \(sessions.count) session(s); there is no session \(sessionIndex)",
                            exitCode: ExitCode.dataError)
        }
        let events = sessions[sessionIndex].events
        guard !events.isEmpty else { throw ToolError("bad trace: \(path) holds no events", exitCode: ExitCode.dataError) }

        var lines: [TimelineLine] = []
        let seed = try arguments.uint64("seed", default: 1)
        let metrics = replay(events, spec: spec, backend: backend, seed: seed) { time, entry in
            if let line = TimelineLine(time: time, entry: entry) { lines.append(line) }
        }
        let console = invocation.console
        if arguments.flag("json") {
            let output = ReplayOutput(trace: path, strategy: spec.name, backend: SimulateCommand.describe(backend),
                                      timeline: lines, metrics: MetricsJSON(metrics))
            console.out(try encodeJSON(output) + "\n")
            return ExitCode.success
        }
        console.out("Replaying \(path) through \(spec.name)\n")
        console.out("Backend: \(SimulateCommand.describe(backend))\n\n")
        console.out(renderTimeline(lines))
        console.out("\n" + renderMetrics(metrics))
        return ExitCode.success
    }

    private static func replay(
        _ events: [TypingEvent], spec: StrategySpec, backend: BackendModel, seed: UInt64,
        observer: @escaping (Int64, TimelineEntry) -> Void
    ) -> MetricSet {
        func open<S: SearchFieldStrategy>(_ strategy: S) -> MetricSet {
            Simulation.replay(events, strategy: strategy, backend: backend, seed: seed, observer: observer).metrics()
        }
        return open(spec.preset.make(spec.configuration))
    }

    static func parseCancellation(_ arguments: ParsedArguments) throws -> CancellationMode {
        switch try arguments.choice("cancel", among: ["honoured", "client-only", "ignored"], default: "honoured") {
        case "client-only": return .clientOnly
        case "ignored": return .ignored
        default: return .honoured(delay: try arguments.durationNanos("cancel-delay", default: 0)!)
        }
    }

    /// `120ms`, or `sw=900ms,*=100ms`.
    static func parseLatency(_ text: String) throws -> (scripted: [String: Int64], fallback: Int64?) {
        func duration(_ value: Substring) throws -> Int64 {
            guard let nanos = ParsedArguments.parseDurationNanos(String(value)), nanos >= 0 else {
                throw UsageError.invalidValue(option: "latency", value: text, expected: "durations such as 120ms, or 'sw=900ms,*=100ms'")
            }
            return nanos
        }
        guard text.contains("=") else { return ([:], try duration(Substring(text))) }
        var scripted: [String: Int64] = [:]
        var fallback: Int64?
        for part in text.split(separator: ",") {
            guard let equals = part.lastIndex(of: "=") else {
                throw UsageError.invalidValue(option: "latency", value: text, expected: "TEXT=DURATION pairs, e.g. 'sw=900ms,*=100ms'")
            }
            let key = part[..<equals]
            let value = try duration(part[part.index(after: equals)...])
            if key == "*" { fallback = value } else { scripted[String(key)] = value }
        }
        return (scripted, fallback)
    }

    // MARK: Rendering

    static func renderTimeline(_ lines: [TimelineLine]) -> String {
        TimelineLine.render(lines)
    }

    static func renderMetrics(_ metrics: MetricSet) -> String {
        typealias N = MetricName
        let derived = DerivedMetrics(metrics)
        func c(_ name: String) -> Int64 { metrics.counter(name) }
        func h(_ name: String) -> String {
            guard let histogram = metrics.histograms[name], !histogram.isEmpty else { return "–" }
            if histogram.totalCount == 1 { return StrategyComparison.millis(histogram.max) }
            return "p50 \(StrategyComparison.millis(histogram.percentile(50)!)), max \(StrategyComparison.millis(histogram.max)) (\(histogram.totalCount))"
        }
        let settles = c(N.settles)
        let rows: [[String]] = [
            ["keystrokes", "\(c(N.keystrokes))", "settles", "\(settles)"],
            ["requests", "\(c(N.requestsStarted))", "per settle / keystroke",
             "\(StrategyComparison.number(derived.requestsPerSettle)) / \(StrategyComparison.number(derived.requestsPerKeystroke))"],
            ["task churn", "\(c(N.taskChurn))", "cached commits", "\(c(N.cachedCommits)) of \(c(N.commits))"],
            ["out-of-order applies", "\(c(N.outOfOrderApplies))", "stale final screens", "\(c(N.staleSettles)) of \(settles)"],
            ["mismatch time", StrategyComparison.millis(c(N.mismatchNs)), "share of session", StrategyComparison.share(derived.mismatchShare)],
            ["time to fresh results", h(N.timeToFresh), "never fresh", "\(c(N.neverFresh)) of \(settles)"],
            ["cancel signal latency", h(N.signalLatency), "cancels requested", "\(c(N.requestsCancelled))"],
            ["cancel stop (client)", h(N.stopLatencyClient), "cancel stop (backend)", h(N.stopLatencyBackend)],
            ["wasted server time", StrategyComparison.millis(c(N.wastedServiceNs)), "share", StrategyComparison.share(derived.wastedServiceShare)],
            ["display changes", "\(c(N.displayChanges))", "blinks / false empties", "\(c(N.blinks)) / \(c(N.falseEmpties))"],
            ["request latency", h(N.requestLatency), "errors (server/timeout/transport)",
             "\(c(N.serverErrors))/\(c(N.timeouts))/\(c(N.transportErrors))"],
        ] + (c(N.writeBackChanges) > 0 ? [[
            "write-back re-entries", "\(c(N.writeBackReentries))", "runaways / broken compositions",
            "\(c(N.writeBackRunaways)) / \(c(N.compositionBreaks))",
        ]] : [])
        var widths = [0, 0, 0, 0]
        for row in rows { for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) } }
        var output = "Metrics\n"
        for row in rows {
            output += "  " + row[0].padding(toLength: widths[0], withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: widths[1] - row[1].count) + row[1] + "    "
                + row[2].padding(toLength: widths[2], withPad: " ", startingAt: 0) + "  " + row[3] + "\n"
        }
        return output
    }
}

struct ReplayOutput: Codable {
    var trace: String
    var strategy: String
    var backend: String
    var timeline: [TimelineLine]
    var metrics: MetricsJSON
}
