import Foundation

/// Replaces Swift's main and default executors with Typestorm's virtual ones, so that every job
/// of a user field (`@MainActor` code, `Task {}`, actors, `Task.sleep`) runs on one thread in
/// virtual time during a virtual run. Call it as the first statement of a synchronous `main`,
/// before any task exists (`TypestormTool.main(fields:)` does), then `runVirtualMain`.
public func installVirtualExecutors() {
    ExecutorInstallation.install()
}

/// Runs `body` on the virtual executors to its end and exits with its code. Between virtual runs
/// the executors behave as an ordinary single-threaded executor.
public func runVirtualMain(_ body: @escaping @Sendable () async -> Int32) -> Never {
    final class Outcome: @unchecked Sendable { var code: Int32? }
    let outcome = Outcome()
    Task { outcome.code = await body() }
    VirtualScheduler.shared.runHost(until: { outcome.code != nil })
    exit(outcome.code ?? 1)
}
