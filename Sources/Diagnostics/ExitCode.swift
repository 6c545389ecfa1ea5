/// The exit status of every `typestorm` command, in one table (documented in the README and
/// the docs of each command), after BSD's sysexits where one fits.
///
/// Commands return these and never a bare number, so a script or CI job can rely on one meaning
/// per status across commands.
package enum ExitCode {
    package static let success: Int32 = 0
    /// The command ran, but what it checked failed: a threshold of a run, a sweep's budget, or
    /// a report drawn from a partial run.
    package static let failure: Int32 = 1
    /// The result holds only part of the work: a worker crashed, hung or sent garbage, a worker
    /// was stopped early, or a merge lacks a segment. What did arrive is kept and marked partial.
    package static let partial: Int32 = 2
    /// `compare`: at least one regression.
    package static let regression: Int32 = 2
    /// `compare`: improvements and no regression.
    package static let improvement: Int32 = 4
    /// The command line was wrong (`EX_USAGE`).
    package static let usage: Int32 = 64
    /// An input was wrong: a malformed catalog row, a bad scenario, a file that is not a run
    /// record (`EX_DATAERR`).
    package static let dataError: Int32 = 65
    /// An input file could not be opened (`EX_NOINPUT`).
    package static let noInput: Int32 = 66
    /// Something the tool needs failed or is missing: a runner this build cannot run, a worker
    /// that could not start, a socket (`EX_SOFTWARE`).
    package static let software: Int32 = 70
    /// An output file or directory could not be written (`EX_CANTCREAT`).
    package static let cannotCreate: Int32 = 73
    /// Stopped by SIGINT.
    package static let interrupted: Int32 = 130

    /// Stopped by `signal`: 128 + the signal's number, as a shell reports it (130 for SIGINT,
    /// 143 for SIGTERM).
    package static func interrupted(by signal: Int32) -> Int32 { 128 + signal }
}
