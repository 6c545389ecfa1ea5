#if !TYPESTORM_NO_JEMALLOC
import CJemalloc
#endif
import Foundation
import TypestormMetrics
import Orchestration
import SearchField
import Simulation

/// Simulated keystrokes per second per core, with the recorder on, and memory per simulated
/// typist. Floors for `split-state` with 10,000 typists, printed met or not met: at least
/// 1,500,000 keystrokes per CPU second (goal 3,000,000) and at most 2,000 bytes per typist; judge
/// them only at a load average under 1.5 (printed beside them).
///
/// The typists are `typestorm simulate`'s: the Typists module's population as the virtual
/// runner types it (`ScenarioTypists`), desktop keyboards, 4 queries each, English unless
/// `--language` says otherwise; generating their keystrokes is part of the measured time.
///
/// Usage: SimulatorBenchmark [--typists N] [--runs N] [--presets a,b|all] [--language en,ko,zh] [--json] [--metrics FILE]
/// `--metrics FILE` writes every preset's full metric set (JSON, sorted keys) of the last run, so
/// that two builds can be compared byte for byte after a change to the simulator's internals.
/// Single-threaded: the figure is per core. Build with `-c release`.

struct Options {
    var typists = 10_000
    var runs = 5
    var presets: [Preset] = [.splitState]
    var languages: [ScenarioLanguage] = [.en]
    var json = false
    var metricsPath: String?

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--typists": typists = Int(iterator.next() ?? "") ?? typists
            case "--runs": runs = max(1, Int(iterator.next() ?? "") ?? runs)
            case "--presets":
                let value = iterator.next() ?? ""
                presets = value == "all" ? Preset.allCases : value.split(separator: ",").compactMap { Preset(rawValue: String($0)) }
            case "--language":
                languages = (iterator.next() ?? "").split(separator: ",").compactMap { ScenarioLanguage(rawValue: String($0)) }
                if languages.isEmpty { languages = [.en] }
            case "--json": json = true
            case "--metrics": metricsPath = iterator.next()
            default:
                FileHandle.standardError.write(Data("unknown argument '\(argument)'\n".utf8))
                exit(64)
            }
        }
    }
}

/// CPU time of the calling thread, in seconds: on a shared machine the wall clock counts other
/// processes' time too, and "per core" means per second of one core's time.
func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Resident set size in bytes, from /proc/self/statm.
func residentBytes() -> Int64 {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int64(fields[1]) else { return 0 }
    return pages * Int64(sysconf(Int32(_SC_PAGESIZE)))
}

struct Result: Codable {
    var preset: String
    var typists: Int
    var keystrokes: Int64
    var events: Int64
    var bestSeconds: Double
    var medianSeconds: Double
    var keystrokesPerSecond: Double
    var medianKeystrokesPerSecond: Double
    /// Keystrokes per second of this thread's CPU time (median run): the per-core figure.
    var keystrokesPerCPUSecond: Double
    /// Queue events (typing, timers, network and server steps) per CPU second.
    var eventsPerCPUSecond: Double
    var bytesPerTypist: Int64
    /// Keeps the results alive so the optimizer cannot drop the work.
    var checksum: Int64
    var metrics: MetricSet? = nil
}

/// A floor this benchmark checks, with what was measured.
struct Floor: Codable {
    var name: String
    var target: String
    var measured: String
    var met: Bool
}

/// The 1-minute load average, from /proc/loadavg.
func loadAverage() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
    return text.split(separator: " ").first.flatMap { Double($0) }
}

let keystrokeFloor = 1_500_000.0
let keystrokeGoal = 3_000_000.0
let bytesPerTypistFloor: Int64 = 2_000

let options = Options(Array(CommandLine.arguments.dropFirst()))
let population = Population(
    typists: options.typists,
    mix: options.languages.map { Population.MixEntry(device: .desktop, language: $0, share: 1 / Double(options.languages.count)) },
    queriesPerSession: 4)
let typing: ScenarioTypists
do {
    typing = try ScenarioTypists(population: population, seed: 42, baseDirectory: FileManager.default.currentDirectoryPath)
} catch {
    FileHandle.standardError.write(Data("cannot load the query lists: \(error)\n".utf8))
    exit(66)
}

func measure(_ preset: Preset) -> Result {
    let scenario = SimulationPlan(typists: options.typists, seed: 42, strategies: [StrategySpec(preset: preset)],
                                      typing: VirtualWorkload.typing(population))
    func once(_ typists: Int) -> (seconds: Double, cpu: Double, recorder: Recorder, events: Int, rss: Int64) {
        let before = residentBytes()
        let clock = ContinuousClock()
        var recorder: Recorder?
        var events = 0
        var rss: Int64 = 0
        let cpuStart = threadCPUSeconds()
        let elapsed = clock.measure {
            let run = Simulation.runStrategyCounting(StrategySpec(preset: preset), scenario: scenario, typists: 0..<typists) { range in
                range.map(typing.session(forTypist:))
            }
            recorder = run.recorder
            events = run.events
            rss = residentBytes() - before
        }
        let cpu = threadCPUSeconds() - cpuStart
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (seconds, cpu, recorder!, events, rss)
    }
    _ = once(max(1, options.typists / 10))
    var times: [Double] = []
    var cpuTimes: [Double] = []
    var keystrokes: Int64 = 0
    var events: Int64 = 0
    var rss: Int64 = 0
    var checksum: Int64 = 0
    var lastMetrics: MetricSet?
    for _ in 0..<options.runs {
        let run = once(options.typists)
        times.append(run.seconds)
        cpuTimes.append(run.cpu)
        let metrics = run.recorder.metrics()
        lastMetrics = metrics
        keystrokes = metrics.counter(MetricName.keystrokes)
        events = Int64(run.events)
        rss = max(rss, run.rss)
        checksum &+= metrics.counter(MetricName.mismatchNs)
    }
    times.sort()
    cpuTimes.sort()
    let best = times[0], median = times[times.count / 2]
    let cpuMedian = cpuTimes[cpuTimes.count / 2]
    return Result(preset: preset.rawValue, typists: options.typists, keystrokes: keystrokes, events: events,
                  bestSeconds: best, medianSeconds: median, keystrokesPerSecond: Double(keystrokes) / best,
                  medianKeystrokesPerSecond: Double(keystrokes) / median,
                  keystrokesPerCPUSecond: Double(keystrokes) / cpuMedian,
                  eventsPerCPUSecond: Double(events) / cpuMedian, bytesPerTypist: rss / Int64(options.typists), checksum: checksum,
                  metrics: options.metricsPath == nil ? nil : lastMetrics)
}

var results: [Result] = []
for preset in options.presets {
    results.append(measure(preset))
}
if let path = options.metricsPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    let all = Dictionary(uniqueKeysWithValues: results.map { ($0.preset, $0.metrics!) })
    do {
        try encoder.encode(all).write(to: URL(fileURLWithPath: path))
    } catch {
        FileHandle.standardError.write(Data("--metrics \(path): cannot write the metrics: \(error.localizedDescription)\n".utf8))
        exit(73)
    }
    results = results.map { var result = $0; result.metrics = nil; return result }
}
var floors: [Floor] = []
if options.typists == 10_000, let split = results.first(where: { $0.preset == Preset.splitState.rawValue }) {
    floors.append(Floor(name: "split-state, 10,000 typists: keystrokes per CPU second", target: "≥ 1,500,000 (goal 3,000,000)",
                        measured: String(format: "%.0f", split.keystrokesPerCPUSecond), met: split.keystrokesPerCPUSecond >= keystrokeFloor))
    floors.append(Floor(name: "split-state, 10,000 typists: bytes per typist", target: "≤ 2,000",
                        measured: "\(split.bytesPerTypist)", met: split.bytesPerTypist <= bytesPerTypistFloor))
}
let load = loadAverage()
if options.json {
    struct Output: Codable {
        var results: [Result]
        var floors: [Floor]
        var loadAverage: Double?
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    print(String(decoding: try encoder.encode(Output(results: results, floors: floors, loadAverage: load)), as: UTF8.self))
} else {
    print("Simulator benchmark: \(options.typists) typists, \(options.runs) timed runs after a warm-up, one core, recorder on")
    print("preset".padding(toLength: 18, withPad: " ", startingAt: 0) + "keystrokes   best keys/s  median keys/s  keys/CPU-s  events/CPU-s  bytes/typist")
    for result in results {
        let row = result.preset.padding(toLength: 18, withPad: " ", startingAt: 0)
            + String(format: "%10lld  %12.0f  %13.0f  %10.0f  %12.0f  %12lld", result.keystrokes, result.keystrokesPerSecond,
                     result.medianKeystrokesPerSecond, result.keystrokesPerCPUSecond, result.eventsPerCPUSecond, result.bytesPerTypist)
        print(row)
    }
    for floor in floors { print("  [\(floor.met ? "met" : "NOT MET")] \(floor.name): \(floor.measured) (target \(floor.target))") }
    print(String(format: "load average %.2f%@", load ?? -1, (load ?? 0) < 1.5 ? "" : " (1.5 or more: the floors cannot be judged in this run)"))
}
