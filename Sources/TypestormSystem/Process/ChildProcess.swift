#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Locking
import Synchronization
import CPosixShims

/// How a child process ended.
package enum ExitStatus: Sendable, Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    /// Decodes a `waitpid` status word (the `WIFEXITED`/`WTERMSIG` macros, which Swift cannot call).
    init(waitStatus status: Int32) {
        let low = status & 0x7f
        if low == 0 {
            self = .exited((status >> 8) & 0xff)
        } else {
            self = .signaled(low)
        }
    }

    package var isSuccess: Bool { self == .exited(0) }

    package var description: String {
        switch self {
        case let .exited(code): return "exited with status \(code)"
        case let .signaled(signal): return "was killed by signal \(signal) (\(signalName(signal)))"
        }
    }
}

/// A short name for common signals, for messages a user reads.
package func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGINT: return "SIGINT"
    case SIGTERM: return "SIGTERM"
    case SIGKILL: return "SIGKILL"
    case SIGSEGV: return "SIGSEGV"
    case SIGABRT: return "SIGABRT"
    case SIGILL: return "SIGILL"
    case SIGTRAP: return "SIGTRAP"
    case SIGBUS: return "SIGBUS"
    case SIGPIPE: return "SIGPIPE"
    case SIGHUP: return "SIGHUP"
    default: return "signal \(signal)"
    }
}

/// What to spawn and how to wire it.
package struct SpawnOptions: Sendable {
    package enum Input: Sendable { case null, pipe, inherit }
    package enum Output: Sendable {
        case null, pipe, inherit
        /// Appends to a file (created if missing), e.g. a worker's log in the run directory.
        case file(String)
    }
    package enum ProcessGroup: Sendable {
        /// Stay in the parent's group: a terminal's Ctrl-C reaches the child too.
        case inherit
        /// Lead a new group: only the parent decides when the child stops.
        case new
        /// Join an existing group (one that a sibling leads).
        case join(pid_t)
    }

    package var executable: String
    /// `argv[1...]`; `argv[0]` is the executable path.
    package var arguments: [String]
    /// The complete environment; `nil` inherits the parent's.
    package var environment: [String: String]?
    package var standardInput: Input
    package var standardOutput: Output
    package var standardError: Output
    package var processGroup: ProcessGroup
    /// Signals reset to their default action in the child. A parent that ignores SIGINT while it
    /// drains would otherwise hand that disposition down through `exec`.
    package var defaultSignals: [Int32]

    package init(
        executable: String, arguments: [String] = [], environment: [String: String]? = nil,
        standardInput: Input = .null, standardOutput: Output = .inherit, standardError: Output = .inherit,
        processGroup: ProcessGroup = .inherit, defaultSignals: [Int32] = [SIGINT, SIGTERM, SIGPIPE, SIGHUP]
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.processGroup = processGroup
        self.defaultSignals = defaultSignals
    }
}

/// A child process started with `posix_spawn`, with the parent's ends of its pipes.
///
/// Owns the pipe descriptors (closed by `close…` or on deinit) and reaps the child exactly once:
/// `exitStatus()` / `waitForExit` call `waitpid` for this pid only, so no zombie outlives the
/// object as long as one of them is called after the child ends.
package final class ChildProcess: Sendable {
    package let pid: pid_t
    /// Write end of the child's standard input (when `.pipe`).
    package let standardInput: Int32?
    /// Read end of the child's standard output (when `.pipe`).
    package let standardOutput: Int32?
    /// Read end of the child's standard error (when `.pipe`).
    package let standardError: Int32?

    private struct State {
        var status: ExitStatus?
        var openDescriptors: Set<Int32>
    }
    private let state: Locked<State>

    private init(pid: pid_t, stdin: Int32?, stdout: Int32?, stderr: Int32?) {
        self.pid = pid
        standardInput = stdin
        standardOutput = stdout
        standardError = stderr
        state = Locked(State(status: nil, openDescriptors: Set([stdin, stdout, stderr].compactMap { $0 })))
    }

    deinit {
        state.withLock { state in
            for fd in state.openDescriptors { _ = Glibc.close(fd) }
            state.openDescriptors.removeAll()
        }
    }

    /// Starts a process. Throws when the executable cannot be spawned (missing, not executable).
    package static func spawn(_ options: SpawnOptions) throws(ProcessError) -> ChildProcess {
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        func closeAll(_ fds: [Int32]) { for fd in fds { _ = Glibc.close(fd) } }

        func makePipe() throws(ProcessError) -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            _ = try retryingEINTR("pipe2") { CPosixShims_pipe_cloexec(&fds, 0) }
            return (fds[0], fds[1])
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }

        var stdinParent: Int32?, stdoutParent: Int32?, stderrParent: Int32?
        do {
            switch options.standardInput {
            case .null:
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            case .inherit:
                break
            case .pipe:
                let pipe = try makePipe()
                stdinParent = pipe.write
                parentEnds.append(pipe.write)
                childEnds.append(pipe.read)
                posix_spawn_file_actions_adddup2(&actions, pipe.read, 0)
            }
            for (target, output) in [(Int32(1), options.standardOutput), (Int32(2), options.standardError)] {
                switch output {
                case .null:
                    posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                case .inherit:
                    break
                case let .file(path):
                    posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
                case .pipe:
                    let pipe = try makePipe()
                    if target == 1 { stdoutParent = pipe.read } else { stderrParent = pipe.read }
                    parentEnds.append(pipe.read)
                    childEnds.append(pipe.write)
                    posix_spawn_file_actions_adddup2(&actions, pipe.write, target)
                }
            }
        } catch {
            closeAll(parentEnds + childEnds)
            throw error
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        switch options.processGroup {
        case .inherit: break
        case .new:
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        case let .join(group):
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, group)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in options.defaultSignals { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let argv = ([options.executable] + options.arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var envp: [UnsafeMutablePointer<CChar>?]
        if let environment = options.environment {
            envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        } else {
            envp = []
            var cursor = environ
            while let entry = cursor.pointee {
                envp.append(strdup(entry))
                cursor += 1
            }
            envp.append(nil)
        }
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, options.executable, &actions, &attributes, argv, envp)
        closeAll(childEnds)
        guard result == 0 else {
            closeAll(parentEnds)
            throw ProcessError(call: "posix_spawn \(options.executable)", errno: result)
        }
        return ChildProcess(pid: pid, stdin: stdinParent, stdout: stdoutParent, stderr: stderrParent)
    }

    /// Closes one of the parent's pipe ends (idempotent). Closing standard input tells a child
    /// that reads it that no more input will come.
    package func close(_ fd: Int32?) {
        guard let fd else { return }
        state.withLock { state in
            if state.openDescriptors.remove(fd) != nil { _ = Glibc.close(fd) }
        }
    }

    /// Sends `signal` to the child (a no-op once it has been reaped, so a recycled pid is never hit).
    @discardableResult
    package func send(_ signal: Int32) -> Bool {
        state.withLock { state in
            guard state.status == nil else { return false }
            return kill(pid, signal) == 0
        }
    }

    /// The exit status if the child has ended (reaping it), `nil` while it runs.
    package func exitStatus() -> ExitStatus? {
        state.withLock { state in
            if let status = state.status { return status }
            var raw: Int32 = 0
            while true {
                let result = waitpid(pid, &raw, WNOHANG)
                if result == pid {
                    state.status = ExitStatus(waitStatus: raw)
                    return state.status
                }
                if result == 0 { return nil }
                if errno == EINTR { continue }
                // ECHILD: reaped elsewhere; the status is lost, but the child is gone.
                state.status = .exited(-1)
                return state.status
            }
        }
    }

    /// Waits up to `timeoutNanos` for the child to end; `nil` if it is still running.
    ///
    /// Polls `waitpid` with a short nap: a driver waits for a handful of children at shutdown,
    /// where a millisecond of latency does not matter and SIGCHLD plumbing would.
    package func waitForExit(timeoutNanos: Int64) -> ExitStatus? {
        let deadline = Int64(MonotonicClock.now()) + timeoutNanos
        var nap: Int64 = 200_000
        while true {
            if let status = exitStatus() { return status }
            let now = Int64(MonotonicClock.now())
            if now >= deadline { return nil }
            MonotonicClock.sleep(min(nap, deadline - now))
            nap = min(nap * 2, 20_000_000)
        }
    }

    /// Stops the child the polite way: SIGTERM, up to `graceNanos` to exit, then SIGKILL, and
    /// reaps it. Returns how it ended.
    @discardableResult
    package func terminate(graceNanos: Int64) -> ExitStatus {
        if let status = exitStatus() { return status }
        send(SIGTERM)
        if let status = waitForExit(timeoutNanos: graceNanos) { return status }
        send(SIGKILL)
        return waitForExit(timeoutNanos: Int64.max / 4) ?? .signaled(SIGKILL)
    }
}
