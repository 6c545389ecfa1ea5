import Glibc

/// How `typestorm serve` listens, how much work it takes on, and what it injects.
package struct SearchServerConfiguration: Sendable {
    /// IPv4 address to bind; loopback unless the user asks otherwise.
    package var host = "127.0.0.1"
    /// 0 lets the kernel pick a free port (read it back from `boundPort`).
    package var port: UInt16 = 0
    /// Threads running searches: the backend's capacity.
    package var workers = 2
    /// Searches allowed to wait for a worker; beyond it, 503 with Retry-After.
    package var queueCapacity = 1024
    /// Open connections the server keeps: beyond it, a new connection makes the server close
    /// the oldest idle or slow one (never one being answered), and when every connection is
    /// being answered, searches get 503 with Retry-After. libmicrohttpd's own limit, beyond which a
    /// connection whose first request has arrived is closed unanswered, is `hardConnectionLimit`.
    package var maxConnections = 1024
    /// Idle or slow clients are disconnected after this many seconds without progress.
    package var connectionTimeoutSeconds = 10
    /// libmicrohttpd threads doing network I/O (epoll on Linux).
    package var ioThreads = 2
    /// Run searches on the I/O thread that received them instead of handing them to the worker
    /// pool. Saves two thread hand-offs per request (worth it when searches take microseconds,
    /// e.g. an index lookup), but a long search then stalls every connection on that I/O thread,
    /// and `workers`/`queueCapacity` no longer bound anything.
    package var searchOnIOThreads = false
    /// First pages (`offset` 0) kept as answered, so a repeated search is answered on the I/O
    /// thread without searching (the catalog does not change while the server runs); 0, the
    /// default, turns the cache off: a run's embedded server searches every request, as the
    /// in-process runner does. `typestorm serve` keeps 4,096 unless `--page-cache` says otherwise.
    /// Off, too, while fault injection is on: every search then goes to a worker.
    package var firstPageCacheEntries = 0
    /// Value of `Retry-After` on 503s, seconds.
    package var retryAfterSeconds = 1
    /// How long a graceful shutdown waits for in-flight requests before cancelling them.
    package var drainTimeoutSeconds = 10.0
    /// Minimum interval between two `recv(MSG_PEEK)` checks of a searching client's socket, when
    /// the socket could not be watched with epoll (the normal path needs no polling).
    package var peerCheckIntervalNanos: UInt64 = 100_000
    package var limits = RequestLimits()
    package var faults = FaultInjection()

    package init() {}

    /// Where libmicrohttpd takes no more connections: above `maxConnections` and above every
    /// connection that can be busy at once (a search per worker and per queue slot), so it is
    /// reached only when that many requests are being answered. With the 16 KiB per-connection memory limit
    /// it bounds the server's connection memory.
    package var hardConnectionLimit: Int {
        max(maxConnections, queueCapacity + workers) + 64
    }

    /// Why listening on `host:port` failed with `errno`, in words a user can act on.
    static func bindProblem(host: String, port: UInt16, errno code: Int32) -> String {
        switch code {
        case EADDRINUSE: "port \(port) on \(host) is in use by another program; choose another with --port (0 picks a free one)"
        case EADDRNOTAVAIL: "\(host) is not an address of this machine; use --host 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)"
        case EACCES: "port \(port) needs privileges (ports below 1024 do); use --port 7700 or --port 0"
        default: String(cString: strerror(code))
        }
    }

    /// The binary IPv4 address of `host` (dotted quad, or `localhost`), nil if it is not one.
    package static func ipv4Address(_ host: String) -> in_addr? {
        var address = in_addr()
        return inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address) == 1 ? address : nil
    }
}
