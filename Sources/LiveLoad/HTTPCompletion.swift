import TypestormMetrics

/// How one HTTP request ended, with its timings on the monotonic clock (nanoseconds).
///
/// Latency is measured from the *intended* send time (when the strategy emitted the send
/// effect), not from when the client got round to it; the gap is reported as schedule lag, so a
/// saturated load generator shows itself instead of hiding in the numbers (docs/metrics.md).
public struct HTTPCompletion: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// A full response. `count` is the value at the client's JSON count path, if set and found;
        /// `body` is kept only when the client is configured to keep bodies.
        case response(status: Int, bodyBytes: Int, count: Int?, body: [UInt8]?)
        /// Aborted by `abort(id:)`: `stopNanos` from the abort call to the transfer being torn down.
        case cancelled(requestedNanos: UInt64, stopNanos: UInt64)
        /// The per-request timeout elapsed.
        case timedOut
        /// Connection refused, reset, DNS, ...: curl's message.
        case failed(String)
    }

    public var id: UInt64
    public var outcome: Outcome
    public var intendedNanos: UInt64
    /// When the transfer was handed to curl (after any queueing in the client).
    public var startedNanos: UInt64
    public var finishedNanos: UInt64
    /// From start to the first response byte, as curl measured it; nil if none arrived.
    public var firstByteNanos: UInt64?
    /// For `.failed`: what went wrong, classified from curl's code and the socket's errno.
    public var cause: ErrorCause? = nil
    /// Connections curl opened for this request (0: it reused one), as curl counted them; nil
    /// when the request never reached curl.
    public var newConnections: Int? = nil
    /// From name resolution to the TCP connection being up (one network round trip), when this
    /// request opened a connection; nil when it reused one.
    public var connectNanos: UInt64? = nil

    /// Start − intended: how late the client sent.
    public var scheduleLagNanos: UInt64 { startedNanos > intendedNanos ? startedNanos - intendedNanos : 0 }
    /// Finished − intended: the latency a user would have seen.
    public var latencyNanos: UInt64 { finishedNanos > intendedNanos ? finishedNanos - intendedNanos : 0 }
}
