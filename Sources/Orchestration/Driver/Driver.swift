import Foundation
import TypestormMetrics
import TypestormSystem

/// Runs a scenario over N worker processes: spawn, ready barrier, common start per phase,
/// snapshots, faults, drain, merge.
///
/// The whole run is one `poll` loop on a dedicated thread (it blocks in `poll` and `waitpid`,
/// and it must outlive every child: Linux's parent-death signal fires when the *thread* that
/// spawned a child exits). Every child is reaped before `run` returns. What the driver decides
/// (stages, barrier, policing, stopping, progress) is `DriverStateMachine`'s; the loop only does
/// the I/O.
package final class Driver: Sendable {
    package let configuration: DriverConfiguration

    package init(_ configuration: DriverConfiguration) {
        self.configuration = configuration
    }

    /// Runs to the end on a thread of its own and returns the outcome.
    package func run() async -> DriverOutcome {
        await withCheckedContinuation { continuation in
            let thread = Thread { [configuration] in
                var loop = DriverLoop(configuration)
                continuation.resume(returning: loop.run())
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

}

/// The driver's loop: the I/O around `DriverStateMachine` (spawning, `poll`, reading lines,
/// reaping, signals, the clocks). It turns what happens into the machine's events and carries
/// out the actions it returns; it decides nothing itself. Lives on one thread, so it needs no
/// locks.
struct DriverLoop {
    let configuration: DriverConfiguration
    var machine: DriverStateMachine
    /// Each worker's process, `nil` when it could not be started.
    var processes: [ChildProcess?] = []
    var lines: [LineBuffer] = []
    var trap: SignalTrap?

    /// Made right before `run` (on the driver's thread): the run's elapsed time counts from here.
    init(_ configuration: DriverConfiguration) {
        self.configuration = configuration
        machine = DriverStateMachine(
            scenario: configuration.scenario, workers: configuration.workers, startedAt: Int64(MonotonicClock.now()),
            reportsProgress: configuration.onEvent != nil, progressIntervalNanos: configuration.progressIntervalNanos)
    }

    mutating func run() -> DriverOutcome {
        SignalTrap.ignoreBrokenPipes()
        if configuration.handleSignals { trap = try? SignalTrap() }
        defer { trap?.cancel() }
        // The whole driver loop runs on this thread, so its CPU time is the driver's own cost,
        // apart from an embedded server in the same process.
        let cpuStart = CPUTime.thread()
        let childrenStart = CPUTime.reapedChildren()
        let startedWall = WallClock.now()
        spawnAll()
        while !machine.isFinished {
            pollOnce()
            let now = Int64(MonotonicClock.now())
            for signal in trap?.received() ?? [] { apply(.signal(signal, at: now)) }
            for index in processes.indices where machine.workers[index].isAlive {
                if let status = processes[index]?.exitStatus() { apply(.exited(worker: index, status, at: now)) }
            }
            apply(.tick(at: now, wallClock: WallClock.now()))
        }
        let cpu = CPUTime.thread() - cpuStart
        var result = machine.outcome(
            toolVersion: configuration.toolVersion, gitCommit: configuration.gitCommit, host: HostInfo.current(),
            startedWall: startedWall, endedWall: WallClock.now(), cpu: cpu)
        result.workersCPUNanos = CPUTime.reapedChildren() - childrenStart
        return result
    }

    /// Hands `event` to the machine and carries out what it decides.
    mutating func apply(_ event: DriverStateMachine.Event) {
        for action in machine.handle(event) { perform(action) }
    }

    mutating func perform(_ action: DriverStateMachine.Action) {
        switch action {
        case let .send(index, message):
            if let fd = processes[index]?.standardInput { try? PipeIO.writeAll(fd, WorkerProtocol.encode(message)) }
        case let .signal(index, signal):
            processes[index]?.send(signal)
        case let .closeInput(index):
            processes[index]?.close(processes[index]?.standardInput)
        case let .drainOutput(index):
            // First read what the worker wrote before it exited (a slow driver may be behind);
            // only then is the pipe closed.
            var rounds = 0
            while machine.workers[index].outputOpen, rounds < 64, let fd = processes[index]?.standardOutput,
                  (try? PipeIO.poll([fd], timeoutMillis: 0))?.isEmpty == false {
                read(index)
                rounds += 1
            }
            if machine.workers[index].outputOpen { closeOutput(index) }
        case let .emit(event):
            configuration.onEvent?(event)
        }
    }

    // MARK: Spawning

    mutating func spawnAll() {
        var group: pid_t?
        for index in 0..<configuration.workers {
            var standard = [
                "worker", configuration.scenarioFile, "--driver",
                "--segment", "\(index)/\(configuration.workers)",
                "--base-dir", configuration.baseDirectory,
                "--parent-pid", "\(getpid())",
            ]
            if let url = configuration.serverURL { standard += ["--server-url", url] }
            var executable = configuration.executable
            var arguments = standard
            if let custom = configuration.workerCommand?(index, standard) {
                executable = custom.executable
                arguments = custom.arguments
            }
            let options = SpawnOptions(
                executable: executable, arguments: arguments,
                standardInput: .pipe, standardOutput: .pipe,
                standardError: configuration.logDirectory.map { .file("\($0)/worker-\(index).log") } ?? .inherit,
                processGroup: group.map { .join($0) } ?? .new)
            lines.append(LineBuffer(maximumLineLength: 256 << 20))
            do {
                let process = try ChildProcess.spawn(options)
                if let output = process.standardOutput { PipeIO.setCapacity(output, bytes: Self.pipeBytes) }
                processes.append(process)
                if group == nil { group = process.pid }
                apply(.spawned(worker: index, pid: process.pid, at: Int64(MonotonicClock.now())))
            } catch {
                processes.append(nil)
                apply(.spawnFailed(worker: index, reason: "\(error)"))
            }
        }
    }

    // MARK: Reading

    mutating func pollOnce() {
        var fds: [Int32] = []
        var owner: [Int32: Int] = [:]
        for index in processes.indices where machine.workers[index].outputOpen {
            if let fd = processes[index]?.standardOutput {
                fds.append(fd)
                owner[fd] = index
            }
        }
        if let trap { fds.append(trap.fileDescriptor) }
        // A worker that closed its output is exiting, and nothing wakes `poll` when it is gone:
        // look again in 1 ms rather than 50, so the run ends when the last worker does.
        let ready = (try? PipeIO.poll(fds, timeoutMillis: machine.hasExitingWorker ? 1 : 50)) ?? []
        for readiness in ready {
            guard let index = owner[readiness.fd] else { continue }
            read(index)
        }
    }

    /// The pipe size asked for: a whole snapshot fits (≈ 100 KB for two strategies), so the
    /// worker's write does not stall half-way and the driver reads it in one go.
    static let pipeBytes = 1 << 20

    mutating func read(_ index: Int) {
        guard let fd = processes[index]?.standardOutput else { return }
        let bytes: [UInt8]
        do {
            bytes = try PipeIO.readAvailable(fd, maximum: 256 << 10)
        } catch {
            closeOutput(index)
            return
        }
        if bytes.isEmpty {
            closeOutput(index)
            return
        }
        let now = Int64(MonotonicClock.now())
        let complete: [[UInt8]]
        do {
            complete = try lines[index].append(bytes)
        } catch {
            apply(.lineTooLong(worker: index, reason: "\(error)", at: now))
            return
        }
        for line in complete { apply(.line(worker: index, line, at: now)) }
    }

    mutating func closeOutput(_ index: Int) {
        processes[index]?.close(processes[index]?.standardOutput)
        apply(.outputClosed(worker: index, remainder: lines[index].remainder, at: Int64(MonotonicClock.now())))
    }
}
