import Foundation
import TypestormMetrics
import Orchestration

/// `typestorm worker`: runs one segment of a scenario's typists, under the driver or alone.
enum WorkerCommand {
    static let command = Command(
        name: "worker",
        abstract: "Run one segment of a scenario's typists (under 'typestorm run', Slurm, or a Kubernetes Indexed Job).",
        discussion: """
        The segment comes from --segment I/N, else from SLURM_PROCID/SLURM_NTASKS, else from
        JOB_COMPLETION_INDEX with --segment-count N (or TYPESTORM_SEGMENT_COUNT), else 0/1.
        Alone, it writes its run record (JSON) to --out or standard output; combine the records
        with 'typestorm merge'. With --driver it speaks the worker protocol on standard input and
        output (used by 'typestorm run').

        Every task of a launcher gets the same arguments (srun expands %t only in its own
        options), so --out names each segment's file itself: {segment} and {count} in FILE become
        the segment's index and count (results/segment-{segment}.json); an existing directory, or
        FILE ending in /, gets segment-I-of-N.json inside it.

        Exit codes: 0 done; 2 stopped early (record marked partial); 64 bad options (an --out
        with srun's %t); 65 bad scenario; 66 the scenario cannot be read; 70 a runner is
        unavailable; 73 the record cannot be written.
        """,
        options: [
            .value("segment", "I/N", help: "Run segment I of N (0-based)."),
            .value("segment-count", "N", help: "Segment count for JOB_COMPLETION_INDEX."),
            .value("out", "FILE", help: "Write the run record here (atomically) instead of standard output; {segment} is expanded, a directory gets a file per segment."),
            .value("base-dir", "DIR", help: "Resolve the scenario's relative paths here (default: the scenario's directory)."),
            .flag("driver", help: "Speak the worker protocol on standard input/output (set by 'typestorm run')."),
            .value("parent-pid", "PID", help: "With --driver: exit if this process is not the parent."),
            .value("server-url", "URL", help: "Base URL of the embedded search server (set by 'typestorm run')."),
        ],
        positionals: [Positional("scenario", help: "Scenario JSON file.")],
        run: { invocation in
            let arguments = invocation.arguments
            let path = try arguments.requiredPositional(0, name: "scenario")
            let count = try arguments.int("segment-count", default: nil, in: 1...100_000)
            let segment: Segment
            do {
                segment = try SegmentSource.resolve(flag: arguments.value("segment"), countFlag: count,
                                                    environment: ProcessInfo.processInfo.environment).0
            } catch let error as SegmentSource.Failure {
                throw UsageError.invalid(error.message)
            }
            let mode: WorkerOptions.Mode
            if arguments.flag("driver") {
                if arguments.value("out") != nil { throw UsageError.conflictingOptions("driver", "out") }
                let parent = try arguments.int("parent-pid", default: nil, in: 1...Int(Int32.max)).map { Int32($0) }
                mode = .driver(parentPID: parent)
            } else {
                var output: String?
                if let pattern = arguments.value("out") {
                    do { output = try WorkerOutput.path(pattern, segment: segment) } catch let error as WorkerOutput.Failure {
                        throw UsageError.invalidValue(option: "out", value: pattern, expected: error.message)
                    }
                }
                mode = .standalone(output: output)
            }
            let options = WorkerOptions(
                scenarioPath: path, baseDirectory: arguments.value("base-dir"), segment: segment, mode: mode,
                toolVersion: VersionCommand.version,
                serverURL: arguments.value("server-url"), log: { invocation.console.err($0) })
            return await Worker.run(options).exitCode
        }
    )
}
