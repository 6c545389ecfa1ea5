import Glibc

/// How `typestorm serve` listens, how much work it takes on, and what it injects.
public struct SearchServerConfiguration: Sendable {
    /// IPv4 address to bind; loopback unless the user asks otherwise.
    public var host = "127.0.0.1"
    /// 0 lets the kernel pick a free port (read it back from `boundPort`).
    public var port: UInt16 = 0
    /// Threads running searches: the backend's capacity.
    public var workers = 2
    /// Searches allowed to wait for a worker; beyond it, 503 with Retry-After.
    public var queueCapacity = 1024
    /// Open connections beyond which requests get 503 with Retry-After (MHD's hard limit, where
    /// new connections are refused at accept, sits a little above).
    public var maxConnections = 1024
    /// Idle or slow clients are disconnected after this many seconds without progress.
    public var connectionTimeoutSeconds = 10
    /// libmicrohttpd threads doing network I/O (epoll on Linux).
    public var ioThreads = 2
    /// Run searches on the I/O thread that received them instead of handing them to the worker
    /// pool. Saves two thread hand-offs per request (worth it when searches take microseconds,
    /// e.g. an index lookup), but a long search then stalls every connection on that I/O thread,
    /// and `workers`/`queueCapacity` no longer bound anything.
    public var searchOnIOThreads = false
    /// Value of `Retry-After` on 503s, seconds.
    public var retryAfterSeconds = 1
    /// How long a graceful shutdown waits for in-flight requests before cancelling them.
    public var drainTimeoutSeconds = 10.0
    /// Minimum interval between two `recv(MSG_PEEK)` checks of a searching client's socket, when
    /// the socket could not be watched with epoll (the normal path needs no polling).
    public var peerCheckIntervalNanos: UInt64 = 100_000
    public var limits = RequestLimits()
    public var faults = FaultInjection()

    public init() {}

    /// The binary IPv4 address of `host` (dotted quad, or `localhost`), nil if it is not one.
    public static func ipv4Address(_ host: String) -> in_addr? {
        var address = in_addr()
        return inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address) == 1 ? address : nil
    }
}
