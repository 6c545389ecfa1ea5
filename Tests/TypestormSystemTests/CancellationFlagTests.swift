import Dispatch
import Synchronization
import Testing
@testable import TypestormSystem

@Suite("Cancellation flag", .timeLimit(.minutes(5)))
struct CancellationFlagTests {
    @Test func startsUnsetAndKeepsTheFirstCancellationsTime() {
        let flag = CancellationFlag()
        #expect(!flag.isCancelled)
        #expect(flag.noticedNanos == nil)
        #expect(flag.cancel(at: 1_000))
        #expect(flag.isCancelled)
        #expect(flag.noticedNanos == 1_000)
        // Later calls change nothing and say so.
        #expect(!flag.cancel(at: 2_000))
        #expect(!flag.cancel())
        #expect(flag.noticedNanos == 1_000)
    }

    @Test func aCancellationAtTimeZeroStillCounts() {
        let flag = CancellationFlag()
        #expect(flag.cancel(at: 0))
        #expect(flag.isCancelled)
        #expect(flag.noticedNanos == 1)
    }

    @Test func defaultsToNowOnTheMonotonicClock() {
        let flag = CancellationFlag()
        let before = MonotonicClock.now()
        flag.cancel()
        let after = MonotonicClock.now()
        let noticed = flag.noticedNanos ?? 0
        #expect(noticed >= before && noticed <= after)
    }

    @Test func exactlyOneOfManyRacingThreadsWins() {
        let flag = CancellationFlag()
        let winners = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            if flag.cancel(at: UInt64(index + 10)) { winners.add(1, ordering: .relaxed) }
        }
        #expect(winners.load(ordering: .relaxed) == 1)
        #expect(flag.isCancelled)
    }
}
