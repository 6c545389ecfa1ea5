import Foundation
import TypestormMetrics
@testable import Orchestration
import TypestormSystem
import Typists

// Helpers for tests that start servers and processes; every suite that uses them sets a
// `.timeLimit`, so a hang fails that test instead of stalling the run.

/// Finds the built `typestorm` executable: `TYPESTORM_EXECUTABLE`, else next to the test
/// bundle (both live in `.build/<triple>/debug`), else `.build/debug` of this package.
enum TypestormExecutable {
    static let path: String? = {
        let fm = FileManager.default
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["TYPESTORM_EXECUTABLE"] { candidates.append(explicit) }
        if let me = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var directory = URL(fileURLWithPath: me).deletingLastPathComponent()
            // The bundle may be a directory (`X.xctest/...`) on some platforms: walk up a little.
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent("typestorm").path)
                directory.deleteLastPathComponent()
            }
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package.appendingPathComponent(".build/debug/typestorm").path)
        return candidates.first { fm.isExecutableFile(atPath: $0) }
    }()

    static let missing = "the typestorm executable is not built next to the tests; run `swift build` (or scripts/test) before `swift test`, or set TYPESTORM_EXECUTABLE"
}

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("typestorm-\(safe)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String) -> String {
        let path = file(name)
        try! Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// What each worker that did not exit 0 wrote to its log (its standard error, in `logs/` of
/// `directory`), for the message of a failed expectation: the cause of a worker's failure is
/// there, and the test's temporary directory takes it away at the end.
func logsOfFailedWorkers(_ outcome: DriverOutcome, in directory: TemporaryDirectory) -> String {
    outcome.workers.filter { $0.exit != .exited(0) }.map { worker in
        let log = FileManager.default.contents(atPath: directory.file("logs/worker-\(worker.index).log"))
            .map { String(decoding: $0, as: UTF8.self) } ?? "(no log)"
        return "worker \(worker.index) (pid \(worker.pid)) ended with \(worker.exit.map { "\($0)" } ?? "no exit status"), problem: \(worker.problem ?? "none"); its log:\n\(log)"
    }.joined(separator: "\n")
}

/// A probe scenario for driver tests (JSON text). The hang limit is generous: on a shared
/// 2-core machine a healthy worker can be starved of CPU for seconds.
func probeScenarioJSON(
    typists: Int = 24, duration: String = "1s", runners: String = #"[{"kind": "probe", "pace": "fast"}]"#,
    snapshot: String = "100ms", hang: String = "60s", drain: String = "5s", seed: Int = 11
) -> String {
    """
    {
      "name": "probe-test",
      "seed": \(seed),
      "duration": "\(duration)",
      "catalog": { "generate": { "items": 100 } },
      "population": {
        "typists": \(typists),
        "mix": [ { "device": "desktop", "share": 0.5 }, { "device": "mobile", "language": "ko", "share": 0.5 } ],
        "arrival": { "kind": "ramp", "over": "500ms" },
        "session": { "queries": 2 }
      },
      "strategies": [ { "preset": "split-state" } ],
      "runners": \(runners),
      "driver": { "snapshotInterval": "\(snapshot)", "hangTimeout": "\(hang)", "grace": "500ms", "drain": "\(drain)" }
    }
    """
}

/// Whether a process with this pid still exists (zombies count as existing).
func processExists(_ pid: Int32) -> Bool {
    kill(pid, 0) == 0 || errno != ESRCH
}

/// A driver over the probe scenario in `directory`, with real `typestorm worker` processes.
func driverConfiguration(
    _ json: String, in directory: TemporaryDirectory, workers: Int, executable: String,
    workerCommand: (@Sendable (Int, [String]) -> (executable: String, arguments: [String]))? = nil,
    onEvent: (@Sendable (DriverEvent) -> Void)? = nil
) throws -> DriverConfiguration {
    let scenario = try ScenarioReader.read(json: json)
    let file = directory.write("scenario.json", scenario.canonicalJSON.prettyCanonical)
    try FileManager.default.createDirectory(atPath: directory.file("logs"), withIntermediateDirectories: true)
    return DriverConfiguration(
        scenario: scenario, scenarioFile: file, baseDirectory: directory.path, workers: workers, executable: executable,
        workerCommand: workerCommand, logDirectory: directory.file("logs"), toolVersion: "test", handleSignals: false,
        progressIntervalNanos: 100_000_000, onEvent: onEvent)
}

/// A small virtual-time scenario (Simulation's runner) for driver tests (JSON text).
func virtualScenarioJSON(typists: Int = 120, seed: Int = 5) -> String {
    """
    {
      "name": "virtual-test",
      "seed": \(seed),
      "duration": "60s",
      "catalog": { "generate": { "items": 100 } },
      "population": { "typists": \(typists), "session": { "queries": 1 } },
      "strategies": [ { "preset": "naive" }, { "preset": "split-state", "debounce": "250ms" } ],
      "runners": [ { "kind": "virtual" } ],
      "backend": { "typistsPerServer": 10, "cancellation": "client-only", "errorRate": 0.01 },
      "driver": { "snapshotInterval": "100ms", "hangTimeout": "60s" }
    }
    """
}

/// One HTTP/1.0 GET to 127.0.0.1:`port` over a plain socket; returns the whole response.
func httpGet(port: UInt16, _ path: String) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard fd >= 0, connected == 0 else { throw CocoaError(.fileReadUnknown) }
    let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        response += buffer[0..<count]
    }
    return String(decoding: response, as: UTF8.self)
}

/// A typist that types `text` one key every 20 ms from `start` (nanoseconds), then leaves
/// `endPause` after its last key.
func typedSession(_ text: String, start: Int64, endPause: Int64 = 0) -> TraceSession {
    var typed = ""
    var events = text.enumerated().map { offset, character in
        typed.append(character)
        return TypingEvent(at: start + Int64(offset) * 20_000_000, action: .edit(key: String(character), text: typed))
    }
    events.append(TypingEvent(at: start + Int64(text.count) * 20_000_000 + endPause, action: .end))
    return TraceSession(events: events)
}
