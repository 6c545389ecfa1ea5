import Synchronization
import Dispatch
import Foundation
import Typists

/// Keystrokes generated per second per core, through `next()` (a TypingEvent whose text is a
/// `FieldText` view of the session's bytes, what runners consume) and through `nextRaw()` (bytes, no allocation), per language; then the same
/// on every core at once to show that generation scales (typists share no mutable state).
///
/// Usage: TypistBenchmark [--queries DIR] [--typists N] [--runs R] [--only LANG] [--long-sessions] [--json] [--digest]
/// (`--digest` prints a hash of every event instead of timing: the same for a build that
/// types the same keystrokes).
/// Run in release: `swift run -c release TypistBenchmark`.

struct Options {
    var queries = "Datasets/queries"
    var typists = 20_000
    var runs = 5
    var json = false
    var only: TypingLanguage?
    /// Sessions of up to 20 queries (follow-up rate 0.95), to separate per-session from per-key cost.
    var longSessions = false
    /// Print a hash of every event's time, key and text per language, and time nothing.
    var digest = false

    init(_ arguments: [String]) {
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--queries" where i + 1 < arguments.count: queries = arguments[i + 1]; i += 1
            case "--typists" where i + 1 < arguments.count: typists = Int(arguments[i + 1]) ?? typists; i += 1
            case "--runs" where i + 1 < arguments.count: runs = Int(arguments[i + 1]) ?? runs; i += 1
            case "--json": json = true
            case "--digest": digest = true
            case "--long-sessions": longSessions = true
            case "--only" where i + 1 < arguments.count: only = TypingLanguage(rawValue: arguments[i + 1]); i += 1
            default:
                FileHandle.standardError.write(Data("usage: TypistBenchmark [--queries DIR] [--typists N] [--runs R] [--only LANG] [--long-sessions] [--json] [--digest]\n".utf8))
                exit(64)
            }
            i += 1
        }
    }
}

/// Keeps results alive so the optimiser cannot drop the work.
@inline(never)
func blackHole(_ value: Int) {
    if value == 0x5EED_F00D { print("") }
}

struct Tally {
    var keystrokes = 0
    var events = 0
    /// Edit events whose text is longer than 15 UTF-8 bytes: Swift would store those Strings on
    /// the heap, so each costs one allocation where a consumer asks for `text.string` (not in
    /// `next()`, whose `FieldText` shares the session's buffer).
    var longTexts = 0
    var checksum = 0
}

func generateStrings(_ population: TypistPopulation, _ typists: Range<Int>) -> Tally {
    var tally = Tally()
    for index in typists {
        var session = population.session(forTypist: index)
        while let event = session.next() {
            tally.events += 1
            tally.checksum &+= Int(truncatingIfNeeded: event.at)
            if case let .edit(key, text) = event.action {
                tally.keystrokes += 1
                let bytes = text.utf8Count
                if bytes > 15 { tally.longTexts += 1 }
                tally.checksum &+= bytes &+ key.utf8.count
            }
        }
    }
    return tally
}

func generateRaw(_ population: TypistPopulation, _ typists: Range<Int>) -> Tally {
    var tally = Tally()
    for index in typists {
        var session = population.session(forTypist: index)
        while let event = session.nextRaw() {
            tally.events += 1
            tally.checksum &+= Int(truncatingIfNeeded: event.at)
            if event.kind == .edit {
                tally.keystrokes += 1
                tally.checksum &+= session.withFieldUTF8 { $0.count &+ Int($0.last ?? 0) } &+ Int(event.key)
            }
        }
    }
    return tally
}

/// FNV-1a over every event of `typists` through `next()`: time, kind, key name and text bytes.
func digest(_ population: TypistPopulation, _ typists: Range<Int>) -> (hash: UInt64, events: Int) {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    var events = 0
    func mix<S: Sequence<UInt8>>(_ bytes: S) {
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
    }
    func mix(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { mix($0) } }
    for index in typists {
        var session = population.session(forTypist: index)
        while let event = session.next() {
            events += 1
            mix(event.at)
            switch event.action {
            case let .edit(key, text): mix(1); mix(key.utf8); mix(0); mix(text.utf8); mix(0)
            case let .scope(scope): mix(2); mix((scope ?? "-").utf8); mix(0)
            case let .tokens(tokens): mix(3); for token in tokens { mix(token.utf8); mix(0) }
            case .submit: mix(4)
            case .end: mix(5)
            }
        }
    }
    return (hash, events)
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// CPU time of `clock` (the calling thread, or the whole process), in seconds.
func cpuSeconds(_ clock: clockid_t) -> Double {
    var spec = timespec()
    clock_gettime(clock, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Median and best of `runs` timed runs after one warm-up, in CPU seconds of this thread:
/// "per core" means work done while on a core, which wall time overstates on a shared machine.
func measure(runs: Int, _ body: () -> Tally) -> (median: Double, best: Double, wall: Double, tally: Tally) {
    var tally = body()
    blackHole(tally.checksum)
    var times: [Double] = []
    var walls: [Double] = []
    for _ in 0..<runs {
        let start = cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
        walls.append(seconds { tally = body() })
        times.append(cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - start)
        blackHole(tally.checksum)
    }
    times.sort()
    walls.sort()
    return (times[times.count / 2], times[0], walls[walls.count / 2], tally)
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let pool: QueryPool
do {
    pool = try QueryPool.load(directory: options.queries)
} catch {
    FileHandle.standardError.write(Data("TypistBenchmark: \(error) (run from the repository root or pass --queries DIR)\n".utf8))
    exit(66)
}

struct Row {
    var name: String
    var wallKeystrokesPerSecond: Double
    var keystrokesPerSecond: Double
    var bestKeystrokesPerSecond: Double
    var keystrokes: Int
    var longTextShare: Double
}

/// The cases run: each language alone, then the mixed population (`nil`).
let cases: [TypingLanguage?] = options.only.map { [$0] } ?? (TypingLanguage.allCases + [nil])

/// The population of one case: `language` alone, or the 60/20/20 mix for `nil`.
func makePopulation(typing language: TypingLanguage?) -> TypistPopulation {
    var config = TypistConfig()
    config.languageShares = language.map { [$0: 1] } ?? [.en: 0.6, .ko: 0.2, .zh: 0.2]
    if options.longSessions {
        config.followUpRate = 0.95
        config.maxQueriesPerSession = 20
    }
    return try! TypistPopulation(config: config, queries: pool, seed: 1)
}

if options.digest {
    for language in cases {
        let (hash, events) = digest(makePopulation(typing: language), 0..<options.typists)
        print(String(format: "%@ %016llx over %d events", language?.rawValue ?? "mixed", hash, events))
    }
    exit(0)
}

var rows: [Row] = []
var mixed: TypistPopulation?
for language in cases {
    let population = makePopulation(typing: language)
    if language == nil { mixed = population }
    let label = language?.rawValue ?? "mixed"
    let typists = 0..<options.typists
    let strings = measure(runs: options.runs) { generateStrings(population, typists) }
    rows.append(Row(name: "\(label) next()", wallKeystrokesPerSecond: Double(strings.tally.keystrokes) / strings.wall, keystrokesPerSecond: Double(strings.tally.keystrokes) / strings.median,
                    bestKeystrokesPerSecond: Double(strings.tally.keystrokes) / strings.best, keystrokes: strings.tally.keystrokes,
                    longTextShare: Double(strings.tally.longTexts) / Double(max(strings.tally.keystrokes, 1))))
    let raw = measure(runs: options.runs) { generateRaw(population, typists) }
    rows.append(Row(name: "\(label) nextRaw()", wallKeystrokesPerSecond: Double(raw.tally.keystrokes) / raw.wall, keystrokesPerSecond: Double(raw.tally.keystrokes) / raw.median,
                    bestKeystrokesPerSecond: Double(raw.tally.keystrokes) / raw.best, keystrokes: raw.tally.keystrokes, longTextShare: 0))
}

// Every core at once: each thread takes its own shard of typists.
let cores = ProcessInfo.processInfo.activeProcessorCount
let population = mixed ?? (try! TypistPopulation(config: TypistConfig(), queries: pool, seed: 1))
let perThread = options.typists
let totalKeys = Mutex(0)
let processStart = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
let parallelSeconds = seconds {
    DispatchQueue.concurrentPerform(iterations: cores) { core in
        let tally = generateStrings(population, (core * perThread)..<((core + 1) * perThread))
        blackHole(tally.checksum)
        totalKeys.withLock { $0 += tally.keystrokes }
    }
}
let parallelCPU = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - processStart
let parallelPerCore = Double(totalKeys.withLock { $0 }) / parallelCPU
let parallelWallPerCore = Double(totalKeys.withLock { $0 }) / parallelSeconds / Double(cores)

/// At least 15M keystrokes per CPU second through `next()` in every language (goal 20M); judged
/// only at a load average under 1.5, which is printed beside it.
let floor = 15_000_000.0
let goal = 20_000_000.0
let load: Double? = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)).flatMap { $0.split(separator: " ").first.flatMap { Double($0) } }
if options.json {
    var parts = rows.map { row in
        String(format: "{\"name\":\"%@\",\"keystrokes_per_cpu_second\":%.0f,\"best_keystrokes_per_cpu_second\":%.0f,\"keystrokes_per_wall_second\":%.0f,\"keystrokes\":%d,\"long_text_share\":%.4f}",
               row.name, row.keystrokesPerSecond, row.bestKeystrokesPerSecond, row.wallKeystrokesPerSecond, row.keystrokes, row.longTextShare)
    }
    parts.append(String(format: "{\"name\":\"mixed next() on %d threads, per core\",\"keystrokes_per_cpu_second\":%.0f,\"keystrokes_per_wall_second\":%.0f}", cores, parallelPerCore, parallelWallPerCore))
    let pass = rows.filter { $0.name.hasSuffix("next()") }.allSatisfy { $0.keystrokesPerSecond >= floor }
    print("{\"benchmark\":\"typists\",\"floor_keystrokes_per_second\":\(Int(floor)),\"goal_keystrokes_per_second\":\(Int(goal)),\"pass\":\(pass),\"load_average\":\(load.map { String($0) } ?? "null"),\"results\":[" + parts.joined(separator: ",") + "]}")
} else {
    print("Typist generation, \(options.typists) typists per run, median of \(options.runs) runs (floor \(Int(floor / 1e6))M keystrokes per CPU second through next())")
    print("case                 keys/CPU-s     best          keys/wall-s   keystrokes  texts > 15 B")
    for row in rows {
        let name = row.name.padding(toLength: 20, withPad: " ", startingAt: 0)
        print(String(format: "%@ %12.0f  %12.0f  %12.0f  %10d  %@", name, row.keystrokesPerSecond, row.bestKeystrokesPerSecond, row.wallKeystrokesPerSecond, row.keystrokes,
                     row.name.hasSuffix("next()") ? String(format: "%.1f %%", row.longTextShare * 100) : "none"))
    }
    print(String(format: "mixed next() on %d threads: %.0f keystrokes per CPU second, %.0f per wall second per core", cores, parallelPerCore, parallelWallPerCore))
    for row in rows where row.name.hasSuffix("next()") {
        print(String(format: "  [%@] %@: %.0f keystrokes per CPU second (floor %.0fM, goal %.0fM)", row.keystrokesPerSecond >= floor ? "met" : "NOT MET",
                     row.name, row.keystrokesPerSecond, floor / 1e6, goal / 1e6))
    }
    print(String(format: "load average %.2f%@", load ?? -1, (load ?? 0) < 1.5 ? "" : " (1.5 or more: the floor cannot be judged in this run)"))
}
