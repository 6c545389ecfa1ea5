import Foundation
import TypestormSystem
import Locking

/// Why the server could not start.
package struct SearchServerError: Error, Sendable, CustomStringConvertible {
    package var description: String
}

/// Typestorm's HTTP search server on libmicrohttpd: `GET /search`, `/healthz`, `/metrics`.
///
/// Lifecycle in the swift-server style: one `run()` that returns after a graceful shutdown
/// (`shutdownGracefully()`, or task cancellation), or the scoped `withServer { }` that starts,
/// hands out the bound address, and drains when the closure returns. Graceful shutdown stops
/// accepting, lets in-flight searches finish (up to `drainTimeoutSeconds`, then cancels them),
/// and only then stops the daemon.
package final class SearchServer: Sendable {
    private enum Lifecycle {
        case idle
        case running
        case waiting(CheckedContinuation<Void, Never>)
        case shutdownRequested
    }

    package let configuration: SearchServerConfiguration
    private let backend: any SearchBackend
    private let lifecycle = Locked(Lifecycle.idle)
    private let core = Locked<ServerCore?>(nil)

    package init(configuration: SearchServerConfiguration = SearchServerConfiguration(), backend: any SearchBackend) {
        self.configuration = configuration
        self.backend = backend
    }

    /// Serves until `shutdownGracefully()` is called or the calling task is cancelled, then
    /// drains. `onListening` receives the bound port once the socket accepts connections.
    package func run(onListening: @Sendable (UInt16) -> Void = { _ in }) async throws {
        let started = try ServerCore(configuration: configuration, backend: backend)
        let proceed = lifecycle.withLock { state -> Bool in
            guard case .idle = state else { return false }
            state = .running
            return true
        }
        guard proceed else {
            await started.drainAndStop()
            throw SearchServerError(description: "SearchServer.run() was called twice; a server runs once")
        }
        core.withLock { $0 = started }
        onListening(started.port)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = lifecycle.withLock { state -> Bool in
                    if case .shutdownRequested = state { return true }
                    state = .waiting(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            shutdownGracefully()
        }
        await started.drainAndStop()
    }

    /// Asks `run()` to drain and return; safe from any thread, more than once, and before
    /// `run()` reached its wait.
    package func shutdownGracefully() {
        let continuation = lifecycle.withLock { state -> CheckedContinuation<Void, Never>? in
            switch state {
            case .waiting(let continuation):
                state = .shutdownRequested
                return continuation
            case .idle, .running:
                state = .shutdownRequested
                return nil
            case .shutdownRequested:
                return nil
            }
        }
        continuation?.resume()
    }

    /// The counters so far (empty before `run()` started).
    package var metrics: ServerMetricsSnapshot {
        core.withLock { $0?.snapshot() } ?? ServerMetricsSnapshot()
    }

    /// Starts a server, runs `body` with its address, then shuts it down gracefully, also when
    /// `body` throws.
    package static func withServer<Result: Sendable>(
        configuration: SearchServerConfiguration = SearchServerConfiguration(),
        backend: any SearchBackend,
        _ body: (RunningSearchServer) async throws -> Result
    ) async throws -> Result {
        let core = try ServerCore(configuration: configuration, backend: backend)
        let running = RunningSearchServer(core: core)
        do {
            let result = try await body(running)
            await core.drainAndStop()
            return result
        } catch {
            await core.drainAndStop()
            throw error
        }
    }
}

/// A started server as `SearchServer.withServer` hands it out.
package struct RunningSearchServer: Sendable {
    let core: ServerCore

    package var host: String { core.configuration.host }
    package var port: UInt16 { core.port }
    /// `http://host:port` without a trailing slash.
    package var baseURL: String { "http://\(host):\(port)" }
    package var metrics: ServerMetricsSnapshot { core.snapshot() }
    /// The Prometheus text `GET /metrics` would return.
    package var prometheusText: String { core.metricsText() }
}
