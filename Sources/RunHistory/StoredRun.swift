/// One run as the store keeps it: who, where, when, and the record's identity.
package struct StoredRun: Sendable, Equatable, Codable {
    /// The first 20 hex digits of the SHA-256 of the record's canonical bytes: the same record
    /// always gets the same id, so adding it twice is refused.
    package var id: String
    package var scenarioName: String
    package var scenarioHash: String
    package var seed: UInt64
    package var runner: String
    package var toolVersion: String
    package var gitCommit: String?
    package var hostname: String?
    package var cores: Int?
    package var memoryBytes: Int64?
    package var os: String?
    package var startedAtMillis: Int64?
    package var endedAtMillis: Int64?
    /// When `store add` (or `run --store`) put it in, milliseconds since 1970.
    package var addedAtMillis: Int64
    package var tags: [String]

    /// The time the history orders runs by: the run's start, or when it was added.
    package var timeMillis: Int64 { startedAtMillis ?? addedAtMillis }

    /// The commit's first 7 characters, or "–".
    package var shortCommit: String { gitCommit.map { String($0.prefix(7)) } ?? "–" }

    init(row: [SQLValue]) throws(HistoryError) {
        guard row.count == 15, let id = row[0].string, let name = row[1].string, let hash = row[2].string,
              let seedText = row[3].string, let seed = UInt64(seedText), let runner = row[4].string,
              let toolVersion = row[5].string, let added = row[13].int64, let tags = row[14].string
        else { throw .unusable("a row of the runs table is not readable: \(row)") }
        self.id = id
        scenarioName = name
        scenarioHash = hash
        self.seed = seed
        self.runner = runner
        self.toolVersion = toolVersion
        gitCommit = row[6].string
        hostname = row[7].string
        cores = row[8].int64.map { Int($0) }
        memoryBytes = row[9].int64
        os = row[10].string
        startedAtMillis = row[11].int64
        endedAtMillis = row[12].int64
        addedAtMillis = added
        self.tags = tags.isEmpty ? [] : tags.split(separator: ",").map(String.init)
    }
}
