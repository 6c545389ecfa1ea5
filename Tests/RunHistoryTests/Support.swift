import Foundation
import TypestormMetrics
import TypestormSystem

// Helpers for tests that start servers and processes; every suite that uses them sets a
// `.timeLimit`, so a hang fails that test instead of stalling the run.

/// A run record with the numbers a history needs: `stale` wrong final screens out of 1000
/// searches, and a time to fresh results of `ttfrMillis` for each.
func sampleRecord(stale: Int64, ttfrMillis: Int64 = 120, seed: UInt64 = 1, startedAtMillis: Int64, commit: String? = nil,
                  scenario: String = "history-test") -> RunRecord {
    var metrics = MetricSet()
    metrics.add("settles", 1000)
    metrics.add("keystrokes", 5000)
    metrics.add("requests_started", 2000)
    metrics.add("requests_completed", 2000)
    metrics.add("stale_settles", stale)
    for _ in 0..<50 { metrics.record("ttfr_ns", ttfrMillis * 1_000_000) }
    let metadata = RunMetadata(
        toolVersion: "test", gitCommit: commit, scenarioName: scenario, scenarioHash: "00112233aabbccdd", seed: seed,
        runner: "virtual", segments: [Segment(index: 0, count: 1)],
        host: RunMetadata.Host(hostname: "test-host", cores: 2, memoryBytes: 1 << 30, os: "Linux"),
        startedAtMillis: startedAtMillis, endedAtMillis: startedAtMillis + 1000)
    return RunRecord(metadata: metadata, groups: [MetricGroup(name: "naive", labels: ["runner": "virtual"], metrics: metrics)])
}

/// A fresh directory under the system's temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("typestorm-history-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The package's root, for scripts and shipped data.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The `typestorm` executable built next to the tests (the end-to-end tests run it as separate
/// processes: concurrent writers must be real processes).
let typestormExecutable: String? = {
    let fm = FileManager.default
    var candidates: [String] = []
    if let explicit = ProcessInfo.processInfo.environment["TYPESTORM_EXECUTABLE"] { candidates.append(explicit) }
    if let me = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        var directory = URL(fileURLWithPath: me).deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent("typestorm").path)
            directory.deleteLastPathComponent()
        }
    }
    candidates.append(packageRoot.appendingPathComponent(".build/debug/typestorm").path)
    return candidates.first { fm.isExecutableFile(atPath: $0) }
}()

struct ProcessResult {
    var code: Int32
    var out: String
    var err: String
}

/// A child process (Platform's `ChildProcess`) whose output goes to files; `finish` waits for
/// it (at most ten minutes, then stops it) and reads them.
final class RunningProcess {
    private let child: ChildProcess
    private let outFile: String
    private let errFile: String

    init(_ executable: String, _ arguments: [String]) throws {
        let scratch = FileManager.default.temporaryDirectory
        outFile = scratch.appendingPathComponent("typestorm-history-out-\(UUID().uuidString)").path
        errFile = scratch.appendingPathComponent("typestorm-history-err-\(UUID().uuidString)").path
        child = try ChildProcess.spawn(SpawnOptions(executable: executable, arguments: arguments,
                                                    standardOutput: .file(outFile), standardError: .file(errFile)))
    }

    func finish() -> ProcessResult {
        let status = child.waitForExit(timeoutNanos: 600_000_000_000) ?? child.terminate(graceNanos: 2_000_000_000)
        let out = (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: outFile)
        try? FileManager.default.removeItem(atPath: errFile)
        let code: Int32
        if case let .exited(value) = status { code = value } else { code = -1 }
        return ProcessResult(code: code, out: out, err: err + (code == -1 ? "\n(\(status))" : ""))
    }
}

func runProcess(_ executable: String, _ arguments: [String]) throws -> ProcessResult {
    try RunningProcess(executable, arguments).finish()
}

/// A PostgreSQL server started by `scripts/postgres-local` (stopped by `stop()`), or `nil`
/// when PostgreSQL is not installed.
struct LocalPostgres {
    let url: String
    let directory: String

    static var isInstalled: Bool {
        (try? runProcess(packageRoot.appendingPathComponent("scripts/postgres-local").path, ["available"]).code) == 0
    }

    static func start() throws -> LocalPostgres {
        let result = try runProcess(packageRoot.appendingPathComponent("scripts/postgres-local").path, ["start"])
        let lines = result.out.split(separator: "\n").map(String.init)
        guard result.code == 0, lines.count == 2 else {
            throw PostgresFailure(message: "scripts/postgres-local start failed (\(result.code)): \(result.err)")
        }
        return LocalPostgres(url: lines[0], directory: lines[1])
    }

    func stop() {
        _ = try? runProcess(packageRoot.appendingPathComponent("scripts/postgres-local").path, ["stop", directory])
    }

    struct PostgresFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
