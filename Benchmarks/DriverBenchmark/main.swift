import Foundation
import Measurement
import Orchestration
import Platform
import Synchronization

// The driver benchmark: how the driver scales over worker processes, and what it costs.
//
//   swift build -c release --product typestorm --product DriverBenchmark
//   .build/release/DriverBenchmark [--typists N] [--runs N] [--json]
//
// 1. Scale-out: the same fast (simulated-time) workload over 1 and 4 workers, side by side in
//    one run; aggregate keystrokes per second of phase wall time, and the 4:1 ratio (floor 1.6×
//    on a 2-core machine). Uses the virtual runner when this build has it, else the probe.
// 2. Driver overhead: driver CPU time per worker snapshot received (snapshots every 20 ms).
// 3. HTTP: 4 workers against the embedded server (when this build has it): requests/s and the
//    server's CPU share.

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: "--\(name)"), arguments.index(after: index) < arguments.endIndex else { return nil }
    return arguments[arguments.index(after: index)]
}
let json = arguments.contains("--json")
let typists = Int(option("typists") ?? "") ?? 400_000
let runs = Int(option("runs") ?? "") ?? 3
/// `--overhead-only`: skip the scale-out runs (the overhead figure alone takes ~6 s).
let overheadOnly = arguments.contains("--overhead-only")

let executable: String = {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let sibling = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("typestorm").path
    guard FileManager.default.isExecutableFile(atPath: sibling) else {
        FileHandle.standardError.write(Data("DriverBenchmark: build typestorm next to it first (swift build -c release --product typestorm)\n".utf8))
        exit(66)
    }
    return sibling
}()

let fastRunner = WorkloadRegistry.isAvailable(.virtual) ? #"{"kind": "virtual"}"# : #"{"kind": "probe", "pace": "fast"}"#
let workloadName = WorkloadRegistry.isAvailable(.virtual) ? "virtual" : "probe (fast)"

func scenario(typists: Int, runner: String, snapshot: String) throws -> Scenario {
    try ScenarioReader.read(json: """
    {
      "name": "driver-benchmark", "seed": 99, "duration": "1h",
      "catalog": { "generate": { "items": 10000 } },
      "population": {
        "typists": \(typists),
        "mix": [ { "device": "desktop", "share": 0.7 }, { "device": "mobile", "language": "ko", "share": 0.3 } ],
        "arrival": { "kind": "rate", "perSecond": 50 },
        "session": { "queries": 2 }
      },
      "strategies": [ { "preset": "naive" }, { "preset": "split-state" } ],
      "runners": [ \(runner) ],
      "driver": { "snapshotInterval": "\(snapshot)", "hangTimeout": "60s" }
    }
    """)
}

struct Measured {
    var keystrokes: Int64
    var phaseSeconds: Double
    var driverCPUNanos: Int64
    var snapshots: Int
    var partial: Bool
}

let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("typestorm-driver-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func measure(_ scenario: Scenario, workers: Int) async throws -> Measured {
    let file = directory.appendingPathComponent("scenario-\(scenario.hash).json").path
    try Data(scenario.canonicalJSON.prettyCanonical.utf8).write(to: URL(fileURLWithPath: file))
    let phaseStart = Mutex<Int64?>(nil)
    let phaseEnd = Mutex<Int64?>(nil)
    let configuration = DriverConfiguration(
        scenario: scenario, scenarioFile: file, baseDirectory: directory.path, workers: workers, executable: executable,
        toolVersion: "bench", handleSignals: false,
        onEvent: { event in
            switch event {
            case .phaseStarted:
                // Workers start 100 ms after the start message (the common start instant).
                phaseStart.withLock { $0 = MonotonicNanos.now() + 100_000_000 }
            default: break
            }
        })
    let outcome = await Driver(configuration).run()
    phaseEnd.withLock { $0 = MonotonicNanos.now() }
    let keystrokes = outcome.record.groups.reduce(Int64(0)) { $0 + $1.metrics.counter("keystrokes") }
    let seconds = Double((phaseEnd.withLock { $0 } ?? 0) - (phaseStart.withLock { $0 } ?? 0)) / 1e9
    return Measured(keystrokes: keystrokes, phaseSeconds: seconds, driverCPUNanos: outcome.driverCPUNanos,
                    snapshots: outcome.snapshotsReceived, partial: outcome.isPartial)
}

func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }

let scaleScenario = try scenario(typists: typists, runner: fastRunner, snapshot: "500ms")
if !overheadOnly {
    _ = try await measure(try scenario(typists: typists / 10, runner: fastRunner, snapshot: "500ms"), workers: 2) // warm-up
}
var one: [Double] = [], four: [Double] = [], ratios: [Double] = []
for _ in 0..<(overheadOnly ? 0 : runs) {
    let a = try await measure(scaleScenario, workers: 1)
    let b = try await measure(scaleScenario, workers: 4)
    guard !a.partial, !b.partial, a.keystrokes == b.keystrokes else {
        FileHandle.standardError.write(Data("DriverBenchmark: a run was partial or the sharded run typed different keys\n".utf8))
        exit(1)
    }
    let rateOne = Double(a.keystrokes) / a.phaseSeconds, rateFour = Double(b.keystrokes) / b.phaseSeconds
    one.append(rateOne)
    four.append(rateFour)
    ratios.append(rateFour / rateOne)
}

// Overhead: real-time probe, 4 workers, a snapshot every 20 ms each.
let overheadScenario = try scenario(typists: 2000, runner: #"{"kind": "probe", "pace": "realtime"}"#, snapshot: "20ms")
var limited = overheadScenario
limited.durationNanos = 5_000_000_000
let overhead = try await measure(limited, workers: 4)
let perSnapshotMicros = Double(overhead.driverCPUNanos) / Double(max(1, overhead.snapshots)) / 1e3

let httpNote = WorkloadRegistry.isAvailable(.httpEmbedded(serverThreads: 2))
    ? "not measured by this build" : "skipped: the http-embedded runner is not in this build"
let cores = ProcessInfo.processInfo.activeProcessorCount
// Other processes on the machine change every figure here: report the load next to them.
let loadAverage = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
let ratio = median(ratios)

if json {
    let object: [String: Any] = [
        "workload": workloadName, "typists": typists, "runs": runs, "cores": cores, "loadAverage": loadAverage,
        "keystrokesPerSecond1": median(one), "keystrokesPerSecond4": median(four), "ratio4to1": ratio, "ratioFloor": 1.6,
        "ratioPass": overheadOnly ? NSNull() : (ratio >= 1.6) as Any,
        "driverCPUMicrosPerSnapshot": perSnapshotMicros, "snapshots": overhead.snapshots,
        "http": httpNote
    ]
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
    print(String(decoding: data, as: UTF8.self))
} else {
    print("driver benchmark — \(cores) cores (load average \(loadAverage)), workload \(workloadName), \(typists) typists, median of \(runs)")
    if !overheadOnly {
        print(String(format: "  1 worker : %12.0f keystrokes/s", median(one)))
        print(String(format: "  4 workers: %12.0f keystrokes/s", median(four)))
        print(String(format: "  ratio 4:1: %.2f× (floor 1.6×) %@", ratio, ratio >= 1.6 ? "ok" : "BELOW FLOOR"))
    }
    print(String(format: "  driver CPU per snapshot: %.1f µs (%d snapshots from 4 workers at 20 ms)", perSnapshotMicros, overhead.snapshots))
    print("  HTTP, 4 workers: \(httpNote)")
}
