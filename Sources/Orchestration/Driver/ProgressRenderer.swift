import Foundation
import TypestormSystem
import Locking

/// Shows a run's progress on standard error: a block redrawn in place on a terminal, a plain
/// line every few seconds otherwise, nothing when quiet.
package final class ProgressRenderer: Sendable {
    package enum Mode: Sendable { case terminal, lines, quiet }

    private let mode: Mode
    private let write: @Sendable (String) -> Void
    private let lineIntervalNanos: Int64
    private struct State {
        var drawnLines = 0
        var lastLine: Int64 = 0
    }
    private let state = Locked(State())

    package init(mode: Mode, lineIntervalNanos: Int64 = 5_000_000_000, write: @escaping @Sendable (String) -> Void) {
        self.mode = mode
        self.write = write
        self.lineIntervalNanos = lineIntervalNanos
    }

    /// Handles one driver event (call from `DriverConfiguration.onEvent`).
    package func handle(_ event: DriverEvent) {
        guard mode != .quiet else { return }
        switch event {
        case let .spawned(worker, pid):
            if mode == .lines { write("run: worker \(worker) started (pid \(pid))\n") }
        case let .phaseStarted(phase, runner, workers):
            message("run: phase \(phase) (\(runner)) started on \(workers) worker(s)")
        case let .workerFailed(_, problem):
            message("run: \(problem)")
        case let .stopping(reason):
            message("run: \(reason)")
        case let .progress(progress):
            render(progress)
        case .ready, .snapshot:
            break
        }
    }

    /// Clears the live block (before the summary is printed).
    package func finish() {
        guard mode == .terminal else { return }
        state.withLock { state in
            if state.drawnLines > 0 { write(String(repeating: "\u{1B}[1A\u{1B}[2K", count: state.drawnLines)) }
            state.drawnLines = 0
        }
    }

    private func message(_ text: String) {
        state.withLock { state in
            if mode == .terminal, state.drawnLines > 0 {
                write(String(repeating: "\u{1B}[1A\u{1B}[2K", count: state.drawnLines))
                state.drawnLines = 0
            }
            write(text + "\n")
        }
    }

    static func headline(_ progress: DriverProgress) -> String {
        let elapsed = String(format: "%.1fs", Double(progress.elapsedNanos) / 1e9)
        let phase = progress.runner.map { "phase \(progress.phase + 1)/\(progress.phaseCount) \($0)" } ?? "starting"
        let ttfr = progress.ttfrP99Nanos.map { RunSummary.formatDuration(Double($0)) } ?? "–"
        return "\(elapsed)  \(phase)  typists \(progress.typistsActive)  keys/s \(Int(progress.keystrokesPerSecond))  "
            + "req/s \(Int(progress.requestsPerSecond))  errors \(progress.errors)\(progress.errorCauses.map { " (\($0))" } ?? "")  TTFR p99 \(ttfr)"
    }

    private func render(_ progress: DriverProgress) {
        let now = Int64(MonotonicClock.now())
        state.withLock { state in
            switch mode {
            case .quiet:
                return
            case .lines:
                guard now - state.lastLine >= lineIntervalNanos else { return }
                state.lastLine = now
                let failed = progress.workers.filter { $0.state == "FAILED" }.count
                write("run: " + Self.headline(progress) + "  workers \(progress.workers.count - failed)/\(progress.workers.count) ok\n")
            case .terminal:
                var lines = [Self.headline(progress)]
                lines += progress.workers.map { worker in
                    let silence = String(format: "%.1fs", Double(worker.silenceNanos) / 1e9)
                    return "  worker \(worker.index)  pid \(worker.pid)  \(worker.state)  snapshots \(worker.snapshots)  last heard \(silence) ago"
                }
                var text = String(repeating: "\u{1B}[1A\u{1B}[2K", count: state.drawnLines)
                text += lines.map { $0 + "\n" }.joined()
                write(text)
                state.drawnLines = lines.count
            }
        }
    }
}
