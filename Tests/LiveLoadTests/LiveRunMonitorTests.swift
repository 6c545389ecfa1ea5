import ProductCatalog
import Matching
import TypestormMetrics
import SearchField
import Synchronization
import Testing
@testable import LiveLoad

/// The recorder's figures while a live run is open (`LiveRunMonitor.metricsSoFar()`), which the
/// driver's snapshots and `abort` thresholds read during a live phase.
@Suite("Live run monitor", .timeLimit(.minutes(5)))
struct LiveRunMonitorTests {
    @Test func latenciesAreReadableWhileTheRunIsOpenAndNotAfter() async throws {
        let engine = SearchEngine(catalog: LiveRunnerTests.catalog)
        let backend = EngineSearchBackend(engine: engine, reference: ReferenceFilter(catalog: LiveRunnerTests.catalog), workers: 1)
        defer { backend.shutdown() }
        let monitor = LiveRunMonitor()
        #expect(monitor.metricsSoFar() == nil, "nothing before the run starts")
        // Seven keys 30 ms apart, then the typist stays 3 s before leaving: the run is open
        // long after the first answers.
        let typists = [LiveTypist(arrivalNanos: 0, session: ScriptedSession(typing: "sweater", interval: 30_000_000, endAfter: 3_000_000_000))]
        let finished = RunEnded()
        let seen: MetricSet? = await withTaskGroup(of: MetricSet?.self) { group in
            group.addTask {
                _ = await LiveRunner.run(typists: typists, strategy: .naive, backend: backend, monitor: monitor)
                finished.value.store(true, ordering: .releasing)
                return nil
            }
            group.addTask {
                // Polls until a latency was recorded while the run is still open.
                while !finished.value.load(ordering: .acquiring) {
                    if let running = monitor.metricsSoFar(), running.histograms[MetricName.requestLatency]?.isEmpty == false,
                       !finished.value.load(ordering: .acquiring) {
                        return running
                    }
                    try? await Task.sleep(nanoseconds: 20_000_000)
                }
                return nil
            }
            var seen: MetricSet?
            for await result in group { if let result { seen = result } }
            return seen
        }
        let running = try #require(seen, "no request latency was readable while the run was open")
        #expect(running.histograms[MetricName.requestLatency]!.totalCount >= 1)
        #expect(running.counter(MetricName.requestsStarted) >= 1)
        #expect(monitor.metricsSoFar() == nil, "nothing once the run closed")
    }
}

/// Set once the run returned, shared by the test's tasks.
private final class RunEnded: Sendable {
    let value = Atomic<Bool>(false)
}
