import Diagnostics
import Orchestration

// The exit codes of `run` and `worker`: the library reports how a run or a worker ended, and
// only the command line turns that into a process's exit status (the table in `Diagnostics`).

extension RunFailureKind {
    /// 65 bad input, 66 missing input, 70 something could not run, 73 output cannot be written.
    var exitCode: Int32 {
        switch self {
        case .badInput: ExitCode.dataError
        case .missingInput: ExitCode.noInput
        case .cannotRun: ExitCode.software
        case .cannotWrite: ExitCode.cannotCreate
        }
    }
}

extension RunVerdict {
    /// 0 complete; 1 a threshold failed or an `abort` threshold stopped the run; 2 partial;
    /// 128 + the signal when one stopped it.
    var exitCode: Int32 {
        switch self {
        case .complete: ExitCode.success
        case .thresholdFailed, .aborted: ExitCode.failure
        case .partial: ExitCode.partial
        case let .interrupted(signal): ExitCode.interrupted(by: signal)
        }
    }
}

extension WorkerOutcome {
    /// 0 completed, 2 stopped early (a partial record), else the failure's code.
    var exitCode: Int32 {
        switch self {
        case .completed: ExitCode.success
        case .stopped: ExitCode.partial
        case let .failed(kind): kind.exitCode
        }
    }
}

extension RunSession.Result {
    /// The run's exit code (`RunVerdict.exitCode`).
    var exitCode: Int32 { verdict.exitCode }
}
