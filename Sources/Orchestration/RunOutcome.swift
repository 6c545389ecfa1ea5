/// Why a run or a worker could not do its work. The command line turns it into an exit code;
/// the library only says what went wrong.
package enum RunFailureKind: Sendable, Equatable {
    /// Input that is there but wrong: a scenario, an override or a catalog row that does not read.
    case badInput
    /// Input that is not there or cannot be read: a scenario or catalog file, a CA file, a
    /// header's environment variable.
    case missingInput
    /// Something the run needs could not run: a runner, a phase, the embedded server, the metrics
    /// port, every worker, the driver (gone).
    case cannotRun
    /// Output that cannot be written: the run directory, a run record.
    case cannotWrite
}

/// How a run that wrote its run directory ended.
package enum RunVerdict: Sendable, Equatable {
    /// Every worker finished and every threshold passed.
    case complete
    /// Every worker finished and a threshold failed.
    case thresholdFailed
    /// A threshold marked `abort` stopped the run (drained; a partial record).
    case aborted
    /// A worker crashed, hung or sent garbage: the record holds what arrived.
    case partial
    /// SIGINT or SIGTERM stopped the run (drained; a partial record).
    case interrupted(signal: Int32)
}

/// How one worker process ended (its messages are logged or sent to the driver already).
package enum WorkerOutcome: Sendable, Equatable {
    /// Every phase ran to its end and the record was delivered.
    case completed
    /// A stop request or a signal ended the load early; the record delivered is partial.
    case stopped
    /// The worker could not run (why is in its log or its `error` message).
    case failed(RunFailureKind)
}
