import Foundation
import LiveLoad
import TypestormMetrics
import TypestormSystem

/// Why calibration could not produce a model.
package struct CalibrationFailure: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable { case unreachable, noFit, client }
    package var kind: Kind
    package var message: String
    package var description: String { message }
}

/// A finished calibration: what was measured and the model fitted to it.
package struct CalibrationResult: Sendable {
    package var settings: CalibrationSettings
    package var measurements: CalibrationMeasurements
    package var fit: CalibrationFit
    /// The fitted model's own end-to-end quantiles (`CalibrationFit.modelQuantiles`).
    package var model: (p50: Int64, p90: Int64, p99: Int64)
}

/// `typestorm calibrate`: probes a search API with the live HTTP client and fits the scenario's
/// backend model to it.
///
/// First a few single requests (an unreachable API fails here, before any load), then one step
/// per concurrency level, each keeping that many requests in flight for the step's duration
/// (closed loop: a completion sends the next query), then the cancellation probe: bursts of more
/// requests than the fitted workers, aborted early or left to complete, each followed by one
/// probe request whose wait shows whether the aborted work still occupied the server.
package enum CalibrationRun {
    package static func run(_ settings: CalibrationSettings, progress: @escaping @Sendable (String) -> Void) async throws(CalibrationFailure) -> CalibrationResult {
        guard !settings.queries.isEmpty else { throw CalibrationFailure(kind: .client, message: "no queries to send") }
        var configuration = settings.target.clientConfiguration(defaultTimeoutNanos: UInt64(settings.timeoutNanos), client: settings.client)
        configuration.headers = settings.headers
        configuration.caFile = settings.caFile
        let prober: Prober
        do { prober = try Prober(settings: settings, configuration: configuration) } catch {
            throw CalibrationFailure(kind: .client, message: "\(error)")
        }
        defer { prober.client.shutdown() }

        let template = settings.target.template.template
        progress("calibrate: probing \(template)\n")
        var preflight: [ErrorCause: Int] = [:]
        var reachable = false
        var freshConnection: Int64?
        for _ in 0..<3 where !reachable {
            let completion = await prober.roundTrip()
            switch Prober.classify(completion, expectsCount: settings.target.countPath != nil) {
            case let .success(latency):
                reachable = true
                if (completion.newConnections ?? 0) > 0 { freshConnection = latency }
            case let .failure(cause): preflight[cause, default: 0] += 1
            case .cancelled: break
            }
        }
        guard reachable else {
            let causes = preflight.sorted { $0.key < $1.key }.map { "\($0.key.label) × \($0.value)" }.joined(separator: ", ")
            throw CalibrationFailure(kind: .unreachable, message: "no request to \(template) succeeded (\(causes)); nothing to calibrate")
        }

        var steps: [CalibrationStep] = []
        for concurrency in settings.concurrencySteps {
            let step = await prober.step(concurrency: concurrency)
            steps.append(step)
            let quantiles = [0.5, 0.99].map { step.quantile($0).map(milliseconds) ?? "–" }
            progress("calibrate: concurrency \(concurrency): \(step.requests) requests, \(String(format: "%.1f", step.throughput)) ok/s, median \(quantiles[0]), p99 \(quantiles[1]), \(step.requests - step.latencies.count) failed\n")
        }
        guard var fit = CalibrationFit.fit(steps: steps, maxConcurrency: settings.maxConcurrency, freshConnection: freshConnection) else {
            let failures = steps.reduce(into: [ErrorCause: Int]()) { total, step in total.merge(step.failures, uniquingKeysWith: +) }
            let causes = failures.sorted { $0.key < $1.key }.map { "\($0.key.label) × \($0.value)" }.joined(separator: ", ")
            throw CalibrationFailure(kind: .noFit, message: "no request at concurrency 1 succeeded (\(causes)); nothing to fit")
        }

        var probe: CancellationProbe?
        if settings.cancellationTrials > 0 {
            let burst = min(max(2 * fit.backend.workers + 2, 4), 512)
            let abortAfter = max(fit.backend.serviceMedianNanos / 4, 1_000_000)
            progress("calibrate: cancellation probe: \(settings.cancellationTrials) × 2 bursts of \(burst), aborted after \(milliseconds(abortAfter)) or completed\n")
            probe = await prober.cancellationProbe(burst: burst, abortAfter: abortAfter, trials: settings.cancellationTrials,
                                                   settle: fit.backend.serviceMedianNanos * Int64(burst / max(fit.backend.workers, 1) + 2))
            if let probe, let verdict = CalibrationFit.cancellation(probe, idleLatency: fit.idleLatencyForProbe, serviceMedian: fit.backend.serviceMedianNanos) {
                fit.apply(cancellation: verdict)
            }
        }
        let measurements = CalibrationMeasurements(steps: steps, cancellation: probe)
        return CalibrationResult(settings: settings, measurements: measurements, fit: fit, model: CalibrationFit.modelQuantiles(fit.backend))
    }
}

func milliseconds(_ nanos: Int64) -> String {
    String(format: nanos < 10_000_000 ? "%.2f ms" : "%.1f ms", Double(nanos) / 1e6)
}

/// One HTTP client and its completions, driven by the calibration's single task.
private final class Prober {
    enum Outcome { case success(Int64), failure(ErrorCause), cancelled }

    let client: HTTPLoadClient
    let settings: CalibrationSettings
    private var completions: AsyncStream<HTTPCompletion>.Iterator
    private var nextID: UInt64 = 1
    private var nextQuery = 0

    init(settings: CalibrationSettings, configuration: HTTPLoadClient.Configuration) throws {
        let (client, stream) = try HTTPLoadClient.makeStreaming(configuration: configuration)
        self.client = client
        self.settings = settings
        completions = stream.makeAsyncIterator()
    }

    /// `expectsCount`: the target names a count path, so a 2xx answer without a count there is
    /// a failure (`count_missing`), not a fast success: an API that reports errors with status 200
    /// is not fitted as fast.
    static func classify(_ completion: HTTPCompletion, expectsCount: Bool) -> Outcome {
        switch completion.outcome {
        case let .response(status, _, count, _):
            !(200..<300).contains(status) ? .failure(.httpStatus(status))
                : expectsCount && count == nil ? .failure(.countMissing) : .success(Int64(completion.latencyNanos))
        case .timedOut: .failure(.timeout)
        case .failed: .failure(completion.cause ?? .transport)
        case .cancelled: .cancelled
        }
    }

    /// Sends the next query now; returns its id.
    @discardableResult
    func send() -> UInt64 {
        let id = nextID
        nextID += 1
        let query = settings.queries[nextQuery % settings.queries.count]
        nextQuery += 1
        client.submit(id: id, url: settings.target.url(query: query), body: settings.target.body(query: query),
                      timeoutNanos: UInt64(settings.timeoutNanos))
        return id
    }

    func next() async -> HTTPCompletion? { await completions.next() }

    /// One request, alone.
    func roundTrip() async -> HTTPCompletion {
        let id = send()
        while let completion = await next() {
            if completion.id == id { return completion }
        }
        fatalError("the HTTP client's completion stream ended while a request was in flight")
    }

    func step(concurrency: Int) async -> CalibrationStep {
        let start = MonotonicClock.now()
        let deadline = start + UInt64(settings.stepNanos)
        var inFlight = 0
        for _ in 0..<concurrency {
            send()
            inFlight += 1
        }
        var latencies: [Int64] = [], failures: [ErrorCause: Int] = [:], newConnections = 0, connects: [Int64] = []
        while inFlight > 0, let completion = await next() {
            inFlight -= 1
            switch Self.classify(completion, expectsCount: settings.target.countPath != nil) {
            case let .success(latency):
                latencies.append(latency)
                if (completion.newConnections ?? 0) > 0 { newConnections += 1 }
                if let connect = completion.connectNanos { connects.append(Int64(connect)) }
            case let .failure(cause): failures[cause, default: 0] += 1
            case .cancelled: break
            }
            if MonotonicClock.now() < deadline {
                send()
                inFlight += 1
            }
        }
        return CalibrationStep(concurrency: concurrency, elapsedNanos: Int64(MonotonicClock.now() - start), latencies: latencies,
                               failures: failures, newConnections: newConnections, connectNanos: connects)
    }

    func cancellationProbe(burst: Int, abortAfter: Int64, trials: Int, settle: Int64) async -> CancellationProbe {
        var afterAborted: [Int64] = [], afterCompleted: [Int64] = []
        for _ in 0..<trials {
            for abort in [true, false] {
                let ids = (0..<burst).map { _ in send() }
                try? await Task.sleep(nanoseconds: UInt64(abortAfter))
                if abort { ids.forEach(client.abort) }
                let probe = send()
                var remaining = burst + 1
                while remaining > 0, let completion = await next() {
                    remaining -= 1
                    if completion.id == probe, case let .success(latency) = Self.classify(completion, expectsCount: settings.target.countPath != nil) {
                        if abort { afterAborted.append(latency) } else { afterCompleted.append(latency) }
                    }
                }
                // Work the server may still do for aborted requests must not delay the next burst.
                try? await Task.sleep(nanoseconds: UInt64(settle))
            }
        }
        return CancellationProbe(burst: burst, abortAfterNanos: abortAfter, afterAbortedNanos: afterAborted, afterCompletedNanos: afterCompleted)
    }
}
