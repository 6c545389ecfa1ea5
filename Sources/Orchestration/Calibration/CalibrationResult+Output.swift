import JSONReading
import Foundation

extension CalibrationResult {
    /// `typestorm calibrate --json`: one object with stable keys (docs/tuning.md). Durations in
    /// milliseconds; a figure that could not be measured is absent, never zero.
    package var json: JSONValue {
        func ms(_ nanos: Int64) -> JSONValue { .number(String(format: "%.3f", Double(nanos) / 1e6)) }
        func ratio(_ value: Double) -> JSONValue { .number(String(format: "%.5f", value)) }
        let steps: [JSONValue] = measurements.steps.map { step in
            var members: [(key: String, value: JSONValue)] = [
                ("concurrency", .number("\(step.concurrency)")), ("requests", .number("\(step.requests)")),
                ("succeeded", .number("\(step.latencies.count)")), ("throughput", .number(String(format: "%.2f", step.throughput))),
                ("failures", .object(step.failures.sorted { $0.key < $1.key }.map { ($0.key.label, .number("\($0.value)")) })),
            ]
            for (key, q) in [("p50Ms", 0.5), ("p90Ms", 0.9), ("p99Ms", 0.99)] {
                if let value = step.quantile(q) { members.append((key, ms(value))) }
            }
            if let reuse = step.connectionReuse { members.append(("connectionReuse", ratio(reuse))) }
            return .object(members)
        }
        var latency: [(key: String, value: JSONValue)] = [
            ("samples", .number("\(fit.samples)")), ("concurrency", .array(fit.unqueuedConcurrency.map { .number("\($0)") })),
            ("p50Ms", ms(fit.median)), ("p90Ms", ms(fit.p90)), ("p99Ms", ms(fit.p99)), ("tailShare", ratio(fit.tailShare)),
        ]
        if let roundTrip = fit.roundTrip { latency.append(("roundTripMs", ms(roundTrip))) }
        var members: [(key: String, value: JSONValue)] = [
            ("url", .string(settings.target.template.template)),
            ("steps", .array(steps)),
            ("latency", .object(latency)),
            ("errorRate", ratio(fit.errorRate)),
            ("transportErrorRate", ratio(fit.transportErrorRate)),
            // Unsaturated, the workers are a lower bound and named so.
            ("capacity", .object([
                (fit.saturated ? "workers" : "workersAtLeast", .number("\(fit.backend.workers)")), ("saturated", .bool(fit.saturated)),
                ("maxThroughput", .number(String(format: "%.2f", fit.maxThroughput))),
            ])),
            ("model", .object([("p50Ms", ms(model.p50)), ("p90Ms", ms(model.p90)), ("p99Ms", ms(model.p99))])),
            ("backend", fit.backendJSON),
        ]
        if let reuse = fit.connectionReuse { members.append(("connectionReuse", ratio(reuse))) }
        if let stall = fit.stall {
            var object: [(key: String, value: JSONValue)] = [("cause", .string(stall.cause)), ("latencyMs", ms(stall.latency)), ("spread", ratio(stall.spread))]
            if let fresh = stall.freshConnection { object.append(("freshConnectionMs", ms(fresh))) }
            members.append(("stall", .object(object)))
        }
        if let probe = measurements.cancellation {
            var cancellation: [(key: String, value: JSONValue)] = [
                ("burst", .number("\(probe.burst)")), ("abortAfterMs", ms(probe.abortAfterNanos)),
            ]
            if let aborted = probe.afterAbortedNanos.median { cancellation.append(("afterAbortedMs", ms(aborted))) }
            if let completed = probe.afterCompletedNanos.median { cancellation.append(("afterCompletedMs", ms(completed))) }
            if let mode = fit.cancellation {
                cancellation.append(("mode", .string(mode.rawValue)))
                if mode == .honoured { cancellation.append(("delayMs", ms(fit.backend.cancelDelayNanos))) }
            }
            members.append(("cancellation", .object(cancellation)))
        }
        return .object(members)
    }

    /// The human summary: a row per concurrency step, then the fit.
    package var table: String {
        var lines = ["concurrency  requests  failed      ok/s     p50 ms     p90 ms     p99 ms  conn. reuse"]
        for step in measurements.steps {
            func q(_ value: Double) -> String { step.quantile(value).map { String(format: "%.2f", Double($0) / 1e6) } ?? "–" }
            let reuse = step.connectionReuse.map { String(format: "%.1f %%", $0 * 100) } ?? "–"
            func pad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
            lines.append(String(format: "%11d  %8d  %6d  %8.1f", step.concurrency, step.requests, step.requests - step.latencies.count, step.throughput)
                         + "  " + [pad(q(0.5), 9), pad(q(0.9), 9), pad(q(0.99), 9), pad(reuse, 11)].joined(separator: "  "))
        }
        lines.append("")
        let b = fit.backend
        lines.append("latency (concurrency \(fit.unqueuedConcurrency.map(String.init).joined(separator: ", ")), \(fit.samples) requests): median \(milliseconds(fit.median)), p90 \(milliseconds(fit.p90)), p99 \(milliseconds(fit.p99)); tail share \(String(format: "%.2f %%", fit.tailShare * 100))")
        lines.append("round trip: " + (fit.roundTrip.map { "\(milliseconds($0)) (TCP connect)" } ?? "not measured (no new connection)")
                     + "; connection reuse: " + (fit.connectionReuse.map { String(format: "%.1f %%", $0 * 100) } ?? "not measured"))
        lines.append(String(format: "errors: %.2f %% HTTP, %.2f %% transport", fit.errorRate * 100, fit.transportErrorRate * 100))
        if let stall = fit.stall {
            let concurrency = measurements.steps.last?.concurrency ?? 1
            var text = "stall: latency stayed at \(milliseconds(stall.latency)) at every concurrency from 1 to \(concurrency), with almost no spread (p90 \(String(format: "%+.0f %%", (stall.spread - 1) * 100)) over the median): a fixed wait, not a service time or a queue, so no capacity can be fitted."
            if let fresh = stall.freshConnection {
                text += " A first request on a new connection took \(milliseconds(fresh)): the wait comes with reused connections, the mark of a Nagle/delayed-ACK stall (the server or client writing one message in several small writes without TCP_NODELAY, the other side delaying its ACK by about 40 ms)."
            } else {
                text += " Likely a sleep in the server or a Nagle/delayed-ACK stall (small writes without TCP_NODELAY meeting a delayed ACK, about 40 ms on Linux); check one request with curl -w '%{time_total}'."
            }
            lines.append(text)
            lines.append("capacity: not fitted (at least \(b.workers) worker\(b.workers == 1 ? "" : "s"), a lower bound: workers is left out of the model file)")
        } else if fit.saturated {
            lines.append("capacity: \(b.workers) worker\(b.workers == 1 ? "" : "s") (\(String(format: "%.1f", fit.maxThroughput)) ok/s at best)")
        } else {
            lines.append("capacity: at least \(b.workers) worker\(b.workers == 1 ? "" : "s") (\(String(format: "%.1f", fit.maxThroughput)) ok/s at best), a lower bound: latency never rose, so the server was not saturated; workers is left out of the model file (raise --concurrency to measure it)")
        }
        if let probe = measurements.cancellation {
            let aborted = probe.afterAbortedNanos.median.map(milliseconds) ?? "–", completed = probe.afterCompletedNanos.median.map(milliseconds) ?? "–"
            let verdict = switch fit.cancellation {
            case .honoured?: "honoured (the server stops aborted work, after about \(milliseconds(b.cancelDelayNanos)))"
            case .clientOnly?: "client-only (aborted requests still occupy the server)"
            case .ignored?: "ignored"
            case nil: "not measured (the bursts did not load the server; the model keeps its default)"
            }
            lines.append("cancellation: a request after an aborted burst of \(probe.burst) waited \(aborted), after a completed one \(completed): \(verdict)")
        } else {
            lines.append("cancellation: not measured")
        }
        lines.append("model: service log-normal median \(milliseconds(b.serviceMedianNanos)), p99 \(milliseconds(b.serviceP99Nanos))"
                     + (b.slowTailProbability > 0 ? String(format: ", slow tail %.2f %% × %.1f", b.slowTailProbability * 100, b.slowTailFactor) : "")
                     + "; end to end median \(milliseconds(model.p50)), p90 \(milliseconds(model.p90)), p99 \(milliseconds(model.p99))")
        return lines.joined(separator: "\n") + "\n"
    }
}
