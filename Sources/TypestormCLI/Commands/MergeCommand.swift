import Diagnostics
import Foundation
import Measurement
import Orchestration

/// `typestorm merge`: combines the run records of segments (from `typestorm worker` runs on
/// several machines) into one.
enum MergeCommand {
    static let command = Command(
        name: "merge",
        abstract: "Merge run records of the segments of one run into one record.",
        discussion: """
        Records merge when they come from the same scenario (hash) and seed and cover different
        segments. Prints the summary table (or, with --json, the merged record) and writes the
        record to --out. Exit codes: 0 all segments present; 2 some segment missing or a record
        partial (merged anyway, marked partial); 65 a file is not a mergeable run record;
        66 a file cannot be read; 73 --out cannot be written.
        """,
        options: [
            .value("out", "FILE", help: "Write the merged record here (atomically)."),
            .json,
        ],
        positionals: [Positional("files", help: "Run record JSON files.", variadic: true)],
        run: { invocation in
            let files = invocation.arguments.positionals
            guard !files.isEmpty else { throw UsageError.missingArgument("files") }
            var merged: RunRecord?
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw ToolError("cannot read \(file): no such file or not readable", exitCode: ExitCode.noInput)
                }
                let record: RunRecord
                do {
                    record = try RunRecord.decode(data)
                } catch {
                    throw ToolError("\(file) is not a run record: \(Typestorm.describe(error))", exitCode: ExitCode.dataError)
                }
                if merged == nil {
                    merged = record
                } else {
                    do { try merged!.merge(record) } catch {
                        throw ToolError("cannot merge \(file): \(error)", exitCode: ExitCode.dataError)
                    }
                }
            }
            var record = merged!
            if !record.coversAllSegments {
                let count = record.metadata.segments.first?.count ?? 0
                let present = Set(record.metadata.segments.map(\.index))
                let missing = (0..<count).filter { !present.contains($0) }
                let problem = missing.isEmpty
                    ? "segments have different counts: \(record.metadata.segments.map { "\($0.index)/\($0.count)" }.joined(separator: ", "))"
                    : "missing segment(s) \(missing.map { "\($0)/\(count)" }.joined(separator: ", "))"
                if !record.problems.contains(problem) { record.problems.append(problem) }
                record.partial = true
            }
            if let out = invocation.arguments.value("out") {
                do { try AtomicFile.write(try record.encoded() + Data("\n".utf8), to: out) } catch {
                    throw ToolError("cannot write \(out): \(error.localizedDescription)", exitCode: ExitCode.cannotCreate)
                }
            }
            if invocation.arguments.flag("json") {
                invocation.console.out(String(decoding: try record.encoded(), as: UTF8.self) + "\n")
            } else {
                let segments = record.metadata.segments.map { "\($0.index)/\($0.count)" }.joined(separator: ", ")
                invocation.console.out("\(record.metadata.scenarioName) (hash \(record.metadata.scenarioHash)), segments \(segments)\(record.partial ? " — PARTIAL" : "")\n\n")
                invocation.console.out(RunSummary.table(record))
                if !record.problems.isEmpty {
                    invocation.console.out("\nproblems:\n" + record.problems.map { "  - \($0)\n" }.joined())
                }
                if let out = invocation.arguments.value("out") { invocation.console.out("\nwrote \(out)\n") }
            }
            return record.partial ? ExitCode.partial : ExitCode.success
        }
    )
}
