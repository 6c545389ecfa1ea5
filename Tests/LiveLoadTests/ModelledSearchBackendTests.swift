import FieldRuntime
import Foundation
import TypestormMetrics
import TypestormSystem
import SearchField
import Locking
import Testing
@testable import LiveLoad

/// The model-driven live backend: the model's delays, queue and cancellation in real time.
///
/// Times are checked as lower bounds (a delay is never shorter than the model says) and against
/// generous upper bounds, since a loaded machine only makes things late.
@Suite("Modelled live backend", .timeLimit(.minutes(5)), .serialized)
struct ModelledSearchBackendTests {
    /// Completions as they arrive, with the monotonic time they came.
    final class Outcomes: Sendable {
        let entries = Locked<[UInt64: (LiveSearchOutcome, UInt64)]>([:])

        func record(_ id: UInt64) -> @Sendable (LiveSearchOutcome) -> Void {
            { outcome in self.entries.withLock { $0[id] = (outcome, MonotonicClock.now()) } }
        }

        func wait(for count: Int, seconds: Double = 20) async -> [UInt64: (LiveSearchOutcome, UInt64)] {
            let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
            while MonotonicClock.now() < deadline {
                let snapshot = entries.withLock { $0 }
                if snapshot.count >= count { return snapshot }
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
            return entries.withLock { $0 }
        }
    }

    static func request(_ id: UInt64, typist: Int = 0, text: String = "swe") -> LiveSearchRequest {
        LiveSearchRequest(typist: typist, id: id, query: QueryIdentity(text: text), local: false, intendedNanos: MonotonicClock.now())
    }

    static func model(rtt: Int64 = 20_000_000, service: Int64 = 40_000_000, workers: Int = 1,
                      cancellation: CancellationMode = .honoured(delay: 0)) -> BackendModel {
        BackendModel(roundTrip: .constant(rtt), workers: workers, typistsPerServer: 10, service: .distribution(.constant(service)),
                     slowTailProbability: 0, errorRate: 0, timeoutNanos: 10_000_000_000, cancellation: cancellation)
    }

    @Test func aRequestTakesTheRoundTripPlusItsService() async throws {
        let backend = ModelledSearchBackend(model: Self.model(), seed: 1, globalTypists: [0], engine: nil)
        defer { backend.shutdown() }
        let outcomes = Outcomes()
        let sent = MonotonicClock.now()
        _ = backend.start(Self.request(1), completion: outcomes.record(1))
        let done = await outcomes.wait(for: 1)
        let (outcome, at) = try #require(done[1])
        #expect(outcome.result == .results(count: BackendModel.resultCount(text: "swe", catalogItems: 1_000_000)))
        #expect(at - sent >= 60_000_000)
        #expect(at - sent < 2_000_000_000)
    }

    @Test func oneWorkerServesItsCellInOrder() async throws {
        let backend = ModelledSearchBackend(model: Self.model(), seed: 1, globalTypists: [0, 1], engine: nil)
        defer { backend.shutdown() }
        let outcomes = Outcomes()
        _ = backend.start(Self.request(1, typist: 0), completion: outcomes.record(1))
        _ = backend.start(Self.request(1, typist: 1), completion: outcomes.record(2))
        let done = await outcomes.wait(for: 2)
        let first = try #require(done[1]), second = try #require(done[2])
        // The second waited in the queue for the first's whole service.
        #expect(second.1 >= first.1 + 30_000_000)
        #expect((second.0.backendWork?.queueNanos ?? 0) >= 30_000_000)
    }

    @Test func anHonouredCancelDropsAQueuedRequestAndFreesNothingItDidNotTake() async throws {
        let backend = ModelledSearchBackend(model: Self.model(service: 100_000_000), seed: 1, globalTypists: [0, 1, 2], engine: nil)
        defer { backend.shutdown() }
        let outcomes = Outcomes()
        _ = backend.start(Self.request(1, typist: 0), completion: outcomes.record(1))
        let queued = backend.start(Self.request(1, typist: 1), completion: outcomes.record(2))
        _ = backend.start(Self.request(1, typist: 2), completion: outcomes.record(3))
        try? await Task.sleep(nanoseconds: 40_000_000)
        queued.cancel()
        let done = await outcomes.wait(for: 3)
        #expect(done[2]?.0.result == .failed(.cancelled))
        // The third started right after the first: the cancelled one never held the worker.
        let first = try #require(done[1]), third = try #require(done[3])
        #expect(third.1 < first.1 + 190_000_000)
        #expect(third.0.result == .results(count: BackendModel.resultCount(text: "swe", catalogItems: 1_000_000)))
    }

    @Test func drawsAreTheVirtualRunnersDraws() {
        let model = BackendModel(workers: 2, slowTailProbability: 0.2, errorRate: 0.1, transportErrorRate: 0.05)
        let a = model.draw(seed: 9, typist: 3, request: 7, queryLength: 4)
        let b = model.draw(seed: 9, typist: 3, request: 7, queryLength: 4)
        #expect(a == b)
        let others = (0..<200).map { model.draw(seed: 9, typist: 3, request: UInt64($0), queryLength: 4) }
        #expect(Set(others.map(\.serviceNanos)).count > 150)
        #expect(others.contains { $0.failure == .transport } && others.contains { $0.failure == .serverError })
    }

    @Test func theTimerRunsActionsInDeadlineOrder() async {
        let timer = DeadlineTimer(name: "test-timer")
        defer { timer.stop() }
        let order = Locked<[Int]>([])
        let now = MonotonicClock.now()
        for (index, offset) in [30, 10, 20, 10].enumerated() {
            timer.schedule(at: now + UInt64(offset) * 1_000_000) { order.withLock { $0.append(index) } }
        }
        let deadline = MonotonicClock.now() + 10_000_000_000
        while order.withLock({ $0.count }) < 4, MonotonicClock.now() < deadline { try? await Task.sleep(nanoseconds: 5_000_000) }
        #expect(order.withLock { $0 } == [1, 3, 2, 0])
        #expect(timer.lateness.totalCount == 4)
    }
}
