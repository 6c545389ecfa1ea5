import Dispatch
import Foundation
import Glibc
import Testing
@testable import TypestormSystem

@Suite("Platform", .timeLimit(.minutes(5)))
struct PlatformTests {
    @Test func failedCallsCarryTheCallAndErrno() {
        #expect(throws: SystemError(call: "fcntl", errno: EBADF)) {
            _ = try Syscall.call("fcntl") { fcntl(-1, F_GETFD) }
        }
        #expect(SystemError(call: "recv", errno: ECONNRESET).description.contains("recv failed"))
    }

    @Test func nonBlockingReadOfAnEmptyPipeIsNil() throws {
        let pipe = try SystemPipe()
        defer { try? pipe.readEnd.close(); try? pipe.writeEnd.close() }
        let fd = pipe.readEnd.rawValue
        try pipe.readEnd.setNonBlocking()
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
        var byte: UInt8 = 0
        let result = try Syscall.nonBlocking("read") { read(fd, &byte, 1) }
        #expect(result == nil)
        try pipe.writeEnd.writeAll(Array("hello".utf8))
        #expect(try pipe.readEnd.read(maxCount: 16) == Array("hello".utf8))
        try pipe.writeEnd.close()
        #expect(try pipe.readEnd.read(maxCount: 16).isEmpty)
        #expect(pipe.writeEnd.rawValue == -1)
    }

    @Test func monotonicClockMovesForward() {
        let first = MonotonicClock.now()
        var spin = 0
        for i in 0..<100_000 { spin &+= i }
        let second = MonotonicClock.now()
        #expect(second > first || spin == 0)
        #expect(MonotonicClock.since(second + 1_000_000_000) == 0)
    }

    @Test func resourceUsageSeesCPUAndMemory() throws {
        let before = try ResourceUsage.current()
        var x: UInt64 = 1
        for i in 0..<20_000_000 { x = x &* 6364136223846793005 &+ UInt64(i) }
        let after = try ResourceUsage.current()
        #expect(x != 0)
        #expect(after.cpuSeconds > before.cpuSeconds)
        #expect(after.peakRSSBytes > 1_000_000)
    }

    #if TYPESTORM_NO_JEMALLOC
    @Test func withoutJemallocTheSystemAllocatorIsReported() {
        // A build for the sanitizers links no jemalloc: no heap statistics rather than wrong ones.
        #expect(Allocator.current == .system)
        #expect(AllocatorStats.current() == nil)
    }
    #else
    @Test func jemallocServesThisProcessAndCountsAllocations() throws {
        // The test binary links jemalloc through Platform, as every Typestorm executable does.
        #expect(Allocator.current == .jemalloc)
        let before = try #require(AllocatorStats.current())
        let block = UnsafeMutableRawPointer.allocate(byteCount: 64 << 20, alignment: 64)
        defer { block.deallocate() }
        let after = try #require(AllocatorStats.current())
        // Process-wide counters: other tests allocate and free concurrently, hence the margin.
        #expect(after.allocatedBytes >= before.allocatedBytes + (32 << 20))
        #expect(after.activeBytes >= after.allocatedBytes)
        #expect(after.residentBytes > 0)
    }
    #endif

    @Test func allocatorSelectionReadsTheEnvironment() throws {
        #expect(try Allocator.requested(environment: [:]) == .jemalloc)
        #expect(try Allocator.requested(environment: ["TYPESTORM_ALLOCATOR": "system"]) == .system)
        #expect(throws: Allocator.SelectionError.self) { try Allocator.requested(environment: ["TYPESTORM_ALLOCATOR": "tcmalloc"]) }
    }
}

@Suite("Process snapshot", .timeLimit(.minutes(5)))
struct ProcessSnapshotTests {
    @Test func combinesUsageAndHeapAndRoundTripsThroughJSON() throws {
        let snapshot = try ProcessSnapshot.current()
        #if TYPESTORM_NO_JEMALLOC
        #expect(snapshot.allocator == .system)
        #expect(snapshot.heap == nil)
        #else
        #expect(snapshot.allocator == .jemalloc)
        #expect(snapshot.heap?.allocatedBytes ?? 0 > 0)
        #endif
        let data = try JSONEncoder().encode(snapshot)
        #expect(try JSONDecoder().decode(ProcessSnapshot.self, from: data) == snapshot)
    }
}

@Suite("Termination signals", .timeLimit(.minutes(5)))
struct TerminationSignalsTests {
    @Test func sigtermReachesTheHandlerInsteadOfKillingTheProcess() throws {
        let received = DispatchSemaphore(value: 0)
        let signals = try TerminationSignals { number in
            if number == SIGTERM { received.signal() }
        }
        defer { signals.cancel() }
        kill(getpid(), SIGTERM)  // process-directed, as `kill` from a shell or a supervisor sends it
        #expect(received.wait(timeout: .now() + 5) == .success)
    }
}
