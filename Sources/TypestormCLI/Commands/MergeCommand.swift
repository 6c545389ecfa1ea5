import Diagnostics
import Foundation
import TypestormMetrics
import Orchestration
import TypestormSystem

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
        partial (merged anyway, marked partial); 65 a file is not a mergeable run record, or two
        files overlap (the same segment, or segments of different splits such as 0/3 and 0/2);
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
            /// Which file brought each segment, so a conflict names both files.
            var owners: [(segment: Segment, file: String)] = []
            for file in files {
                let record = try ReportingCLI.load(file).record
                try checkLayout(record.metadata.segments, of: file, against: owners)
                owners += record.metadata.segments.map { ($0, file) }
                if merged == nil {
                    merged = record
                } else {
                    do { try merged!.merge(record) } catch {
                        throw ToolError("cannot merge \(file) with \(files[0]): \(error)", exitCode: ExitCode.dataError)
                    }
                }
            }
            var record = merged!
            if !record.coversAllSegments {
                // `checkLayout` guarantees one count, so what is not covered is missing.
                let count = record.metadata.segments.first?.count ?? 0
                let present = Set(record.metadata.segments.map(\.index))
                let missing = (0..<count).filter { !present.contains($0) }
                let problem = "missing segment(s) \(missing.map { "\($0)/\(count)" }.joined(separator: ", "))"
                if !record.problems.contains(problem) { record.problems.append(problem) }
                record.partial = true
            }
            if let out = invocation.arguments.value("out") {
                do { try AtomicFile.write(try record.encoded() + Data("\n".utf8), to: out) } catch {
                    throw ToolError("cannot write \(out): \(ErrorText.describe(error))", exitCode: ExitCode.cannotCreate)
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

    /// Refuses a record whose segments repeat one already merged (its typists would be counted
    /// twice) or come from another split of the typists (`0/3` and `0/2` overlap), naming both
    /// files.
    static func checkLayout(_ segments: [Segment], of file: String, against owners: [(segment: Segment, file: String)]) throws {
        for segment in segments {
            if let same = owners.first(where: { $0.segment == segment }) {
                throw ToolError("\(same.file) and \(file) both hold segment \(segment.index)/\(segment.count); its typists would be counted twice. Merge each segment's record once.", exitCode: ExitCode.dataError)
            }
            if let other = owners.first(where: { $0.segment.count != segment.count }) {
                throw ToolError("\(other.file) holds segment \(other.segment.index)/\(other.segment.count) but \(file) holds segment \(segment.index)/\(segment.count): they split the typists differently and overlap. Merge the records of one split (every worker with the same N in --segment I/N).", exitCode: ExitCode.dataError)
            }
        }
    }
}
