import FieldRuntime
import Foundation
import LiveLoad
import Matching
import TypestormMetrics
import SearchField
import Simulation
import Typists

/// `typestorm crosscheck`: does virtual time tell the truth? Each strategy of a scenario runs in
/// virtual time and live against the model-driven backend (the same model, the same draws per
/// request, real timers), one strategy at a time, and every metric that says which strategy is
/// better is compared side by side with a stated tolerance or test.
///
/// A field of yours is compared the same way: its live side runs here on Swift's own executors,
/// its virtual side in a process of its own on Typestorm's virtual executors.
///
/// Both sides type the same keystrokes (the scenario's typists, all arriving at once, as virtual
/// time runs them) and meet the same latencies, so what may differ is only what real time adds:
/// timers and answers that run late, and races that those delays decide differently.
package enum Crosscheck {
    /// Why a scenario cannot be crosschecked.
    package struct Unsuitable: Error, CustomStringConvertible, Sendable {
        package var description: String
    }

    /// One compared metric of one strategy.
    package struct Check: Codable, Sendable, Equatable {
        /// The metric (`keystrokes`, `requests`, `ttfr_p50_ns`, `stale_share`, …).
        package var metric: String
        package var virtual: Double?
        package var live: Double?
        /// The rule applied, in words.
        package var rule: String
        package var agrees: Bool
    }

    /// One strategy against one live runner.
    package struct StrategyResult: Codable, Sendable {
        package var strategy: String
        package var runner: String
        /// Share of the modelled workers' time spent serving, in virtual time.
        package var utilization: Double?
        package var checks: [Check]
        package var agrees: Bool
        /// How late the model's timed steps ran in the live run (ns).
        package var modelTimerLatenessP50Ns: Int64?
        package var modelTimerLatenessP99Ns: Int64?
        package var modelTimerLatenessMaxNs: Int64?
        /// How late keystrokes were handled in the live run (p99, ns).
        package var inputLagP99Ns: Int64?
        /// Requests whose engine search outlasted the drawn service time; absent for an
        /// `http-url` server that follows the model itself (nothing of ours draws its times).
        package var engineOverruns: Int?
        /// Why live may differ here, when a check failed.
        package var explanation: String?
        package var liveSeconds: Double
    }

    package struct Result: Codable, Sendable {
        package var scenario: String
        package var hash: String
        package var typists: Int
        package var seed: UInt64
        package var runners: [String]
        /// Runners of the scenario that were not compared, with the reason.
        package var skipped: [String]
        package var strategies: [StrategyResult]
        package var agrees: Bool
        package var verdict: String
    }

    /// The live runners a scenario's runners map to, or why there are none.
    ///
    /// `modelServer`: the servers of the scenario's `http-url` runners follow its backend model
    /// themselves (a test server built to the model's definitions), so they are compared too;
    /// Typestorm puts no model of its own around them. A scenario may have one such runner.
    package static func liveRunners(_ scenario: Scenario, modelServer: Bool = false) throws(Unsuitable) -> (compared: [String], skipped: [String]) {
        var compared: [String] = []
        var skipped: [String] = []
        for runner in scenario.runners {
            switch runner {
            case .inProcess: if !compared.contains("in-process") { compared.append("in-process") }
            case .httpEmbedded: if !compared.contains("http-embedded") { compared.append("http-embedded") }
            case let .httpURL(template, _):
                if !modelServer {
                    skipped.append("http-url: an external API does not follow the scenario's model, so it is not compared "
                        + "(--model-server: its server follows the model itself)")
                } else if compared.contains("http-url") {
                    throw Unsuitable(description: "crosscheck --model-server compares one http-url runner; the scenario has more (\(template))")
                } else {
                    compared.append("http-url")
                }
            case .virtual, .probe: break
            }
        }
        guard !compared.isEmpty else {
            let kinds = scenario.runners.map(\.kind).joined(separator: ", ")
            throw Unsuitable(description: "crosscheck needs a live runner that can serve through the scenario's backend model: add "
                + "{\"kind\": \"in-process\"} or {\"kind\": \"http-embedded\"} to \"runners\", or an http-url runner whose server follows "
                + "the model with --model-server (the scenario has \(kinds.isEmpty ? "none" : kinds))")
        }
        return (compared, skipped)
    }

    /// Runs the crosscheck. `progress` gets one line per step.
    ///
    /// With `http-embedded`, the embedded search server serves the run (as the driver starts it)
    /// and the model-driven backend's service includes a real HTTP request to it. The live
    /// runners of one strategy run at the same time, each with its own modelled cells.
    ///
    /// A field of yours runs live here, on Swift's own executors; its virtual side runs in a
    /// process of its own, `executable` (this one) on the virtual executors (see
    /// `virtualSideOfFields`).
    ///
    /// With `modelServer`, the scenario's `http-url` runner is compared too: its requests go
    /// straight to the URL, whose server is to follow the model itself.
    package static func run(
        _ scenario: Scenario, baseDirectory: String, modelServer: Bool = false, executable: String = ShippedData.executablePath,
        progress: (@Sendable (String) -> Void)? = nil
    ) async throws -> Result {
        let (runners, skipped) = try liveRunners(scenario, modelServer: modelServer)
        let threads = scenario.runners.compactMap { runner -> Int? in
            if case let .httpEmbedded(threads, _) = runner { return threads } else { return nil }
        }.max()
        if let threads {
            return try await EmbeddedServerFactory.withServer(for: scenario, baseDirectory: baseDirectory, threads: threads) { server in
                try await run(scenario, runners: runners, skipped: skipped, serverURL: server.baseURL, baseDirectory: baseDirectory,
                              executable: executable, progress: progress)
            }
        }
        return try await run(scenario, runners: runners, skipped: skipped, serverURL: nil, baseDirectory: baseDirectory,
                             executable: executable, progress: progress)
    }

    private static func run(
        _ scenario: Scenario, runners: [String], skipped: [String], serverURL: String?, baseDirectory: String, executable: String,
        progress: (@Sendable (String) -> Void)?
    ) async throws -> Result {
        let simulation = VirtualWorkload.simulationPlan(scenario)
        let typists = try ScenarioTypists(scenario: scenario, baseDirectory: baseDirectory)
        let count = scenario.population.typists
        let catalog = try ScenarioCatalog.load(scenario.catalog, baseDirectory: baseDirectory)
        let engine = try SearchEngine.build(catalog: catalog)
        let reference = ReferenceFilter(catalog: catalog)
        let model = simulation.backend
        let fieldNames = scenario.strategies.filter { !$0.isPreset }.map(\.name)
        var fieldsInVirtualTime: [String: MetricSet] = [:]
        if !fieldNames.isEmpty {
            progress?("\(fieldNames.joined(separator: ", ")): virtual time, in a process of its own")
            fieldsInVirtualTime = try await virtualSideOfFields(scenario, names: fieldNames, baseDirectory: baseDirectory,
                                                                executable: executable)
        }
        let options = LiveRunOptions(drainTimeoutNanos: max(scenario.driver.drainNanos, model.timeoutNanos ?? 0),
                                     settleIntervalNanos: simulation.settleIntervalNanos)
        var results: [StrategyResult] = []
        for strategy in scenario.strategies {
            let virtual: MetricSet
            let live: @Sendable (any LiveSearchBackend) async throws -> LiveRunResult
            if strategy.isPreset {
                let spec = VirtualWorkload.simulationStrategy(strategy)
                progress?("\(strategy.name): virtual time")
                virtual = Simulation.runStrategyCounting(spec, scenario: simulation, typists: 0..<count) { range in
                    range.map(typists.session(forTypist:))
                }.recorder.metrics()
                live = { backend in
                    await LiveRunner.run(
                        typists: (0..<count).map { LiveTypist(arrivalNanos: 0, session: typists.session(forTypist: $0)) },
                        strategy: spec.preset, configuration: spec.configuration, backend: backend, options: options)
                }
            } else {
                // A field of yours: its virtual side came from the process of its own; live, it
                // runs here on Swift's own executors, as `run` runs it live.
                let field = try strategy.field()
                let parameters = strategy.fieldParameters
                guard let metrics = fieldsInVirtualTime[strategy.name] else {
                    throw Unsuitable(description: "the virtual side of field '\(strategy.name)' is missing from its process's output")
                }
                virtual = metrics
                live = { backend in
                    try await LiveFieldRun.run(
                        field, name: strategy.name,
                        typists: (0..<count).map { LiveTypist(arrivalNanos: 0, session: typists.session(forTypist: $0)) },
                        globalIndices: Array(0..<count), backend: backend, parameters: parameters, options: options,
                        monitor: LiveRunMonitor())
                }
            }
            progress?("\(strategy.name): live \(runners.joined(separator: " and "))")
            var backends: [any LiveSearchBackend] = []
            for runner in runners {
                if runner == "http-url", let (template, request) = scenario.runners.lazy.compactMap(\.urlTarget).first {
                    // Somebody else's server, following the model itself: nothing of ours around it.
                    backends.append(try LiveWorkload.urlBackend(template: template, request: request, scenario: scenario,
                                                                baseDirectory: baseDirectory))
                    continue
                }
                let searcher: any LiveSearchBackend
                if runner == "http-embedded", let serverURL {
                    searcher = try HTTPSearchBackend(target: try HTTPSearchTarget.embeddedServer(baseURL: serverURL),
                                                     timeout: .nanoseconds(scenario.backend.timeoutNanos))
                } else {
                    searcher = EngineSearchBackend(engine: engine, reference: reference, workers: min(2, model.workers))
                }
                backends.append(ModelledSearchBackend(model: model, seed: scenario.seed, globalTypists: Array(0..<count), engine: searcher))
            }
            let lives: [Int: LiveRunResult]
            do {
                lives = try await withThrowingTaskGroup(of: (Int, LiveRunResult).self) { group in
                    for (index, backend) in backends.enumerated() {
                        group.addTask { (index, try await live(backend)) }
                    }
                    var lives: [Int: LiveRunResult] = [:]
                    for try await (index, result) in group { lives[index] = result }
                    return lives
                }
            } catch {
                backends.forEach { $0.shutdown() }
                throw error
            }
            for (index, runner) in runners.enumerated() {
                let backend = backends[index]
                let modelled = backend as? ModelledSearchBackend
                let lateness = modelled?.timerLateness ?? Histogram()
                let overruns = modelled?.engineOverruns
                backend.shutdown()
                guard let live = lives[index] else { continue }
                results.append(compare(strategy.name, runner: runner, virtual: virtual, live: live.metrics, model: model,
                                       typists: count, lateness: lateness, overruns: overruns, liveNanos: live.elapsedNanos))
            }
        }
        let agrees = results.allSatisfy(\.agrees)
        let failing = results.filter { !$0.agrees }.map { "\($0.strategy) (\($0.runner))" }
        let verdict = agrees
            ? "virtual time and live agree for every strategy (\(results.count) comparisons)"
            : "virtual time and live disagree for \(failing.joined(separator: ", "))"
        return Result(scenario: scenario.name, hash: scenario.hash, typists: count, seed: scenario.seed, runners: runners,
                      skipped: skipped, strategies: results, agrees: agrees, verdict: verdict)
    }

    /// The side-by-side checks of one strategy. Public for the tests of the rules.
    package static func compare(
        _ name: String, runner: String, virtual: MetricSet, live: MetricSet, model: BackendModel, typists: Int,
        lateness: Histogram, overruns: Int?, liveNanos: Int64
    ) -> StrategyResult {
        typealias N = MetricName
        var checks: [Check] = []
        let v = DerivedMetrics(virtual), l = DerivedMetrics(live)
        let settlesV = Double(virtual.counter(N.settles)), settlesL = Double(live.counter(N.settles))

        // The same keystrokes on both sides: nothing else may differ.
        let keysV = Double(virtual.counter(N.keystrokes)), keysL = Double(live.counter(N.keystrokes))
        checks.append(Check(metric: N.keystrokes, virtual: keysV, live: keysL, rule: "identical", agrees: keysV == keysL))
        let requestsV = Double(virtual.counter(N.requestsStarted)), requestsL = Double(live.counter(N.requestsStarted))
        checks.append(Check(metric: "requests", virtual: requestsV, live: requestsL, rule: Tolerance.requests,
                            agrees: Tolerance.requestsAgree(requestsV, requestsL)))
        for (p, slack, share) in [(50.0, 25e6, 0.15), (90.0, 40e6, 0.20), (99.0, 80e6, 0.30)] {
            let a = virtual.histograms[N.timeToFresh]?.percentile(p).map(Double.init)
            let b = live.histograms[N.timeToFresh]?.percentile(p).map(Double.init)
            let samples = min(virtual.histograms[N.timeToFresh]?.totalCount ?? 0, live.histograms[N.timeToFresh]?.totalCount ?? 0)
            if let needed = Tolerance.samplesNeeded(percentile: p), samples < needed {
                // A quantile from too few samples is one or two outliers: stated, not judged.
                checks.append(Check(metric: "ttfr_p\(Int(p))_ns", virtual: a, live: b,
                                    rule: "not judged: \(samples) fresh settles, p\(Int(p)) needs \(needed)", agrees: true))
                continue
            }
            checks.append(Check(metric: "ttfr_p\(Int(p))_ns", virtual: a, live: b,
                                rule: "within \(Int(slack / 1e6)) ms or \(Int(share * 100)) %, whichever is larger",
                                agrees: Tolerance.durationsAgree(a, b, slack: slack, share: share)))
        }
        for (metric, a, b, n1, n2) in [
            ("stale_share", v.staleSettleShare, l.staleSettleShare, settlesV, settlesL),
            ("never_fresh_share", v.neverFreshShare, l.neverFreshShare, settlesV, settlesL),
        ] {
            checks.append(Check(metric: metric, virtual: a, live: b, rule: Tolerance.shares,
                                agrees: Tolerance.sharesAgree(a, n1, b, n2)))
        }
        // False empties are absent on a side whose answers came without a count: no check then.
        let falseEmpties = (virtual.counters[N.falseEmpties], live.counters[N.falseEmpties])
        for (metric, a, b) in [
            ("out_of_order_applies", Double(virtual.counter(N.outOfOrderApplies)), Double(live.counter(N.outOfOrderApplies))),
        ] + (falseEmpties.0 != nil && falseEmpties.1 != nil ? [("false_empties", Double(falseEmpties.0!), Double(falseEmpties.1!))] : []) {
            checks.append(Check(metric: metric, virtual: a, live: b, rule: Tolerance.counts, agrees: Tolerance.countsAgree(a, b)))
        }
        let fanV = virtual.histograms[N.fanOutPerSettle]?.mean, fanL = live.histograms[N.fanOutPerSettle]?.mean
        checks.append(Check(metric: "fanout_mean", virtual: fanV, live: fanL, rule: "within 5 %",
                            agrees: Tolerance.durationsAgree(fanV, fanL, slack: 0, share: 0.05)))
        let agrees = checks.allSatisfy(\.agrees)

        let cells = Double((typists + max(1, model.typistsPerServer) - 1) / max(1, model.typistsPerServer))
        let end = Double(virtual.maxima[N.runEndNs] ?? 0)
        let utilization = end > 0 ? Double(virtual.counter(N.serviceNs)) / (end * Double(model.workers) * cells) : nil
        let inputLag = live.histograms[N.inputLag]?.percentile(99)
        var explanation: String?
        if !agrees, lateness.isEmpty {
            explanation = "live timing added delays virtual time has none of: keystrokes ran up to "
                + "\(Tolerance.millis(inputLag ?? 0)) late (p99), and the server kept the model's time itself (its lateness, the "
                + "HTTP client's queue and the connections' delays are not measured from here); a delay near a debounce interval or "
                + "an answer's arrival changes which of two events comes first"
        } else if !agrees {
            let p99 = lateness.percentile(99) ?? 0
            explanation = "live timing added delays virtual time has none of: the model's steps ran up to "
                + "\(Tolerance.millis(lateness.isEmpty ? 0 : lateness.max)) late (p99 \(Tolerance.millis(p99))), keystrokes up to "
                + "\(Tolerance.millis(inputLag ?? 0)) late (p99)"
                + ((overruns ?? 0) > 0 ? ", and \(overruns ?? 0) engine searches outlasted their drawn service time" : "")
                + "; a delay near a debounce interval or an answer's arrival changes which of two events comes first"
        }
        return StrategyResult(
            strategy: name, runner: runner, utilization: utilization, checks: checks, agrees: agrees,
            modelTimerLatenessP50Ns: lateness.percentile(50), modelTimerLatenessP99Ns: lateness.percentile(99),
            modelTimerLatenessMaxNs: lateness.isEmpty ? nil : lateness.max, inputLagP99Ns: inputLag,
            engineOverruns: overruns, explanation: explanation, liveSeconds: Double(liveNanos) / 1e9)
    }

    /// The stated tolerances, in one place (docs/crosscheck.md quotes them).
    package enum Tolerance {
        /// The fewest samples on each side for a quantile to be compared: at least 10 of them
        /// beyond it (20 for p50, 100 for p90, 1,000 for p99), so one late outlier cannot decide.
        package static func samplesNeeded(percentile p: Double) -> Int64? {
            guard p > 0, p < 100 else { return nil }
            return Int64((10 / (1 - p / 100)).rounded(.up))
        }

        package static let requests = "within 5 % or 3 requests (a timer and a keystroke that real time delays differently may swap)"
        package static let shares = "two-proportion z-test |z| < 3.29 (p 0.001), or within 1 percentage point"
        package static let counts = "Poisson test |a - b| ≤ 3.29·√(a + b), or within 2"

        package static func requestsAgree(_ a: Double, _ b: Double) -> Bool {
            abs(a - b) <= max(3, 0.05 * max(a, b))
        }

        package static func durationsAgree(_ a: Double?, _ b: Double?, slack: Double, share: Double) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return abs(a - b) <= max(slack, share * max(abs(a), abs(b)))
        }

        package static func sharesAgree(_ a: Double?, _ n1: Double, _ b: Double?, _ n2: Double) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            if abs(a - b) <= 0.01 { return true }
            guard n1 > 0, n2 > 0 else { return false }
            let pooled = (a * n1 + b * n2) / (n1 + n2)
            let se = (pooled * (1 - pooled) * (1 / n1 + 1 / n2)).squareRoot()
            return se > 0 && abs(a - b) / se < 3.29
        }

        package static func countsAgree(_ a: Double, _ b: Double) -> Bool {
            abs(a - b) <= max(2, 3.29 * (a + b).squareRoot())
        }

        static func millis(_ ns: Int64) -> String {
            String(format: "%.1f ms", Double(ns) / 1e6)
        }
    }
}

extension RunnerSpec {
    /// An `http-url` runner's URL template and request settings.
    var urlTarget: (String, HTTPRequestSpec)? {
        if case let .httpURL(template, request) = self { return (template, request) } else { return nil }
    }
}
