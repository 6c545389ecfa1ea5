import SearchField
import Foundation
import Locking
import TypestormMetrics
import Synchronization

/// What the project's lock (`Locked`, a pthread mutex) costs against `Synchronization.Mutex` on
/// the critical sections the hot paths run: the live runner's recorder (one keystroke recorded),
/// the server's metrics (one response counted with its latency), the server's worker pool (one
/// job reserved, queued and taken) and an empty one (an integer incremented). Uncontended, as
/// these locks nearly always are.
///
/// Usage: LockBenchmark [--iterations N] [--runs R] [--only WORKLOAD] [--lock mutex|locked] [--json]
/// Run in release: `swift run -c release LockBenchmark`. Without `--lock`, both locks run side by
/// side and the ratio is printed. For instruction counts, run one workload and one lock under
/// `valgrind --tool=callgrind` at two iteration counts and divide the difference of the totals by
/// the difference of the counts (start-up cancels out); docs/reliability.md has the figures.

enum LockKind: String, CaseIterable { case mutex, locked }

struct Options {
    var iterations = 2_000_000
    var runs = 5
    var only: String?
    var lock: LockKind?
    var json = false

    @MainActor init(_ arguments: [String]) {
        var i = 0
        func usage() -> Never {
            FileHandle.standardError.write(Data("usage: LockBenchmark [--iterations N] [--runs R] [--only \(workloads.map(\.name).joined(separator: "|"))] [--lock mutex|locked] [--json]\n".utf8))
            exit(64)
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--iterations" where i + 1 < arguments.count: iterations = Int(arguments[i + 1]) ?? iterations; i += 1
            case "--runs" where i + 1 < arguments.count: runs = Int(arguments[i + 1]) ?? runs; i += 1
            case "--only" where i + 1 < arguments.count:
                only = arguments[i + 1]; i += 1
                if !workloads.contains(where: { $0.name == only }) { usage() }
            case "--lock" where i + 1 < arguments.count:
                guard let kind = LockKind(rawValue: arguments[i + 1]) else { usage() }
                lock = kind; i += 1
            case "--json": json = true
            default: usage()
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

// MARK: The critical sections, each written once over either lock.

/// The same `withLock` over both lock types, so that each workload's body is written once.
protocol BenchLock<Value>: AnyObject {
    associatedtype Value: Sendable
    func with<R>(_ body: (inout Value) -> R) -> R
}

final class MutexBox<Value: Sendable>: BenchLock {
    let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    @inline(__always) func with<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

final class LockedBox<Value: Sendable>: BenchLock {
    let locked: Locked<Value>
    init(_ value: Value) { locked = Locked(value) }
    @inline(__always) func with<R>(_ body: (inout Value) -> R) -> R { locked.withLock { body(&$0) } }
}

/// `LiveRunShared.record`: one keystroke into the run's recorder.
@inline(never)
func recorderWorkload(_ lock: some BenchLock<Recorder?>, iterations: Int, queries: [QueryIdentity]) -> Int {
    for i in 0..<iterations {
        let query = queries[i % queries.count]
        lock.with { recorder in
            guard recorder != nil else { return }
            recorder!.keystroke(query, typist: i & 255, at: Int64(i) &* 1_000)
        }
    }
    return lock.with { $0?.typistCount ?? 0 }
}

struct MetricsState {
    var responses: [String: [Int: Int]] = [:]
    var latency = Histogram(.latency)
}

/// `ServerMetrics.recordResponse`: one response counted by endpoint and status, with its latency.
@inline(never)
func serverMetricsWorkload(_ lock: some BenchLock<MetricsState>, iterations: Int) -> Int {
    for i in 0..<iterations {
        lock.with { s in
            s.responses["/search", default: [:]][200, default: 0] += 1
            s.latency.record(Int64(50_000 + (i & 1023) * 100))
        }
    }
    return lock.with { $0.responses["/search"]?[200] ?? 0 }
}

struct PoolState {
    var queue: [(@Sendable () -> Void)?] = []
    var head = 0
    var reserved = 0
    var running = 0
}

/// `WorkerPool`: a slot reserved, the job queued into it, taken by a worker, and marked done:
/// four critical sections per job, as the server's pool runs them.
@inline(never)
func workerPoolWorkload(_ lock: some BenchLock<PoolState>, iterations: Int) -> Int {
    let job: @Sendable () -> Void = {}
    var ran = 0
    for _ in 0..<iterations {
        let reserved = lock.with { s -> Bool in
            guard s.queue.count - s.head + s.reserved < 1024 else { return false }
            s.reserved += 1
            return true
        }
        guard reserved else { continue }
        lock.with { s in
            s.reserved -= 1
            s.queue.append(job)
        }
        let taken = lock.with { s -> (@Sendable () -> Void)? in
            guard s.head < s.queue.count else { return nil }
            let job = s.queue[s.head]
            s.queue[s.head] = nil
            s.head += 1
            if s.head >= 64, s.head * 2 >= s.queue.count {
                s.queue.removeFirst(s.head)
                s.head = 0
            }
            s.running += 1
            return job
        }
        taken?()
        lock.with { $0.running -= 1 }
        ran += 1
    }
    return ran
}

/// An empty critical section: the lock's own cost.
@inline(never)
func bareWorkload(_ lock: some BenchLock<Int>, iterations: Int) -> Int {
    for _ in 0..<iterations { lock.with { $0 &+= 1 } }
    return lock.with { $0 }
}

struct Workload {
    let name: String
    let run: (LockKind, Int) -> Int
}

let queries = (0..<64).map { QueryIdentity(text: String(repeating: "q", count: 1 + $0 % 12) + "\($0)") }

let workloads: [Workload] = [
    Workload(name: "bare") { kind, n in
        kind == .mutex ? bareWorkload(MutexBox(0), iterations: n) : bareWorkload(LockedBox(0), iterations: n)
    },
    Workload(name: "recorder") { kind, n in
        let recorder = Recorder(typists: 256, expectsBackend: true, settleIntervalNanos: 1_000_000_000)
        return kind == .mutex
            ? recorderWorkload(MutexBox<Recorder?>(recorder), iterations: n, queries: queries)
            : recorderWorkload(LockedBox<Recorder?>(recorder), iterations: n, queries: queries)
    },
    Workload(name: "server-metrics") { kind, n in
        kind == .mutex ? serverMetricsWorkload(MutexBox(MetricsState()), iterations: n) : serverMetricsWorkload(LockedBox(MetricsState()), iterations: n)
    },
    Workload(name: "worker-pool") { kind, n in
        kind == .mutex ? workerPoolWorkload(MutexBox(PoolState()), iterations: n) : workerPoolWorkload(LockedBox(PoolState()), iterations: n)
    },
]

// MARK: Main

let options = Options(Array(CommandLine.arguments.dropFirst()))
let selected = workloads.filter { options.only == nil || $0.name == options.only }
let kinds = options.lock.map { [$0] } ?? LockKind.allCases

/// Best of `runs` (the least disturbed by the other processes on the machine), in ns per operation.
func nanosPerOperation(_ workload: Workload, _ kind: LockKind) -> Double {
    var best = Double.infinity
    for _ in 0..<options.runs {
        let start = DispatchTime.now().uptimeNanoseconds
        blackHole(workload.run(kind, options.iterations))
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
        best = min(best, elapsed / Double(options.iterations))
    }
    return best
}

var rows: [[String: Any]] = []
for workload in selected {
    var row: [String: Any] = ["workload": workload.name]
    for kind in kinds { row["\(kind.rawValue)_ns"] = nanosPerOperation(workload, kind) }
    if let mutex = row["mutex_ns"] as? Double, let locked = row["locked_ns"] as? Double { row["ratio"] = locked / mutex }
    rows.append(row)
}

if options.json {
    let data = try! JSONSerialization.data(withJSONObject: ["iterations": options.iterations, "runs": options.runs, "workloads": rows], options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} else {
    print("workload          " + kinds.map { $0.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0) }.joined() + (kinds.count == 2 ? "locked/mutex" : ""))
    for row in rows {
        var line = (row["workload"] as! String).padding(toLength: 18, withPad: " ", startingAt: 0)
        for kind in kinds { line += String(format: "%.1f ns", row["\(kind.rawValue)_ns"] as! Double).padding(toLength: 12, withPad: " ", startingAt: 0) }
        if let ratio = row["ratio"] as? Double { line += String(format: "%.2f", ratio) }
        print(line)
    }
}
