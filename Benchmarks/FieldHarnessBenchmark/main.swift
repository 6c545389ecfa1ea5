// Seed 000's field as real async Swift (`@Observable @MainActor`, trim, 2-character minimum,
// 300 ms debounce restarted on every change, `isCancelled` guard, injected clock) under a
// population of typists in virtual time: keystrokes per CPU second and memory per typist.
//
// usage: FieldHarnessBenchmark [typists] [repeats] [--field seed|minimal|null|task|plain]   (release build; run from the repository root)
import FieldHarness
import Foundation
import Observation
import Orchestration
import SearchField
import Simulation
import TypestormMetrics
import Typists

installVirtualExecutors()  // before any task exists

/// The floor the harness must keep, and the goal.
let floor = 250_000.0
let goal = 1_000_000.0

@Observable @MainActor
final class SeedModel {
    var searchText = "" { didSet { if searchText != oldValue { restart() } } }
    private(set) var committedQuery = ""
    private(set) var count: Int?
    private(set) var isLoading = false
    @ObservationIgnored private var task: Task<Void, Never>?
    @ObservationIgnored let env: FieldEnvironment

    init(_ env: FieldEnvironment) { self.env = env }

    func restart() {
        task?.cancel()
        let text = searchText
        task = Task {
            let query = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard query.count >= 2 else { committedQuery = ""; count = nil; return }
            try? await env.clock.sleep(for: .milliseconds(300))
            guard !Task.isCancelled else { return }
            guard query != committedQuery else { return }
            committedQuery = query
            isLoading = true
            count = (try? await env.search(query))?.count ?? 0
            isLoading = false
        }
    }
}

@MainActor
final class SeedField: MeasuredField {
    let model: SeedModel
    init(_ env: FieldEnvironment) {
        let model = SeedModel(env)
        self.model = model
        env.track {
            if model.isLoading { return .loading }
            if model.committedQuery.isEmpty { return .idle }
            guard let count = model.count, count > 0 else { return .empty(for: model.committedQuery) }
            return .results(for: model.committedQuery, count: count)
        }
    }
    func textChanged(_ text: String) { model.searchText = text }
}

/// The smallest seed-000 field: an `@Observable` model whose screen reads one property (its last
/// answer), trimmed, 2-character minimum, 300 ms debounce, `isCancelled` guards before and after
/// the search. Against the seed field it shows what a model with more observed properties costs.
@Observable @MainActor
final class MinimalModel {
    var searchText = "" { didSet { restart() } }
    var answer: SearchAnswer?
    @ObservationIgnored private var task: Task<Void, Never>?
    @ObservationIgnored let env: FieldEnvironment

    init(_ env: FieldEnvironment) { self.env = env }

    func restart() {
        task?.cancel()
        task = Task {
            let query = searchText.trimmingCharacters(in: .whitespaces)
            guard query.count >= 2 else { answer = nil; return }
            try? await env.clock.sleep(for: .milliseconds(300))
            guard !Task.isCancelled else { return }
            let found = try? await env.search(query)
            guard !Task.isCancelled else { return }
            answer = found
        }
    }
}

@MainActor
final class MinimalField: MeasuredField {
    let model: MinimalModel
    init(_ env: FieldEnvironment) {
        let model = MinimalModel(env)
        self.model = model
        env.track {
            guard let answer = model.answer else { return .idle }
            guard let count = answer.count, count > 0 else { return .empty(answer.query) }
            return .results(answer.query, count: count)
        }
    }
    func textChanged(_ text: String) { model.searchText = text }
}

/// What the harness alone costs: a field that shows idle and does nothing.
@MainActor
final class NullField: MeasuredField {
    init(_ env: FieldEnvironment) { env.show(.idle) }
    func textChanged(_ text: String) {}
}

/// The cost of a task per keystroke: a field that starts one (and cancels the last) and does
/// nothing in it.
@MainActor
final class TaskField: MeasuredField {
    var task: Task<Void, Never>?
    init(_ env: FieldEnvironment) { env.show(.idle) }
    func textChanged(_ text: String) {
        task?.cancel()
        task = Task { _ = text.utf8.count }
    }
}

/// Seed 000's task, sleep and search without an `@Observable` model: the cost of Observation is
/// the difference to the seed field.
@MainActor
final class PlainSeedField: MeasuredField {
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

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func residentBytes() -> Int64 {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int64(fields[1]) else { return 0 }
    return pages * Int64(sysconf(Int32(_SC_PAGESIZE)))
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let typists = arguments.first ?? 1000
let repeats = arguments.dropFirst().first ?? 5
/// `--field minimal|null|task|plain` measures a lighter field instead (where the time goes).
let variant = CommandLine.arguments.firstIndex(of: "--field").flatMap { CommandLine.arguments.dropFirst($0 + 1).first } ?? "seed"

runVirtualMain {
    let population = Population(typists: typists, mix: [Population.MixEntry(device: .desktop, language: .en, share: 1)],
                                queriesPerSession: 4)
    let typing: ScenarioTypists
    do {
        typing = try ScenarioTypists(population: population, seed: 42, baseDirectory: FileManager.default.currentDirectoryPath)
    } catch {
        FileHandle.standardError.write(Data("cannot load the query lists (run from the repository root): \(error)\n".utf8))
        return 66
    }
    let field = FieldDefinition(minimumLength: 2) { env -> any MeasuredField in
        switch variant {
        case "null": NullField(env)
        case "task": TaskField(env)
        case "plain": PlainSeedField(env)
        case "minimal": MinimalField(env)
        default: SeedField(env)
        }
    }
    var rates: [Double] = []
    var bytesPerTypist: Int64 = 0
    var keystrokes: Int64 = 0
    for round in 0...repeats {
        let sessions = (0..<typists).map(typing.session(forTypist:))
        let before = residentBytes()
        let start = cpuSeconds()
        let recorder: Recorder
        do {
            recorder = try await VirtualFieldRunner.run(field, name: "seed-000", typists: 0..<typists, sessions: sessions,
                                                        backend: ScenarioBackend().model, seed: 42)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 70
        }
        let cpu = cpuSeconds() - start
        keystrokes = recorder.metrics().counters[MetricName.keystrokes] ?? 0
        if round > 0 {  // round 0 warms up
            rates.append(Double(keystrokes) / cpu)
            bytesPerTypist = max(bytesPerTypist, (residentBytes() - before) / Int64(typists))
        }
    }
    rates.sort()
    let median = rates[rates.count / 2]
    print("\(variant == "seed" ? "seed-000" : variant) field (real async Swift) in virtual time: \(typists) typists, \(keystrokes) keystrokes per run, \(repeats) runs")
    print(String(format: "keystrokes per CPU second: %.0f (median; min %.0f, max %.0f)", median, rates.first!, rates.last!))
    print("memory per typist: \(bytesPerTypist) bytes (resident growth during a run)")
    print(String(format: "floor %.0f: %@; goal %.0f: %@", floor, median >= floor ? "met" : "NOT MET", goal, median >= goal ? "met" : "not met"))
    return median >= floor ? 0 : 1
}
