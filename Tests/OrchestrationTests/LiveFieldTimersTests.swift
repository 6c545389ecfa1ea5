import FieldHarness
import LiveLoad
import Matching
import ProductCatalog
import Testing
import TypestormMetrics
import TypestormSystem
import Typists
@testable import Orchestration

@Suite("A live run's sleep wheel")
struct SleepWheelTests {
    private func sleeps(_ deadlines: [Int64]) -> [LiveFieldTimers.Sleep] {
        deadlines.map { LiveFieldTimers.Sleep(deadline: $0) }
    }

    private func due(_ wheel: inout SleepWheel, at now: Int64) -> [Int64] {
        var deadlines: [Int64] = []
        wheel.takeDue(now) { deadlines.append($0.deadline) }
        return deadlines.sorted()
    }

    @Test func takesWhatIsDueAndKeepsTheRest() {
        var wheel = SleepWheel()
        for sleep in sleeps([1_000_000, 300_000_000, 300_100_000, 299_999_999, 5_000]) { wheel.file(sleep) }
        #expect(wheel.earliest() == 5_000)
        #expect(due(&wheel, at: 1_000_000) == [5_000, 1_000_000])
        #expect(wheel.earliest() == 299_999_999)
        #expect(due(&wheel, at: 300_000_000) == [299_999_999, 300_000_000])
        #expect(due(&wheel, at: 300_099_999) == [])
        #expect(due(&wheel, at: 400_000_000) == [300_100_000])
        #expect(wheel.isEmpty)
        #expect(wheel.earliest() == nil)
    }

    @Test func aRemovedSleepNeverComesDue() {
        var wheel = SleepWheel()
        let filed = sleeps([10_000_000, 10_000_001, 10_000_002, 20_000_000])
        for sleep in filed { wheel.file(sleep) }
        wheel.remove(filed[0])
        wheel.remove(filed[3])
        #expect(wheel.earliest() == 10_000_001)
        #expect(due(&wheel, at: 30_000_000) == [10_000_001, 10_000_002])
        #expect(wheel.isEmpty)
    }

    /// Sleeps beyond the wheel's 4.3 s span wait in the far list and come due at their time,
    /// also after the wheel has been empty for a while.
    @Test func farSleepsComeDueInTime() {
        var wheel = SleepWheel()
        let filed = sleeps([1_000_000, 10_000_000_000, 60_000_000_000, 10_000_000_001])
        for sleep in filed { wheel.file(sleep) }
        wheel.remove(filed[3])
        #expect(due(&wheel, at: 2_000_000) == [1_000_000])
        #expect(wheel.earliest() == 10_000_000_000)
        #expect(due(&wheel, at: 9_999_999_999) == [])
        #expect(due(&wheel, at: 10_000_000_000) == [10_000_000_000])
        #expect(due(&wheel, at: 59_000_000_000) == [])
        #expect(wheel.earliest() == 60_000_000_000)
        #expect(due(&wheel, at: 61_000_000_000) == [60_000_000_000])
        #expect(wheel.isEmpty)
    }
}

@Suite("A live run's field timers", .timeLimit(.minutes(1)))
struct LiveFieldTimersTests {
    @Test func aSleepEndsNoEarlierThanItsDeadline() async throws {
        let start = MonotonicClock.now()
        let timers = LiveFieldTimers(startNanos: start, coalescingNanos: 200_000)
        defer { timers.close() }
        try await timers.sleep(until: 5_000_000)
        #expect(MonotonicClock.since(start) >= 5_000_000)
        // A deadline already passed ends the sleep at once.
        try await timers.sleep(until: 0)
    }

    @Test func cancellingTheTaskEndsItsSleepWithCancellationError() async throws {
        let timers = LiveFieldTimers(startNanos: MonotonicClock.now(), coalescingNanos: 200_000)
        defer { timers.close() }
        let sleeping = Task { try await timers.sleep(until: 3_600_000_000_000) }
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        // Cancelled before it sleeps: it does not sleep at all.
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await timers.sleep(until: 3_600_000_000_000)
        }
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
    }

    @Test func afterTheRunASleepEndsCancelled() async throws {
        let timers = LiveFieldTimers(startNanos: MonotonicClock.now(), coalescingNanos: 200_000)
        try await timers.sleep(until: 1_000_000)
        timers.close()
        await #expect(throws: CancellationError.self) { try await timers.sleep(until: 3_600_000_000_000) }
    }
}

/// Seed 000's debounce: a 300 ms sleep on `env.clock` restarted on every change, then the search;
/// a 1 ms sleep on `env.timerClock` before it shows the answer.
@MainActor
private final class DebouncingField: MeasuredField {
    let env: FieldEnvironment
    var task: Task<Void, Never>?

    init(_ env: FieldEnvironment) {
        self.env = env
        env.show(.idle)
    }

    func textChanged(_ text: String) {
        task?.cancel()
        task = Task {
            do {
                try await env.clock.sleep(for: .milliseconds(300))
            } catch {
                return
            }
            env.show(.loading)
            let count = (try? await env.search(text))?.count ?? 0
            try? await env.timerClock.sleep(for: .milliseconds(1))
            env.show(count > 0 ? .results(for: text, count: count) : .empty(for: text))
        }
    }
}

@Suite("Own field's sleeps under the live runner", .timeLimit(.minutes(1)))
struct LiveFieldSleepTests {
    /// Every typist types two keys 20 ms apart: the first key's wait is cancelled, the second's
    /// fires and searches once; each fired sleep (the wait and the timer) is one lateness sample.
    @Test func debounceWaitsAreCancelledAndFiredOncePerKey() async throws {
        let names = ["red sweater", "blue sweater", "sweatpants", "swiss knife", "swimsuit"]
        let catalog = try Catalog(names.enumerated().map { Product(id: "p\($0.offset)", name: $0.element, popularity: 10 - $0.offset) })
        let backend = EngineSearchBackend(engine: SearchEngine(catalog: catalog), reference: ReferenceFilter(catalog: catalog), workers: 2)
        defer { backend.shutdown() }
        let typists = 40
        let sessions = (0..<typists).map { LiveTypist(arrivalNanos: Int64($0) * 1_000_000, session: typedSession("sw", start: 0, endPause: 200_000_000)) }
        let definition = FieldDefinition(minimumLength: 1) { env in DebouncingField(env) }
        let result = try await LiveFieldRun.run(definition, name: "debouncing", typists: sessions, globalIndices: Array(0..<typists),
                                                backend: backend, parameters: FieldParameters(),
                                                options: LiveRunOptions(drainTimeoutNanos: 5_000_000_000), monitor: LiveRunMonitor())
        #expect(result.metrics.counter(MetricName.keystrokes) == Int64(2 * typists))
        #expect(result.metrics.counter(MetricName.debounceWaits) == Int64(2 * typists))
        #expect(result.metrics.counter(MetricName.taskChurn) == Int64(typists))
        #expect(result.metrics.counter(MetricName.requestsStarted) == Int64(typists))
        #expect(result.metrics.histograms[MetricName.timerLateness]?.totalCount == Int64(2 * typists))
        #expect(result.undrainedTypists == 0)
    }
}
