import Foundation
import TypestormMetrics
import Orchestration
import Simulation
import TypestormSystem
import Synchronization

// The driver benchmark: how the driver scales over worker processes, and what it costs.
//
//   swift build -c release --product typestorm --product DriverBenchmark
//   .build/release/DriverBenchmark [--typists N] [--runs N] [--json] [--scale-only | --overhead-only]
//
// 1. Scale-out: the same fast (simulated-time) workload over 1 and 4 workers, side by side in
//    one run; aggregate keystrokes per second of phase wall time, and the 4:1 ratio (floor 1.6×
//    on a 2-core machine). Uses the virtual runner when this build has it, else the probe.
//    The same workload also runs in this process on one thread, as SimulatorBenchmark runs the
//    simulator (keystrokes per CPU second of the thread): the 1-worker phase must reach it
//    within 1.3× (floor), so the driver and its worker process cost little beside the simulator.
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
/// `--overhead-only`: skip the scale-out runs (overhead and HTTP only).
let overheadOnly = arguments.contains("--overhead-only")
/// `--scale-only`: only the scale-out runs (no overhead or HTTP measurement).
let scaleOnly = arguments.contains("--scale-only")

let executable: String = {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let sibling = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("typestorm").path
    guard FileManager.default.isExecutableFile(atPath: sibling) else {
        FileHandle.standardError.write(Data("DriverBenchmark: build typestorm next to it first (swift build -c release --product typestorm)\n".utf8))
        exit(66)
    }
    return sibling
}()

let fastRunner = #"{"kind": "virtual"}"#
let workloadName = "virtual"

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
    var workersCPUNanos: Int64
    /// Worker CPU from the phase's start to the end of the run (start-up excluded).
    var phaseWorkersCPUNanos: Int64
}

/// CPU time (user + system) of process `pid` so far, from `/proc/<pid>/stat` (clock ticks).
func processCPUNanos(_ pid: Int32) -> Int64 {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return 0 }
    // After the command name: state is field 3, utime and stime fields 14 and 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else { return 0 }
    return (user + system) * 1_000_000_000 / Int64(sysconf(Int32(_SC_CLK_TCK)))
}

let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("typestorm-driver-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func measure(_ scenario: Scenario, workers: Int) async throws -> Measured {
    let file = directory.appendingPathComponent("scenario-\(scenario.hash).json").path
    try Data(scenario.canonicalJSON.prettyCanonical.utf8).write(to: URL(fileURLWithPath: file))
    let phaseStart = Mutex<Int64?>(nil)
    let phaseEnd = Mutex<Int64?>(nil)
    let pids = Mutex<[Int32]>([])
    let startupCPU = Mutex<Int64>(0)
    let configuration = DriverConfiguration(
        scenario: scenario, scenarioFile: file, baseDirectory: directory.path, workers: workers, executable: executable,
        toolVersion: "bench", handleSignals: false,
        onEvent: { event in
            switch event {
            case let .spawned(_, pid): pids.withLock { $0.append(pid) }
            case .phaseStarted:
                // Workers start 100 ms after the start message (the common start instant).
                phaseStart.withLock { $0 = Int64(MonotonicClock.now()) + 100_000_000 }
                // What the workers spent before the phase (start-up, typists), to leave it out.
                startupCPU.withLock { $0 = pids.withLock { $0 }.reduce(0) { $0 + processCPUNanos($1) } }
            default: break
            }
        })
    let outcome = await Driver(configuration).run()
    phaseEnd.withLock { $0 = Int64(MonotonicClock.now()) }
    let keystrokes = outcome.record.groups.reduce(Int64(0)) { $0 + $1.metrics.counter(MetricName.keystrokes) }
    let seconds = Double((phaseEnd.withLock { $0 } ?? 0) - (phaseStart.withLock { $0 } ?? 0)) / 1e9
    return Measured(keystrokes: keystrokes, phaseSeconds: seconds, driverCPUNanos: outcome.driverCPUNanos,
                    snapshots: outcome.snapshotsReceived, partial: outcome.isPartial, workersCPUNanos: outcome.workersCPUNanos,
                    phaseWorkersCPUNanos: outcome.workersCPUNanos - startupCPU.withLock { $0 })
}

func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }

let scaleScenario = try scenario(typists: typists, runner: fastRunner, snapshot: "500ms")
if !overheadOnly {
    _ = try await measure(try scenario(typists: typists / 10, runner: fastRunner, snapshot: "500ms"), workers: 2) // warm-up
}
var one: [Double] = [], four: [Double] = [], ratios: [Double] = [], efficiencies: [Double] = []
/// The 1-worker phase's keystrokes per second of the worker's phase CPU time.
var oneCPU: [Double] = []
// Cores the workers got during the phase: other sessions' load takes its share (Linux
// autogroup schedules per session, so 4 workers do not get more of a busy machine than 1).
var coresOne: [Double] = [], coresFour: [Double] = [], phaseEfficiencies: [Double] = []
for _ in 0..<(overheadOnly ? 0 : runs) {
    let a = try await measure(scaleScenario, workers: 1)
    let b = try await measure(scaleScenario, workers: 4)
    guard !a.partial, !b.partial, a.keystrokes == b.keystrokes else {
        FileHandle.standardError.write(Data("DriverBenchmark: a run was partial or the sharded run typed different keys\n".utf8))
        exit(1)
    }
    let rateOne = Double(a.keystrokes) / a.phaseSeconds, rateFour = Double(b.keystrokes) / b.phaseSeconds
    one.append(rateOne)
    oneCPU.append(Double(a.keystrokes) / (Double(max(1, a.phaseWorkersCPUNanos)) / 1e9))
    four.append(rateFour)
    ratios.append(rateFour / rateOne)
    // CPU the workers spent for the same keys: independent of what else the machine runs.
    efficiencies.append(Double(a.workersCPUNanos) / Double(max(1, b.workersCPUNanos)))
    coresOne.append(Double(a.phaseWorkersCPUNanos) / 1e9 / a.phaseSeconds)
    coresFour.append(Double(b.phaseWorkersCPUNanos) / 1e9 / b.phaseSeconds)
    phaseEfficiencies.append(Double(a.phaseWorkersCPUNanos) / Double(max(1, b.phaseWorkersCPUNanos)))
}

/// CPU time of the calling thread, in nanoseconds.
func threadCPUNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

/// The scale-out workload in this process on one thread, as SimulatorBenchmark runs the
/// simulator: every strategy over every typist, sessions from the scenario's population.
/// Returns keystrokes and the thread's CPU seconds (typist set-up excluded, as the phase excludes it).
func simulateInProcess(_ scenario: Scenario) throws -> (keystrokes: Int64, cpuSeconds: Double) {
    let typists = try ScenarioTypists(scenario: scenario, baseDirectory: directory.path)
    let simulation = VirtualWorkload.simulationPlan(scenario)
    let start = threadCPUNanos()
    var keystrokes: Int64 = 0
    for spec in simulation.strategies {
        let recorder = Simulation.runStrategyCounting(spec, scenario: simulation, typists: 0..<simulation.typists) { range in
            range.map(typists.session(forTypist:))
        }.recorder
        keystrokes += recorder.metrics().counter(MetricName.keystrokes)
    }
    return (keystrokes, Double(threadCPUNanos() - start) / 1e9)
}
let referenceFloor = 1.3
let reference = overheadOnly ? nil : try simulateInProcess(scaleScenario)
let referenceRate = reference.map { Double($0.keystrokes) / $0.cpuSeconds }
/// How many times faster the in-process simulator is than the 1-worker phase (≤ 1.3: met).
let referenceRatio = referenceRate.map { $0 / median(one) }
/// The same with the worker's phase CPU instead of the phase's wall time (load-independent).
let referenceCPURatio = referenceRate.map { $0 / median(oneCPU) }

// Overhead: real-time probe, 4 workers, a snapshot every 20 ms each.
let overheadScenario = try scenario(typists: 2000, runner: #"{"kind": "probe", "pace": "realtime"}"#, snapshot: "20ms")
var limited = overheadScenario
limited.durationNanos = 5_000_000_000
let overhead = scaleOnly ? nil : try await measure(limited, workers: 4)
let perSnapshotMicros = overhead.map { Double($0.driverCPUNanos) / Double(max(1, $0.snapshots)) / 1e3 }

// HTTP: 4 workers against the embedded server (the engine over a generated catalog).
struct HTTPMeasured {
    var requestsPerSecond: Double
    var serverCPUShare: Double
    var serverCPUSeconds: Double
    var workersCPUSeconds: Double
    var partial: Bool
}
func measureHTTP() async throws -> HTTPMeasured {
    let http = try ScenarioReader.read(json: """
    {
      "name": "driver-benchmark-http", "seed": 7, "duration": "10s",
      "catalog": { "generate": { "items": 100000 } },
      "population": { "typists": 400, "arrival": { "kind": "ramp", "over": "2s" }, "session": { "queries": 4 } },
      "strategies": [ { "preset": "naive" }, { "preset": "sequence-guard" } ],
      "runners": [ { "kind": "http-embedded", "serverThreads": 2 } ],
      "driver": { "hangTimeout": "60s", "drain": "3s" }
    }
    """)
    let file = directory.appendingPathComponent("http.json").path
    try Data(http.canonicalJSON.prettyCanonical.utf8).write(to: URL(fileURLWithPath: file))
    let phaseStart = Mutex<Int64>(0)
    return try await EmbeddedServerFactory.withServer(for: http, baseDirectory: directory.path, threads: 2) { server in
        var cpu = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
        let processBefore = Int64(cpu.tv_sec) * 1_000_000_000 + Int64(cpu.tv_nsec)
        let configuration = DriverConfiguration(
            scenario: http, scenarioFile: file, baseDirectory: directory.path, workers: 4, executable: executable,
            toolVersion: "bench", serverURL: server.baseURL, handleSignals: false,
            onEvent: { event in
                if case .phaseStarted = event { phaseStart.withLock { $0 = Int64(MonotonicClock.now()) + 100_000_000 } }
            })
        let outcome = await Driver(configuration).run()
        let seconds = Double(Int64(MonotonicClock.now()) - phaseStart.withLock { $0 }) / 1e9
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
        let serverCPU = Double(Int64(cpu.tv_sec) * 1_000_000_000 + Int64(cpu.tv_nsec) - processBefore - outcome.driverCPUNanos)
        let workersCPU = Double(outcome.workersCPUNanos)
        let requests = outcome.record.groups.reduce(Int64(0)) { $0 + $1.metrics.counter(MetricName.requestsStarted) }
        return HTTPMeasured(requestsPerSecond: Double(requests) / seconds, serverCPUShare: serverCPU / (serverCPU + workersCPU),
                            serverCPUSeconds: serverCPU / 1e9, workersCPUSeconds: workersCPU / 1e9, partial: outcome.isPartial)
    }
}
let httpResult = scaleOnly ? nil : try await measureHTTP()
let httpNote = httpResult.map {
    String(format: "%.0f requests/s, server CPU %.2f s = %.0f%% of server + workers (workers %.2f s)%@",
           $0.requestsPerSecond, $0.serverCPUSeconds, $0.serverCPUShare * 100, $0.workersCPUSeconds, $0.partial ? " PARTIAL" : "")
} ?? "skipped (--scale-only)"
let cores = ProcessInfo.processInfo.activeProcessorCount
// Other processes on the machine change every figure here: report the load next to them.
let loadAverage = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
let ratio = median(ratios)
let efficiency = median(efficiencies)
// What 4 workers reach on this machine's cores when nothing else competes for them.
let projected = Double(min(4, cores)) * efficiency
let phaseEfficiency = median(phaseEfficiencies)
/// Linux autogroup: CPU is shared fairly between sessions first, so under another session's
/// load this benchmark's session gets its share whether it runs 1 worker or 4.
let autogroup = (try? String(contentsOfFile: "/proc/sys/kernel/sched_autogroup_enabled", encoding: .utf8))?
    .trimmingCharacters(in: .whitespacesAndNewlines) == "1"

if json {
    let object: [String: Any] = [
        "workload": workloadName, "typists": typists, "runs": runs, "cores": cores, "loadAverage": loadAverage,
        "keystrokesPerSecond1": median(one), "keystrokesPerSecond4": median(four), "ratio4to1": ratio, "ratioFloor": 1.6,
        "cpuEfficiency4": efficiency, "projectedRatioOnIdleCores": projected, "ratioPass": overheadOnly ? NSNull() : (ratio >= 1.6) as Any,
        "coresUsedInPhase1": median(coresOne), "coresUsedInPhase4": median(coresFour), "phaseCPUEfficiency4": phaseEfficiency,
        "schedulerAutogroup": autogroup,
        "inProcessKeystrokesPerCPUSecond": referenceRate ?? NSNull(), "inProcessTo1WorkerRatio": referenceRatio ?? NSNull(),
        "inProcessTo1WorkerCPURatio": referenceCPURatio ?? NSNull(), "inProcessRatioFloor": referenceFloor,
        "inProcessRatioPass": referenceRatio.map { ($0 <= referenceFloor) as Any } ?? NSNull(),
        "driverCPUMicrosPerSnapshot": perSnapshotMicros ?? NSNull(), "snapshots": overhead?.snapshots ?? NSNull(),
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
        if let referenceRate, let referenceRatio, let referenceCPURatio {
            print(String(format: "  in this process, one thread (as SimulatorBenchmark): %.0f keystrokes per CPU second", referenceRate))
            print(String(format: "  [%@] 1 worker within %.1f× of the in-process simulator: %.2f× (per second of the worker's phase CPU: %.2f×)",
                         referenceRatio <= referenceFloor ? "met" : "NOT MET", referenceFloor, referenceRatio, referenceCPURatio))
        }
        print(String(format: "  worker CPU for the same keys, 1 vs 4 workers: %.2f (1.00 = no sharding overhead); on %d idle cores 4 workers would reach %.2f×",
                     efficiency, cores, projected))
        print(String(format: "  in the phase only (start-up excluded): worker CPU 1 vs 4 workers %.2f; cores the workers got: 1 worker %.2f, 4 workers %.2f of %d%@",
                     phaseEfficiency, median(coresOne), median(coresFour), cores,
                     autogroup ? " (scheduler autogroup on: other sessions' load caps this session's share)" : ""))
    }
    if let overhead, let perSnapshotMicros {
        print(String(format: "  driver CPU per snapshot: %.1f µs (%d snapshots from 4 workers at 20 ms)", perSnapshotMicros, overhead.snapshots))
    }
    print("  HTTP, 4 workers: \(httpNote)")
}
