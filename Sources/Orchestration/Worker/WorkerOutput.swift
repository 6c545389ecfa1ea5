import Foundation
import TypestormMetrics

/// Where a standalone worker writes its run record, from the `--out` pattern.
///
/// Launchers start every task with the same arguments (`srun` expands `%t` only in its own
/// `--output`/`--error` options, a Kubernetes Job has one pod template), so the worker itself
/// must make each segment's file name distinct.
package enum WorkerOutput {
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    /// The file name a worker gives its record inside an output directory.
    package static func fileName(for segment: Segment) -> String {
        "segment-\(segment.index)-of-\(segment.count).json"
    }

    /// Expands `{segment}` (the index) and `{count}` in `pattern`; an existing directory, or a
    /// pattern ending in `/`, gets `segment-I-of-N.json` inside it.
    ///
    /// A pattern with `%t` or `%n` (srun's placeholders, which reach the program unexpanded) is
    /// refused, since every task would write the same file.
    package static func path(_ pattern: String, segment: Segment) throws(Failure) -> String {
        if let placeholder = ["%t", "%n", "%j"].first(where: pattern.contains) {
            throw Failure(message: "a path with {segment} (for example results/segment-{segment}.json) or a directory; \(placeholder) is srun's placeholder, expanded only in srun's own --output and --error options, so every task would write the same file")
        }
        var isDirectory: ObjCBool = false
        if pattern.hasSuffix("/") || (FileManager.default.fileExists(atPath: pattern, isDirectory: &isDirectory) && isDirectory.boolValue) {
            return URL(fileURLWithPath: pattern).appendingPathComponent(fileName(for: segment)).path
        }
        return pattern
            .replacingOccurrences(of: "{segment}", with: String(segment.index))
            .replacingOccurrences(of: "{count}", with: String(segment.count))
    }
}
