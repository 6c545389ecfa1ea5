import Glibc
import Testing
@testable import TypestormSystem

@Suite("Clocks and CPU time", .timeLimit(.minutes(5)))
struct ClockTests {
    @Test func monotonicSleepLastsAtLeastItsInterval() {
        let start = MonotonicClock.now()
        MonotonicClock.sleep(2_000_000)
        #expect(MonotonicClock.since(start) >= 2_000_000)
        // Nothing to wait for: returns at once, never traps on a negative interval.
        MonotonicClock.sleep(0)
        MonotonicClock.sleep(-5)
    }

    @Test func wallClockIsTheTimeSince1970() {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let reference = Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
        // Within a minute of the kernel's own reading, and after 2020-01-01.
        #expect(abs(WallClock.now() - reference) < 60_000_000_000)
        #expect(WallClock.now() > 1_577_836_800_000_000_000)
    }

    @Test func threadAndProcessCPUTimeGrowWithWork() {
        let thread = CPUTime.thread(), process = CPUTime.process()
        var x: UInt64 = 1
        for i in 0..<20_000_000 { x = x &* 6364136223846793005 &+ UInt64(i) }
        #expect(x != 0)
        #expect(CPUTime.thread() > thread)
        #expect(CPUTime.process() > process)
        // The process's time includes this thread's.
        #expect(CPUTime.process() >= CPUTime.thread())
    }

    #if os(Linux)
    /// The kernel's count of a thread's wait for a core is read where the kernel has it, and
    /// never runs backwards; a kernel built without scheduler statistics has no such file, and
    /// then the figure is absent rather than 0.
    @Test func threadRunQueueWaitIsReadAndNeverFalls() throws {
        guard access("/proc/thread-self/schedstat", R_OK) == 0 else {
            #expect(CPUTime.threadRunQueueWait() == nil)
            return
        }
        let before = try #require(CPUTime.threadRunQueueWait())
        #expect(before >= 0)
        var x: UInt64 = 1
        for i in 0..<2_000_000 { x = x &* 6364136223846793005 &+ UInt64(i) }
        #expect(x != 0)
        let after = try #require(CPUTime.threadRunQueueWait())
        #expect(after >= before)
    }
    #endif

    @Test func reapedChildrenIsNeverNegative() {
        #expect(CPUTime.reapedChildren() >= 0)
    }

    @Test func pipeCapacityCanBeRaised() throws {
        let pipe = try SystemPipe()
        defer { try? pipe.readEnd.close(); try? pipe.writeEnd.close() }
        #expect(PipeIO.setCapacity(pipe.readEnd.rawValue, bytes: 1 << 20))
        #expect(fcntl(pipe.readEnd.rawValue, 1032 /* F_GETPIPE_SZ */) >= 1 << 20)
        #expect(!PipeIO.setCapacity(-1, bytes: 1 << 20))
    }
}
