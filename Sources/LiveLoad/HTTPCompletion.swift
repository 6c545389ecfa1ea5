import TypestormMetrics

/// How one HTTP request ended, with its timings on the monotonic clock (nanoseconds).
///
/// Latency is measured from the *intended* send time (when the strategy emitted the send
/// effect), not from when the client got round to it; the gap is reported as schedule lag, so a
/// saturated load generator shows itself instead of hiding in the numbers (docs/metrics.md).
package struct HTTPCompletion: Sendable {
    package enum Outcome: Sendable, Equatable {
        /// A full response. `count` is the value at the client's JSON count path, if set and found;
        /// `body` is kept only when the client is configured to keep bodies.
        case response(status: Int, bodyBytes: Int, count: Int?, body: [UInt8]?)
        /// Aborted by `abort(id:)`: `stopNanos` from the abort call to the transfer being torn down.
        case cancelled(requestedNanos: UInt64, stopNanos: UInt64)
        /// The per-request timeout elapsed.
        case timedOut
        /// Connection refused, reset, DNS, a malformed answer, ...: the client's message.
        case failed(String)
    }

    package var id: UInt64
    package var outcome: Outcome
    package var intendedNanos: UInt64
    /// When the client's loop started the request (after any queueing in the client).
    package var startedNanos: UInt64
    package var finishedNanos: UInt64
    /// From start to the first response byte, as the client measured it; nil if none arrived.
    package var firstByteNanos: UInt64?
    /// For `.failed`: what went wrong, classified from the failing step and the socket's errno.
    package var cause: ErrorCause? = nil
    /// Connections the client opened for this request (0: it reused one, or failed before
    /// opening one); nil when the client refused the request at once (a URL it cannot send).
    package var newConnections: Int? = nil
    /// From name resolution to the TCP connection being up (one network round trip), when this
    /// request opened a connection; nil when it reused one.
    package var connectNanos: UInt64? = nil

    /// Start − intended: how late the client sent.
    package var scheduleLagNanos: UInt64 { startedNanos > intendedNanos ? startedNanos - intendedNanos : 0 }
    /// Finished − intended: the latency a user would have seen.
    package var latencyNanos: UInt64 { finishedNanos > intendedNanos ? finishedNanos - intendedNanos : 0 }
}
