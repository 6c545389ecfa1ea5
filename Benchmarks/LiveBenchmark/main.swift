// The live in-process runner's two goals, measured side by side in one run:
//
// 1. Timer lateness with many concurrent typists: N realistic typists (Typists population,
//    shipped queries) against split-state and the real engine on the shipped catalog, for a
//    fixed wall time. Reports timer lateness (debounce and stalled timers), keystroke input lag,
//    keystrokes/s and requests/s, and the process CPU.
// 2. Stop latency after cancel: zero-hit full scans (total counted) on a generated catalog,
//    cancelled after a random delay; time from `cancel()` to the completion callback.
//
// 3. The same figures for a field of yours under the live runner: seed 000's field written as
//    async Swift (a task per change, a 300 ms sleep on `env.clock`, `env.search`), run by
//    `LiveFieldRun` on Swift's own executors and `ContinuousClock`, same typists and engine.
//    Then the same typists on the least a field can do (it takes each change and does nothing
//    with it), under the same harness: its CPU per keystroke is the harness's own share, and the
//    seed field's figure minus it is what the seed field's own code and its sleeps and searches
//    cost.
//
// Usage: LiveBenchmark [--typists 10000] [--seconds 20] [--items 1000000] [--cancels 200]
//                      [--workers 1] [--field-typists N (default --typists; 0: skip)]
//                      [--coalescing-us 200 (a field thread's shortest sleep)]
//                      [--minimal-field-typists N (default --field-typists; 0: skip)]
//                      [--field-threads N (default: one per core)] [--json]
import ProductCatalog
import Dispatch
import FieldHarness
import Orchestration
import Foundation
import LiveLoad
import Matching
import TypestormMetrics
import TypestormSystem
import SearchField
import Synchronization
import Typists

struct Options {
    var typists = 10_000
    var seconds = 20.0
    var items = 1_000_000
    var cancels = 200
    var workers = 1
    var fieldTypists: Int?
    var minimalFieldTypists: Int?
    var coalescingNanos = LiveRunOptions.defaultCoalescingNanos
    var fieldThreads: Int?
    var json = false
    var root = "."

    init(_ arguments: [String]) {
        var index = 0
        func value() -> String {
            index += 1
            guard index < arguments.count else { fail("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--typists": typists = Int(value()) ?? typists
            case "--seconds": seconds = Double(value()) ?? seconds
            case "--items": items = Int(value()) ?? items
            case "--cancels": cancels = Int(value()) ?? cancels
            case "--workers": workers = Int(value()) ?? workers
            case "--field-typists": fieldTypists = Int(value())
            case "--minimal-field-typists": minimalFieldTypists = Int(value())
            case "--field-threads": fieldThreads = Int(value()).map { max(1, $0) }
            case "--coalescing-us": coalescingNanos = (Int64(value()) ?? coalescingNanos / 1_000) * 1_000
            case "--root": root = value()
            case "--json": json = true
            case let other: fail("unknown option \(other)")
            }
            index += 1
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("LiveBenchmark: \(message)\n".utf8))
    exit(64)
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

func millis(_ nanos: Int64?) -> Double {
    guard let nanos else { return .nan }
    return (Double(nanos) / 1e4).rounded() / 100
}

let options = Options(Array(CommandLine.arguments.dropFirst()))

// MARK: 1. Timer lateness

let catalogPath = options.root + "/Datasets/catalogs/products-20k.tsv"
let shipped: Catalog
do {
    shipped = try CatalogLoader.load(path: catalogPath).catalog
} catch {
    fail("cannot load \(catalogPath): \(error)")
}
let pool: QueryPool
do {
    pool = try QueryPool.load(directory: options.root + "/Datasets/queries")
} catch {
    fail("cannot load the query lists: \(error)")
}
let population: TypistPopulation
do {
    population = try TypistPopulation(config: TypistConfig(), queries: pool, seed: 2026)
} catch {
    fail("bad typist configuration: \(error)")
}

log("timer lateness: \(options.typists) typists for \(options.seconds) s, split-state, engine on \(shipped.count) products, \(options.workers) search worker(s), \(options.fieldThreads.map(String.init) ?? "one per core") field threads, asleep at least \(options.coalescingNanos / 1_000) µs")
// One part per search: the backend's capacity is its worker threads, not a split of each scan.
let engine: SearchEngine
do { engine = try SearchEngine.build(catalog: shipped, tuning: SearchEngine.Tuning(parts: 1)) } catch { fail(error.description) }
let backend = EngineSearchBackend(engine: engine, reference: ReferenceFilter(catalog: shipped), workers: options.workers)
let typists = (0..<options.typists).map { index in
    // Arrivals spread over the first two seconds, so every typist is typing concurrently.
    LiveTypist(arrivalNanos: Int64(index) * 2_000_000_000 / Int64(max(1, options.typists)), session: population.session(forTypist: index))
}
var runOptions = LiveRunOptions(drainTimeoutNanos: 5_000_000_000)
runOptions.coalescingNanos = options.coalescingNanos
runOptions.fieldThreads = options.fieldThreads
let monitor = LiveRunMonitor()
let stopper = Task { [seconds = options.seconds] in
    try? await Task.sleep(for: .seconds(seconds))
    monitor.requestStop()
}
let cpuBefore = (try? ResourceUsage.current())?.cpuSeconds ?? 0
let liveStart = MonotonicClock.now()
let liveResult = await LiveRunner.run(typists: typists, strategy: .splitState, backend: backend,
                                      options: runOptions, monitor: monitor)
let liveWall = Double(MonotonicClock.since(liveStart)) / 1e9
let cpuAfter = (try? ResourceUsage.current())?.cpuSeconds ?? 0
let searchCPU = Double(backend.searchCPUNanos) / 1e9
stopper.cancel()
backend.shutdown()
let lateness = liveResult.metrics.histograms[MetricName.timerLateness] ?? Histogram()
let inputLag = liveResult.metrics.histograms[MetricName.inputLag] ?? Histogram()
let keystrokes = liveResult.metrics.counter(MetricName.keystrokes)
let requests = liveResult.metrics.counter(MetricName.requestsStarted)
/// The whole process's CPU from the start of the typing to the end of the drain (the runner's
/// own figure); what the run spent before (making 50,000 fields, each typist's first key) and
/// after (finishing the recorders) is per typist, not per keystroke, and reported apart.
let typingCPU = liveResult.typingProcessCPUNanos.map { Double($0) / 1e9 } ?? (cpuAfter - cpuBefore)
let setupCPU = cpuAfter - cpuBefore - typingCPU
/// CPU per keystroke outside the searches: the whole process's CPU while the typists type (and
/// the drain) minus the search threads', per keystroke (typists, fields, timers, recorder, the
/// backend's queueing and hand-offs).
let otherCPUPerKeystrokeMicros = keystrokes > 0 ? (typingCPU - searchCPU) / Double(keystrokes) * 1e6 : .nan
let inputLagP99 = inputLag.percentile(99)
/// How long requests took (from the moment the strategy asked to the field thread handling the
/// answer) and how long after that moment they left for the engine.
let requestLatency = liveResult.metrics.histograms[MetricName.requestLatency] ?? Histogram()
let scheduleLag = liveResult.metrics.histograms[MetricName.scheduleLag] ?? Histogram()
/// The field threads' own CPU per keystroke (their thread clocks): the loop, the fields, the
/// typists and the recorder, without the main thread, the timers of the runtime or the searches.
/// How long the field threads, ready to run, waited for a core (seconds, summed): lateness that
/// other threads' use of the cores caused, not the loop's own work.
let fieldThreadWaitSeconds = liveResult.fieldThreadRunQueueWaitNanos.map { Double($0) / 1e9 } ?? .nan
let fieldThreadMicrosPerKeystroke = liveResult.fieldThreadCPUNanos.map { keystrokes > 0 ? Double($0) / Double(keystrokes) / 1e3 : .nan } ?? .nan

// MARK: 3. A field of yours under the live runner

/// Seed 000's search field as an app would write it (without `@Observable`): trim, 2-character
/// minimum, a 300 ms sleep restarted on every change, a cancellation check, then the search.
@MainActor
final class SeedField: MeasuredField {
    let env: FieldEnvironment
    var task: Task<Void, Never>?
    var committedQuery = ""
    init(_ env: FieldEnvironment) {
        self.env = env
        env.show(.idle)
    }
    func textChanged(_ text: String) {
        task?.cancel()
        task = Task {
            let query = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard query.count >= 2 else { committedQuery = ""; env.show(.idle); return }
            try? await env.clock.sleep(for: .milliseconds(300))
            guard !Task.isCancelled else { return }
            guard query != committedQuery else { return }
            committedQuery = query
            env.show(.loading)
            let count = (try? await env.search(query))?.count ?? 0
            env.show(count > 0 ? .results(for: query, count: count) : .empty(for: query))
        }
    }
}

/// What the field run measured, for the report.
struct FieldFigures {
    var typists = 0, keystrokes: Int64 = 0, requests: Int64 = 0
    var wall = 0.0, cpu = 0.0, searchCPU = 0.0
    var lateness = Histogram(), inputLag = Histogram()
    var error: String?
    var otherCPUPerKeystrokeMicros: Double { keystrokes > 0 ? (cpu - searchCPU) / Double(keystrokes) * 1e6 : .nan }
}
/// The least a field can do: it says once what it shows and takes each change without doing
/// anything with it (no task, no sleep, no search). Under the same harness as `SeedField`, what
/// the run spends per keystroke outside the searches is the harness's own share: typing, handing
/// the keys to the main actor and recording them.
@MainActor
final class MinimalField: MeasuredField {
    init(_ env: FieldEnvironment) { env.show(.idle) }
    func textChanged(_ text: String) {}
}

/// Runs `definition`'s field for `count` typists under the live runner for `--seconds`, on its
/// own backend over the same engine.
func runField(_ definition: FieldDefinition, name: String, typists count: Int) async -> FieldFigures {
    var figures = FieldFigures()
    figures.typists = count
    let fieldBackend = EngineSearchBackend(engine: engine, reference: ReferenceFilter(catalog: shipped), workers: options.workers)
    let fieldTypists = (0..<count).map { index in
        LiveTypist(arrivalNanos: Int64(index) * 2_000_000_000 / Int64(max(1, count)), session: population.session(forTypist: index))
    }
    let fieldMonitor = LiveRunMonitor()
    let fieldStopper = Task { [seconds = options.seconds] in
        try? await Task.sleep(for: .seconds(seconds))
        fieldMonitor.requestStop()
    }
    let before = (try? ResourceUsage.current())?.cpuSeconds ?? 0
    let start = MonotonicClock.now()
    do {
        let result = try await LiveFieldRun.run(
            definition, name: name, typists: fieldTypists, globalIndices: Array(0..<count), backend: fieldBackend,
            parameters: FieldParameters(), options: runOptions, monitor: fieldMonitor)
        figures.wall = Double(MonotonicClock.since(start)) / 1e9
        figures.cpu = ((try? ResourceUsage.current())?.cpuSeconds ?? 0) - before
        figures.searchCPU = Double(fieldBackend.searchCPUNanos) / 1e9
        figures.lateness = result.metrics.histograms[MetricName.timerLateness] ?? Histogram()
        figures.inputLag = result.metrics.histograms[MetricName.inputLag] ?? Histogram()
        figures.keystrokes = result.metrics.counter(MetricName.keystrokes)
        figures.requests = result.metrics.counter(MetricName.requestsStarted)
    } catch {
        figures.error = "\(error)"
    }
    fieldStopper.cancel()
    fieldBackend.shutdown()
    return figures
}

var field = FieldFigures()
field.typists = options.fieldTypists ?? options.typists
if field.typists > 0 {
    log("own field under the live runner: \(field.typists) typists for \(options.seconds) s, seed 000's field, same engine")
    field = await runField(FieldDefinition(minimumLength: 2) { env in SeedField(env) }, name: "seed-000", typists: field.typists)
}
var minimal = FieldFigures()
minimal.typists = options.minimalFieldTypists ?? field.typists
if minimal.typists > 0 {
    log("the harness's share: \(minimal.typists) typists for \(options.seconds) s on a field that does nothing")
    minimal = await runField(FieldDefinition(minimumLength: 2) { env in MinimalField(env) }, name: "minimal", typists: minimal.typists)
}

// MARK: 2. Stop latency after cancel

log("stop latency: \(options.cancels) cancelled zero-hit scans on \(options.items) generated products")
let big = CatalogGenerator(seed: 7).makeCatalog(count: options.items)
let bigEngine: SearchEngine
do { bigEngine = try SearchEngine.build(catalog: big) } catch { fail(error.description) }
let scanBackend = EngineSearchBackend(engine: bigEngine, reference: ReferenceFilter(catalog: big), workers: 1, countsTotal: true, forcedPath: .scan)

/// What one cancelled search's completion reports back to the measuring loop.
final class Completion: Sendable {
    let finishedAt = Atomic<UInt64>(0)
    let cancelled = Atomic<Bool>(false)
    let done = DispatchSemaphore(value: 0)
}
var stopLatency = Histogram()
var completedBeforeCancel = 0
var generator = SeededGenerator(seed: 11)
for index in 0..<options.cancels {
    // A zero-hit query on the forced scan path, total counted: the scan reads every name.
    let query = QueryIdentity(text: "qz\(index % 10)xw", scope: nil, tokens: [])
    let completion = Completion()
    let ticket = scanBackend.start(LiveSearchRequest(typist: 0, id: RequestID(index + 1), query: query, local: false, intendedNanos: MonotonicClock.now())) { outcome in
        completion.finishedAt.store(MonotonicClock.now(), ordering: .releasing)
        completion.cancelled.store(outcome.result == .failed(.cancelled), ordering: .releasing)
        completion.done.signal()
    }
    let delayMicros = 200 + Int(generator.next() % 3_000)
    usleep(UInt32(delayMicros))
    let cancelAt = MonotonicClock.now()
    ticket.cancel()
    completion.done.wait()
    let finished = completion.finishedAt.load(ordering: .acquiring)
    if completion.cancelled.load(ordering: .acquiring) {
        stopLatency.record(Int64(finished > cancelAt ? finished - cancelAt : 0))
    } else {
        completedBeforeCancel += 1
    }
}
scanBackend.shutdown()

// MARK: Report

let latenessP99 = lateness.percentile(99)
let stopP99 = stopLatency.percentile(99)
var report: [String: Any] = [
    "timer_lateness": [
        "typists": options.typists,
        "seconds": liveWall,
        "keystrokes": keystrokes,
        "keystrokes_per_second": Double(keystrokes) / liveWall,
        "requests_per_second": Double(requests) / liveWall,
        "cpu_seconds": cpuAfter - cpuBefore,
        "typing_cpu_seconds": typingCPU,
        "setup_and_finish_cpu_seconds": setupCPU,
        "samples": lateness.totalCount,
        "p50_ms": millis(lateness.percentile(50)),
        "p99_ms": millis(latenessP99),
        "p999_ms": millis(lateness.percentile(99.9)),
        "max_ms": millis(lateness.isEmpty ? nil : lateness.max),
        "floor_p99_ms": 2.0,
        "floor_met": (latenessP99 ?? .max) <= 2_000_000,
        "undrained_typists": liveResult.undrainedTypists,
        "input_lag_p50_ms": millis(inputLag.percentile(50)),
        "input_lag_p99_ms": millis(inputLag.percentile(99)),
        "input_lag_max_ms": millis(inputLag.isEmpty ? nil : inputLag.max),
        "input_lag_floor_p99_ms": 2.0,
        "input_lag_floor_met": (inputLagP99 ?? .max) <= 2_000_000,
        "search_cpu_seconds": searchCPU,
        "request_latency_p50_ms": millis(requestLatency.percentile(50)),
        "request_latency_p99_ms": millis(requestLatency.percentile(99)),
        "schedule_lag_p50_ms": millis(scheduleLag.percentile(50)),
        "schedule_lag_p99_ms": millis(scheduleLag.percentile(99)),
        "other_cpu_us_per_keystroke": otherCPUPerKeystrokeMicros,
        "other_cpu_floor_us": 10.0,
        "other_cpu_floor_met": otherCPUPerKeystrokeMicros <= 10,
        "field_thread_cpu_us_per_keystroke": fieldThreadMicrosPerKeystroke,
        "field_thread_cpu_seconds": liveResult.fieldThreadCPUNanos.map { Double($0) / 1e9 } ?? Double.nan,
        "field_thread_runqueue_wait_seconds": fieldThreadWaitSeconds,
    ],
    "own_field": [
        "typists": field.typists,
        "error": field.error ?? "",
        "seconds": field.wall,
        "keystrokes": field.keystrokes,
        "requests": field.requests,
        "cpu_seconds": field.cpu,
        "search_cpu_seconds": field.searchCPU,
        "timer_lateness_p50_ms": millis(field.lateness.percentile(50)),
        "timer_lateness_p99_ms": millis(field.lateness.percentile(99)),
        "timer_lateness_floor_met": (field.lateness.percentile(99) ?? .max) <= 2_000_000,
        "input_lag_p99_ms": millis(field.inputLag.percentile(99)),
        "input_lag_floor_met": (field.inputLag.percentile(99) ?? .max) <= 2_000_000,
        "other_cpu_us_per_keystroke": field.otherCPUPerKeystrokeMicros,
        "other_cpu_floor_met": field.otherCPUPerKeystrokeMicros <= 10,
    ],
    "stop_latency": [
        "items": options.items,
        "cancelled": stopLatency.totalCount,
        "completed_before_cancel": completedBeforeCancel,
        "p50_ms": millis(stopLatency.percentile(50)),
        "p99_ms": millis(stopP99),
        "max_ms": millis(stopLatency.isEmpty ? nil : stopLatency.max),
        "floor_p99_ms": 1.0,
        "floor_met": (stopP99 ?? .max) <= 1_000_000,
    ],
]

// Not run (`--field-typists 0`): absent, not a row of empty figures.
if field.typists == 0 { report["own_field"] = nil }
if minimal.typists > 0 {
    report["minimal_field"] = [
        "typists": minimal.typists,
        "error": minimal.error ?? "",
        "seconds": minimal.wall,
        "keystrokes": minimal.keystrokes,
        "cpu_seconds": minimal.cpu,
        "input_lag_p99_ms": millis(minimal.inputLag.percentile(99)),
        "other_cpu_us_per_keystroke": minimal.otherCPUPerKeystrokeMicros,
        "own_field_minus_minimal_cpu_us_per_keystroke": field.typists == 0 ? Double.nan : field.otherCPUPerKeystrokeMicros - minimal.otherCPUPerKeystrokeMicros,
    ]
}

let ownFieldText = field.typists == 0 ? "  own field under the live runner: not run (--field-typists 0)" : """
      own field (seed 000 as async Swift) under the live runner, \(field.typists) typists\(field.error.map { ": failed: \($0)" } ?? ""), \
    \(String(format: "%.1f", field.wall)) s: \(field.keystrokes) keystrokes, \(field.requests) requests, \
    CPU \(String(format: "%.1f", field.cpu)) s (searches \(String(format: "%.1f", field.searchCPU)) s)
        timer lateness (its sleeps) p50 \(millis(field.lateness.percentile(50))) ms  p99 \(millis(field.lateness.percentile(99))) ms  \
    (floor p99 ≤ 2 ms: \((field.lateness.percentile(99) ?? .max) <= 2_000_000 ? "met" : "NOT met"))
        keystroke input lag: p50 \(millis(field.inputLag.percentile(50))) ms  p99 \(millis(field.inputLag.percentile(99))) ms  \
    (floor p99 ≤ 2 ms: \((field.inputLag.percentile(99) ?? .max) <= 2_000_000 ? "met" : "NOT met"))
        CPU per keystroke outside the searches: \(String(format: "%.1f", field.otherCPUPerKeystrokeMicros)) µs  \
    (floor ≤ 10 µs: \(field.otherCPUPerKeystrokeMicros <= 10 ? "met" : "NOT met"))
    """

/// The harness's own share, measured on the field that does nothing, and what the seed field's
/// code (its tasks, sleeps and searches, and their books) adds to it.
let minimalText = minimal.typists == 0 ? "  the harness's share: not run (--minimal-field-typists 0)" : """
      the harness's share (a field that does nothing, same harness), \(minimal.typists) typists\(minimal.error.map { ": failed: \($0)" } ?? ""), \
    \(String(format: "%.1f", minimal.wall)) s: \(minimal.keystrokes) keystrokes, input lag p99 \(millis(minimal.inputLag.percentile(99))) ms
        CPU per keystroke outside the searches: \(String(format: "%.1f", minimal.otherCPUPerKeystrokeMicros)) µs\
    \(field.typists == 0 ? "" : String(format: "; the seed field adds %.1f µs", field.otherCPUPerKeystrokeMicros - minimal.otherCPUPerKeystrokeMicros))
    """

let stopText = stopLatency.isEmpty
    ? "  stop latency after cancel, \(options.items) items: not measured (every search finished before its cancel; give more --items)"
    : """
      stop latency after cancel, \(options.items) items: \(stopLatency.totalCount) cancelled \
    (\(completedBeforeCancel) finished first)
        p50 \(millis(stopLatency.percentile(50))) ms  p99 \(millis(stopP99)) ms  \
    max \(millis(stopLatency.isEmpty ? nil : stopLatency.max)) ms  \
    (floor p99 ≤ 1 ms: \((stopP99 ?? .max) <= 1_000_000 ? "met" : "NOT met"))
    """

/// The report without the figures that were not measured (NaN: no samples), which JSON cannot
/// hold and which are absent rather than zero.
func measuredOnly(_ value: [String: Any]) -> [String: Any] {
    value.compactMapValues { element -> Any? in
        if let number = element as? Double, number.isNaN { return nil }
        if let nested = element as? [String: Any] { return measuredOnly(nested) }
        return element
    }
}

if options.json {
    let data = try JSONSerialization.data(withJSONObject: measuredOnly(report), options: [.sortedKeys, .prettyPrinted])
    print(String(decoding: data, as: UTF8.self))
} else {
    print("""
    Live in-process runner
      timer lateness, \(options.typists) typists, \(String(format: "%.1f", liveWall)) s: \
    \(keystrokes) keystrokes (\(Int(Double(keystrokes) / liveWall))/s), \(requests) requests, \
    CPU \(String(format: "%.1f", cpuAfter - cpuBefore)) s (searches \(String(format: "%.1f", searchCPU)) s; \
    making the fields and finishing the recorders \(String(format: "%.2f", setupCPU)) s)
        p50 \(millis(lateness.percentile(50))) ms  p99 \(millis(latenessP99)) ms  \
    p99.9 \(millis(lateness.percentile(99.9))) ms  max \(millis(lateness.isEmpty ? nil : lateness.max)) ms  \
    (floor p99 ≤ 2 ms: \((latenessP99 ?? .max) <= 2_000_000 ? "met" : "NOT met"))
        keystroke input lag: p50 \(millis(inputLag.percentile(50))) ms  p99 \(millis(inputLagP99)) ms  \
    max \(millis(inputLag.isEmpty ? nil : inputLag.max)) ms  (floor p99 ≤ 2 ms: \((inputLagP99 ?? .max) <= 2_000_000 ? "met" : "NOT met"))
        request latency: p50 \(millis(requestLatency.percentile(50))) ms  p99 \(millis(requestLatency.percentile(99))) ms; \
    schedule lag (asked to sent): p50 \(millis(scheduleLag.percentile(50))) ms  p99 \(millis(scheduleLag.percentile(99))) ms
        CPU per keystroke outside the searches: \(String(format: "%.1f", otherCPUPerKeystrokeMicros)) µs  \
    (floor ≤ 10 µs: \(otherCPUPerKeystrokeMicros <= 10 ? "met" : "NOT met")); \
    the field threads' own \(String(format: "%.1f", fieldThreadMicrosPerKeystroke)) µs
        field threads: CPU \(String(format: "%.1f", (liveResult.fieldThreadCPUNanos).map { Double($0) / 1e9 } ?? .nan)) s, \
    waited for a core while ready \(fieldThreadWaitSeconds.isNaN ? "(not measured)" : String(format: "%.1f s", fieldThreadWaitSeconds))
    \(ownFieldText)
    \(minimalText)
    \(stopText)
    """)
}
