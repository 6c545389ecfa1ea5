import FieldRuntime
import Foundation
import LiveLoad
import Matching
import TypestormMetrics
@testable import Orchestration
import Reporting
import SearchServer
import TestBackends
import Testing

@Suite("Calibration", .timeLimit(.minutes(5)))
struct CalibrationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The injected truth: 8 workers, log-normal service through 20 ms and 50 ms, no network
    /// (loopback is the network), no failures, cancellation honoured (the embedded server stops
    /// aborted work).
    static let truth = ScenarioBackend(workers: 8, serviceMedianNanos: 20_000_000, serviceP99Nanos: 50_000_000, networkRoundTripNanos: 0,
                                       networkRTTSpread: 0, slowTailProbability: 0)

    static let phrases = ["iphone 15 pro case", "airpods pro 2", "usb c cable", "running shoes women", "coffee grinder", "desk lamp"]

    /// A server answering every search at once: the injected model is the whole latency.
    struct InstantBackend: SearchBackend {
        func search(_ request: SearchRequest, isCancelled: () -> Bool) throws -> BackendResult {
            BackendResult(items: [], total: 0, path: "test", itemsScanned: 0)
        }
    }

    /// The harness's own latencies: the same server answering at once (no model), calibrated at
    /// concurrency 1 up to `concurrency`.
    static func harnessLatencies(concurrency: Int) async throws -> [Int64] {
        var configuration = SearchServerConfiguration()
        configuration.port = 0
        configuration.workers = truth.workers
        let result = try await SearchServer.withServer(configuration: configuration, backend: InstantBackend()) { server in
            var settings = try Self.settings(url: "\(server.baseURL)/search?q={query}", stepNanos: 1_000_000_000, trials: 0)
            settings.maxConcurrency = max(1, concurrency)
            return try await CalibrationRun.run(settings) { _ in }
        }
        return result.measurements.steps.flatMap(\.latencies)
    }

    /// End-to-end p50 and p99 of `model` (drawn as virtual time draws it) with one of `harness`'s
    /// latencies added to each draw, in turn.
    static func quantiles(of model: ScenarioBackend, plus harness: [Int64], draws: Int = 50_000) -> (p50: Int64, p90: Int64, p99: Int64) {
        let backend = model.model
        var latencies = (0..<draws).map { index -> Int64 in
            let draw = backend.draw(seed: 1, typist: 0, request: UInt64(index), queryLength: 4)
            return 2 * draw.oneWayNanos + draw.serviceNanos + (harness.isEmpty ? 0 : harness[(index * 7_919) % harness.count])
        }
        latencies.sort()
        func rank(_ q: Double) -> Int64 { latencies[min(latencies.count - 1, Int((q * Double(latencies.count)).rounded(.up)) - 1)] }
        return (rank(0.5), rank(0.9), rank(0.99))
    }

    /// `typestorm serve --latency` with `model`, on 127.0.0.1 port 0.
    static func withModelServer<Result: Sendable>(_ model: ScenarioBackend, _ body: (RunningSearchServer) async throws -> Result) async throws -> Result {
        var configuration = SearchServerConfiguration()
        configuration.port = 0
        configuration.workers = model.workers
        configuration.faults.model = model.model
        configuration.faults.seed = 7
        return try await SearchServer.withServer(configuration: configuration, backend: InstantBackend(), body)
    }

    static func settings(url: String, stepNanos: Int64 = 2_000_000_000, trials: Int = 4) throws -> CalibrationSettings {
        CalibrationSettings(target: HTTPSearchTarget(template: try URLTemplate(url), countPath: nil),
                            queries: CalibrationQueries.prefixes(of: phrases, count: 500, seed: 3), maxConcurrency: 16,
                            stepNanos: stepNanos, timeoutNanos: 5_000_000_000, cancellationTrials: trials)
    }

    static func recommendation(backend: ScenarioBackend) async throws -> SweepSetting? {
        var scenario = try ScenarioReader.read(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: root + "/Datasets/scenarios/default.json"))))
        scenario.backend = backend
        let plan = SweepPlan(
            scenario: scenario, strategies: try SweepPlan.strategies(named: nil, in: scenario), debounceMs: [0, 200, 400, 600],
            minLengths: [3], replicates: 2, baseSeed: 11, typistsPerPopulation: 12, queriesDirectory: root + "/Datasets/queries",
            baseDirectory: root)
        let record = try await SweepGrid.run(plan, workers: 1, executable: "", toolVersion: "test") { _ in }
        let analysis = SweepAnalysis(points: record.sweepPoints, objective: SweepObjective(goal: .requestCost(nanos: 250e6)))
        return analysis.recommendation(scope: "all")?.result?.setting
    }

    /// Against the embedded server delaying each search by a known model: the fitted model's
    /// median and p99 (end to end, as virtual time draws them) are within 10 % of the truth's,
    /// the capacity and the cancellation mode are found, the file reads back through the
    /// scenario reader, and a sweep on the fitted model recommends what a sweep on the truth does.
    @Test func calibratingAKnownModelRecoversItAndTheSweepsAnswer() async throws {
        let result = try await Self.withModelServer(Self.truth) { server in
            try await CalibrationRun.run(try Self.settings(url: "\(server.baseURL)/search?q={query}")) { _ in }
        }
        let fit = result.fit
        // The fit counts the harness's own time per request (client, server, scheduler) as
        // service time, and on a loaded machine that time is milliseconds, not microseconds.
        // It is measured the same way right after, against the same server without the model,
        // at the concurrencies the fit pooled, and added to the truth draw by draw: the fit must
        // recover what the client could see, truth plus harness.
        let harness = try await Self.harnessLatencies(concurrency: fit.unqueuedConcurrency.max() ?? 1)
        let truth = Self.quantiles(of: Self.truth, plus: harness)
        let fitted = CalibrationFit.modelQuantiles(fit.backend)
        // The fit counts the server's own time per request as service time; under a sanitizer
        // that overhead alone is a few milliseconds, hence the wider tolerance there.
        let tolerance = testTimeScale > 1 ? 0.25 : 0.10
        #expect(abs(Double(fitted.p50) / Double(truth.p50) - 1) < tolerance, "median: fitted \(fitted.p50), true \(truth.p50)\n\(result.table)")
        #expect(abs(Double(fitted.p99) / Double(truth.p99) - 1) < tolerance, "p99: fitted \(fitted.p99), true \(truth.p99)\n\(result.table)")
        #expect(fit.saturated, "\(result.table)")
        #expect((6...10).contains(fit.backend.workers), "\(result.table)")
        #expect(fit.cancellation == .honoured, "\(result.table)")
        #expect(fit.errorRate == 0 && fit.transportErrorRate == 0)
        #expect((fit.connectionReuse ?? 0) > 0.9, "\(result.table)")

        let written = try ScenarioReader.readBackend(bytes: Array(fit.backendJSON.prettyCanonical.utf8), file: "backend.json")
        #expect(written == fit.backend, "the file holds the fitted model")

        let onTruth = try await Self.recommendation(backend: Self.truth)
        let onFit = try await Self.recommendation(backend: written)
        #expect(onTruth != nil)
        #expect(onTruth?.debounceMs == onFit?.debounceMs, "truth \(onTruth?.description ?? "none"), fitted \(onFit?.description ?? "none")")
    }

    @Test func anUnreachableAPIFailsBeforeAnyLoadNamingTheCause() async throws {
        // Port 1 on loopback: nothing listens there, so every connect is refused.
        let settings = try Self.settings(url: "http://127.0.0.1:1/search?q={query}", stepNanos: 10_000_000_000)
        let started = Date()
        do {
            _ = try await CalibrationRun.run(settings) { _ in }
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .unreachable)
            #expect(error.message.contains("connection refused × 3"), "\(error.message)")
        }
        #expect(Date().timeIntervalSince(started) < 5, "it must not run the 10 s steps")
    }

    /// The fitter on samples drawn from a model with a slow tail: the tail's share and factor
    /// come back, and the body's median and p99.
    @Test func aSlowTailIsFittedFromTheSamples() throws {
        var truth = Self.truth
        truth.slowTailProbability = 0.02
        truth.slowTailFactor = 8
        let model = truth.model
        let latencies = (0..<20_000).map { model.draw(seed: 5, typist: 0, request: UInt64($0), queryLength: 3).serviceNanos }
        let step = CalibrationStep(concurrency: 1, elapsedNanos: 10_000_000_000, latencies: latencies, failures: [:], newConnections: 0, connectNanos: [])
        let fit = try #require(CalibrationFit.fit(steps: [step], maxConcurrency: 1))
        #expect(abs(Double(fit.backend.serviceMedianNanos) / 20_000_000 - 1) < 0.05, "\(fit.backend)")
        #expect(abs(Double(fit.backend.serviceP99Nanos) / 50_000_000 - 1) < 0.10, "\(fit.backend)")
        #expect(abs(fit.backend.slowTailProbability - 0.02) < 0.005, "\(fit.backend)")
        #expect(abs(fit.backend.slowTailFactor / 8 - 1) < 0.2, "\(fit.backend)")
        #expect(!fit.measuredKeys.contains("networkRTT"), "no connect time was measured, so no round trip is written")
    }

    @Test func theCancellationVerdictComparesAbortedAndCompletedBursts() {
        func probe(_ aborted: [Int64], _ completed: [Int64]) -> CancellationProbe {
            CancellationProbe(burst: 10, abortAfterNanos: 2_000_000, afterAbortedNanos: aborted, afterCompletedNanos: completed)
        }
        let honoured = CalibrationFit.cancellation(probe([12_000_000, 13_000_000, 11_000_000], [40_000_000, 42_000_000, 39_000_000]),
                                                   idleLatency: 10_000_000, serviceMedian: 10_000_000)
        #expect(honoured?.mode == .honoured && honoured?.delay == 2_000_000)
        let clientOnly = CalibrationFit.cancellation(probe([38_000_000, 41_000_000], [40_000_000, 42_000_000]), idleLatency: 10_000_000, serviceMedian: 10_000_000)
        #expect(clientOnly?.mode == .clientOnly)
        // The completed bursts did not delay the probe: the server had room, nothing to tell.
        #expect(CalibrationFit.cancellation(probe([10_500_000], [11_000_000]), idleLatency: 10_000_000, serviceMedian: 10_000_000) == nil)
    }

    @Test func stepsDoubleUpToTheMaximumAndQueriesArePrefixes() throws {
        var settings = try Self.settings(url: "http://127.0.0.1:9/search?q={query}")
        settings.maxConcurrency = 12
        #expect(settings.concurrencySteps == [1, 2, 4, 8, 12])
        settings.maxConcurrency = 1
        #expect(settings.concurrencySteps == [1])
        let queries = CalibrationQueries.prefixes(of: Self.phrases, count: 300, seed: 9)
        #expect(queries.count == 300)
        #expect(queries.allSatisfy { query in Self.phrases.contains { $0.hasPrefix(query) } && query == query.trimmingCharacters(in: .whitespaces) })
        #expect(Set(queries.map(\.count)).count > 5, "prefixes of every length")
        #expect(queries == CalibrationQueries.prefixes(of: Self.phrases, count: 300, seed: 9))
    }
}

extension CalibrationTests {
    /// A server that sleeps a fixed 30 ms per request on a thread of its own (Python's threaded
    /// server): latency flat at every concurrency with no spread. Calibrate names it a fixed wait
    /// and writes no capacity, instead of fitting "at least 8 workers" as if measured.
    @Test(.enabled(if: PythonTestServer.python != nil)) func aFixedWaitIsNamedAStallNotACapacity() async throws {
        func calibrate(splitWrites: Bool, sleepMilliseconds: Int = 30) async throws -> CalibrationResult {
            try await PythonTestServer.with(shape: "spaced-total", sleepMilliseconds: sleepMilliseconds, splitWrites: splitWrites) { server in
                var settings = try Self.settings(url: "\(server.baseURL)/search?q={query}", stepNanos: 1_000_000_000, trials: 0)
                settings.maxConcurrency = 8
                return try await CalibrationRun.run(settings) { _ in }
            }
        }
        // The same server with Nagle's algorithm on: each reused connection waits for a delayed
        // ACK (40 ms on Linux) on top of the sleep, while the first request (a new connection)
        // does not. A short sleep keeps the fresh request well under half the reused ones' latency
        // even when a busy machine slows the server.
        let nagle = try await calibrate(splitWrites: true, sleepMilliseconds: 5)
        #expect(nagle.fit.stall?.cause == "nagle-delayed-ack", "\(nagle.table)")
        #expect(nagle.table.contains("Nagle/delayed-ACK stall"), "\(nagle.table)")

        let result = try await calibrate(splitWrites: false)
        let fit = result.fit
        let stall = try #require(fit.stall, "\(result.table)")
        #expect(stall.cause == "fixed-wait", "\(result.table)")
        #expect(stall.latency >= 30_000_000 && Double(stall.latency) < 60_000_000 * testTimeScale, "\(result.table)")
        #expect(!fit.saturated)
        #expect(!fit.measuredKeys.contains("workers"), "a lower bound is not written as a measurement")
        guard case let .object(backend) = fit.backendJSON else { Issue.record("not an object"); return }
        #expect(!backend.contains { $0.key == "workers" })
        #expect(result.table.contains("a fixed wait, not a service time or a queue"), "\(result.table)")
        let json = result.json.canonical
        #expect(json.contains(#""workersAtLeast":8"#) && json.contains(#""stall":{"cause":"#), "\(json)")
    }

    /// The rule on its own: flat and tight is a stall; flat with a real spread is only unsaturated;
    /// a rising median is a capacity.
    @Test func theStallRuleNeedsAFlatTightLatency() throws {
        func step(_ concurrency: Int, median: Int64, spread: Double) -> CalibrationStep {
            let latencies = (0..<200).map { index -> Int64 in
                let u = Double(index) / 199
                return Int64(Double(median) * (1 + (spread - 1) * (u - 0.5) * 2 * 0.78))
            }
            return CalibrationStep(concurrency: concurrency, elapsedNanos: 1_000_000_000, latencies: latencies, failures: [:],
                                   newConnections: 1, connectNanos: [])
        }
        let flat = [1, 2, 4, 8].map { step($0, median: 40_000_000, spread: 1.05) }
        let stalled = try #require(CalibrationFit.fit(steps: flat, maxConcurrency: 8, freshConnection: 1_500_000))
        #expect(stalled.stall?.cause == "nagle-delayed-ack")
        #expect(try #require(CalibrationFit.fit(steps: flat, maxConcurrency: 8, freshConnection: 39_000_000)).stall?.cause == "fixed-wait")
        let varied = [1, 2, 4, 8].map { step($0, median: 40_000_000, spread: 1.8) }
        #expect(try #require(CalibrationFit.fit(steps: varied, maxConcurrency: 8)).stall == nil)
        let queued = [step(1, median: 40_000_000, spread: 1.05), step(2, median: 41_000_000, spread: 1.05), step(4, median: 90_000_000, spread: 1.05)]
        let capacity = try #require(CalibrationFit.fit(steps: queued, maxConcurrency: 4))
        #expect(capacity.stall == nil && capacity.saturated && capacity.measuredKeys.contains("workers"))
    }
}
