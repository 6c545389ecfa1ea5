/// Where and when a run happened. Wall-clock fields are optional: virtual-time records leave
/// them out so that the same scenario and seed give the same bytes.
public struct RunMetadata: Sendable, Equatable, Codable {
    /// The program that wrote the record (`typestorm`).
    public var tool: String
    /// The writing program's version (``ToolVersion``).
    public var toolVersion: String
    /// The source commit the program was built from; `nil` when not known.
    public var gitCommit: String?
    /// The scenario's name, for people; ``scenarioHash`` is what identifies it.
    public var scenarioName: String
    /// A hash of the scenario's canonical JSON, so records of different scenarios never merge.
    public var scenarioHash: String
    /// The seed the scenario ran with: same scenario and seed, same keystrokes.
    public var seed: UInt64
    /// The runner that produced the measurements: ``RunnerSpec/kind`` (`virtual`, `in-process`, ...).
    public var runner: String
    /// The parts of the typist population this record covers, sorted; all of them for a whole run
    /// (``RunRecord/coversAllSegments``).
    public var segments: [Segment]
    /// The machine a live run ran on; `nil` in virtual time, so records stay byte-identical.
    public var host: Host?
    /// Wall-clock start and end in milliseconds since 1970, for live runs.
    public var startedAtMillis: Int64?
    /// Wall-clock end in milliseconds since 1970, for live runs; `nil` in virtual time.
    public var endedAtMillis: Int64?

    /// The machine a live run ran on, so results from different machines are not compared unawares.
    public struct Host: Sendable, Equatable, Codable {
        /// The machine's host name.
        public var hostname: String
        /// Logical CPU cores online.
        public var cores: Int
        /// Physical memory, in bytes.
        public var memoryBytes: Int64
        /// Operating system name, release and machine, as `uname` gives them (`Linux 6.1.0 x86_64`).
        public var os: String

        /// A host description from its parts.
        public init(hostname: String, cores: Int, memoryBytes: Int64, os: String) {
            self.hostname = hostname
            self.cores = cores
            self.memoryBytes = memoryBytes
            self.os = os
        }
    }

    /// Metadata from its parts; wall-clock fields and ``host`` default to `nil`, as virtual runs
    /// leave them.
    public init(
        tool: String = "typestorm", toolVersion: String, gitCommit: String? = nil,
        scenarioName: String, scenarioHash: String, seed: UInt64, runner: String,
        segments: [Segment], host: Host? = nil, startedAtMillis: Int64? = nil, endedAtMillis: Int64? = nil
    ) {
        self.tool = tool
        self.toolVersion = toolVersion
        self.gitCommit = gitCommit
        self.scenarioName = scenarioName
        self.scenarioHash = scenarioHash
        self.seed = seed
        self.runner = runner
        self.segments = segments
        self.host = host
        self.startedAtMillis = startedAtMillis
        self.endedAtMillis = endedAtMillis
    }
}

/// Everything one run (or one shard of it) measured: the unit that workers send, `merge`
/// combines and reports read. Versioned; encode with `RunRecord.encoder` for stable bytes.
public struct RunRecord: Sendable, Equatable, Codable {
    /// Bumped whenever a field changes meaning; readers refuse other versions.
    public static let currentSchemaVersion = 1

    /// The record format's version, ``currentSchemaVersion`` when written by this build.
    public var schemaVersion: Int
    /// Where and when the run happened, and which run it was (``RunMetadata``).
    public var metadata: RunMetadata
    /// Groups in a stable order: by name, then labels.
    public private(set) var groups: [MetricGroup]
    /// True when some segment or worker did not deliver everything (see `problems`).
    public var partial: Bool
    /// What went wrong, by name: "worker 3 exited with signal 9 after 12.0 s", ...
    public var problems: [String]

    /// A record of the current schema with `groups` added in order (groups of equal name and labels
    /// merge), marked `partial` with `problems` when something was not delivered.
    public init(metadata: RunMetadata, groups: [MetricGroup] = [], partial: Bool = false, problems: [String] = []) {
        self.schemaVersion = Self.currentSchemaVersion
        self.metadata = metadata
        self.groups = []
        self.partial = partial
        self.problems = problems
        for group in groups { try? add(group) }
    }

    /// Reads a record, putting its groups in the stable order (by key) whatever order the file
    /// lists them in.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
        metadata = try container.decode(RunMetadata.self, forKey: .metadata)
        partial = try container.decode(Bool.self, forKey: .partial)
        problems = try container.decode([String].self, forKey: .problems)
        let listed = try container.decode([MetricGroup].self, forKey: .groups)
        let keys = listed.map(\.key)
        groups = listed.indices.sorted { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }.map { listed[$0] }
    }

    /// The group with exactly this name and these labels; `nil` when the record has none.
    public func group(named name: String, labels: [String: String] = [:]) -> MetricGroup? {
        let key = MetricGroup(name: name, labels: labels).key
        let index = position(of: key)
        return index < groups.count && groups[index].key == key ? groups[index] : nil
    }

    /// Adds a group, merging it into an existing one with the same name and labels.
    public mutating func add(_ group: MetricGroup) throws(MergeError) {
        let key = group.key
        let index = position(of: key)
        if index < groups.count && groups[index].key == key {
            try groups[index].metrics.merge(group.metrics)
        } else {
            groups.insert(group, at: index)
        }
    }

    /// The first index whose group's key is not below `key` (`groups` is kept sorted by key, so
    /// a record of thousands of groups, a sweep's, is built without sorting it again per group).
    private func position(of key: String) -> Int {
        var low = 0
        var high = groups.count
        while low < high {
            let middle = low + (high - low) / 2
            if groups[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Combines the record of another shard of the same run.
    ///
    /// Segments are unioned, times widened, problems concatenated; a segment present in both is
    /// an error (it would be counted twice), and so are segments of different counts (`0/3` and
    /// `0/2` cover overlapping typists, so their sum would count some twice).
    public mutating func merge(_ other: RunRecord) throws(MergeError) {
        guard other.schemaVersion == schemaVersion else {
            throw .incompatibleSchema(expected: schemaVersion, found: other.schemaVersion)
        }
        guard other.metadata.scenarioHash == metadata.scenarioHash else {
            throw .incompatibleRuns("scenario hash \(other.metadata.scenarioHash) differs from \(metadata.scenarioHash)")
        }
        guard other.metadata.seed == metadata.seed else {
            throw .incompatibleRuns("seed \(other.metadata.seed) differs from \(metadata.seed)")
        }
        if let mine = metadata.segments.first,
           let theirs = (metadata.segments + other.metadata.segments).first(where: { $0.count != mine.count }) {
            throw .incompatibleRuns("segment \(mine.index)/\(mine.count) and segment \(theirs.index)/\(theirs.count) come from different splits of the typists")
        }
        let overlap = Set(metadata.segments).intersection(other.metadata.segments)
        if let repeated = overlap.sorted().first {
            throw .incompatibleRuns("segment \(repeated.index)/\(repeated.count) appears in both records")
        }
        for group in other.groups { try add(group) }
        metadata.segments = (metadata.segments + other.metadata.segments).sorted()
        metadata.startedAtMillis = Self.combine(metadata.startedAtMillis, other.metadata.startedAtMillis, Swift.min)
        metadata.endedAtMillis = Self.combine(metadata.endedAtMillis, other.metadata.endedAtMillis, Swift.max)
        partial = partial || other.partial
        problems += other.problems
    }

    /// Whether the segments cover the whole population: every index of one common count.
    public var coversAllSegments: Bool {
        guard let count = metadata.segments.first?.count else { return false }
        return metadata.segments.allSatisfy { $0.count == count } && Set(metadata.segments.map(\.index)) == Set(0..<count)
    }

    private static func combine(_ a: Int64?, _ b: Int64?, _ pick: (Int64, Int64) -> Int64) -> Int64? {
        switch (a, b) {
        case let (a?, b?): return pick(a, b)
        case let (a?, nil): return a
        case let (nil, b): return b
        }
    }
}

#if canImport(Foundation)
import Foundation

extension RunRecord {
    /// The encoder for run records: sorted keys, so equal records give equal bytes.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }

    /// The record as JSON bytes from ``encoder``: equal records give equal bytes.
    public func encoded() throws -> Data {
        try Self.encoder.encode(self)
    }

    /// Decodes a record, refusing schema versions this build does not understand.
    public static func decode(_ data: Data) throws -> RunRecord {
        let record = try JSONDecoder().decode(RunRecord.self, from: data)
        guard record.schemaVersion == currentSchemaVersion else {
            throw MergeError.incompatibleSchema(expected: currentSchemaVersion, found: record.schemaVersion)
        }
        return record
    }
}
#endif
