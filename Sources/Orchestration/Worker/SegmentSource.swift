import TypestormMetrics

/// Where a worker learns which segment i/N of the typists it runs: flags first, then the
/// environment of the launcher that started it (Slurm, a Kubernetes Indexed Job).
package enum SegmentSource {
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    /// - Parameters:
    ///   - flag: `--segment I/N`, if given.
    ///   - countFlag: `--segment-count N`, the count for `JOB_COMPLETION_INDEX`.
    ///   - environment: the process environment.
    package static func resolve(flag: String?, countFlag: Int?, environment: [String: String]) throws(Failure) -> (Segment, origin: String) {
        if let flag {
            let parts = flag.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
                throw Failure(message: "--segment '\(flag)': expected INDEX/COUNT such as 0/4")
            }
            return (try check(index, count, "--segment"), "--segment")
        }
        if let procid = environment["SLURM_PROCID"] {
            guard let index = Int(procid) else { throw Failure(message: "SLURM_PROCID '\(procid)' is not an integer") }
            guard let tasks = environment["SLURM_NTASKS"] ?? environment["SLURM_NPROCS"], let count = Int(tasks) else {
                throw Failure(message: "SLURM_PROCID is set but SLURM_NTASKS is missing or not an integer")
            }
            return (try check(index, count, "SLURM_PROCID/SLURM_NTASKS"), "Slurm")
        }
        if let completion = environment["JOB_COMPLETION_INDEX"] {
            guard let index = Int(completion) else { throw Failure(message: "JOB_COMPLETION_INDEX '\(completion)' is not an integer") }
            let countText = countFlag.map(String.init) ?? environment["TYPESTORM_SEGMENT_COUNT"]
            guard let countText, let count = Int(countText) else {
                throw Failure(message: "JOB_COMPLETION_INDEX is set; give the number of segments with --segment-count N or TYPESTORM_SEGMENT_COUNT (the Job's completions)")
            }
            return (try check(index, count, "JOB_COMPLETION_INDEX"), "Kubernetes Indexed Job")
        }
        return (Segment(index: 0, count: 1), "default (the whole population)")
    }

    private static func check(_ index: Int, _ count: Int, _ origin: String) throws(Failure) -> Segment {
        guard count >= 1, count <= 100_000 else { throw Failure(message: "\(origin): segment count \(count) must be in 1...100000") }
        guard index >= 0, index < count else { throw Failure(message: "\(origin): segment index \(index) must be in 0..<\(count)") }
        return Segment(index: index, count: count)
    }
}
