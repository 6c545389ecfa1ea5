import SearchField
import Testing
@testable import LiveLoad

@Suite("Live field queue's armed timers")
struct LiveFieldQueueTests {
    /// A cancelled timer comes due unasked-for; a held one is reported once, then forgotten.
    @Test func cancelledTimersAreDroppedHeldOnesReportedOnce() {
        let queue = LiveFieldQueue()
        queue.listTimers(fields: 3)
        queue.arm(7, field: 1)
        queue.arm(8, field: 1)
        queue.disarm(7, field: 1)
        #expect(!queue.takeArmed(7, field: 1))
        #expect(queue.takeArmed(8, field: 1))
        #expect(!queue.takeArmed(8, field: 1))
        // The other fields' lists are their own.
        queue.arm(8, field: 2)
        #expect(!queue.takeArmed(8, field: 0))
        #expect(queue.takeArmed(8, field: 2))
    }

    /// A place freed by a cancel or a firing takes the next timer.
    @Test func freedPlacesAreReused() {
        let queue = LiveFieldQueue()
        queue.listTimers(fields: 1)
        for id: TimerID in 1...100 {
            queue.arm(id, field: 0)
            if id > 1 { queue.disarm(id - 1, field: 0) }
        }
        #expect(queue.takeArmed(100, field: 0))
        #expect(!queue.takeArmed(99, field: 0))
        #expect(!queue.takeArmed(1, field: 0))
    }

    /// Past two timers at once, or a timer numbered 0, the list cannot tell: every timer of that
    /// field is reported, so the field itself decides (none is ever lost).
    @Test func aFieldTheListCannotHoldIsAlwaysAsked() {
        let queue = LiveFieldQueue()
        queue.listTimers(fields: 2)
        queue.arm(1, field: 0)
        queue.arm(2, field: 0)
        queue.arm(3, field: 0)
        queue.disarm(3, field: 0)
        #expect(queue.takeArmed(3, field: 0))
        #expect(queue.takeArmed(1, field: 0))
        #expect(queue.takeArmed(42, field: 0))
        queue.arm(0, field: 1)
        #expect(queue.takeArmed(0, field: 1))
    }
}
