import Foundation
import Testing
import TypestormTesting

/// Bad use of the harness ends the run with a message naming the problem, never a hang.
@Suite(.timeLimit(.minutes(2)))
struct MisuseTests {
    /// Runs `simulate` of one misused field; returns its exit code and standard error.
    func simulate(_ field: String) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = try FieldMeasurement.locate("ExampleHarness")
        process.arguments = ["simulate", "--typists", "20", "--strategies", field, "--json"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func aFieldThatNeverShowsIsNamed() throws {
        let (status, errors) = try simulate("never-shows")
        #expect(status == 70)
        #expect(errors.contains("the field never reported what it shows for 20 of 20 typists (typist 0, typist 1"))
    }

    @Test func aFieldThatThrowsIsNamed() throws {
        let (status, errors) = try simulate("throws")
        #expect(status == 70)
        #expect(errors.contains("field 'throws' threw while being made for typist 0: the adapter could not be built"))
    }

    @Test func workFromAForeignThreadIsNondeterminism() throws {
        let (status, errors) = try simulate("foreign-thread")
        #expect(status == 70)
        #expect(errors.contains("nondeterminism:"))
        #expect(errors.contains("enqueued from other threads"))
    }

    @Test func aContinuationThatIsNeverResumedIsNamed() throws {
        let (status, errors) = try simulate("never-resumes")
        #expect(status == 70)
        #expect(errors.contains("the field still shows a spinner at the end of the run for 20 of 20 typists (typist 0, typist 1"))
        #expect(errors.contains("awaits something that is never resumed"))
    }

    /// The naive first version leaves its spinner on when a search fails (`try await` throws
    /// past `isLoading = false`): that is its flaw, measured (as its model measures it), not a
    /// wait that never ends.
    @Test func aSpinnerLeftOnAfterAFailureIsMeasuredNotRefused() throws {
        let reports = try FieldMeasurement.simulate(harness: "ExampleHarness", strategies: ["naive-real", "naive"], typists: 100,
                                                    arguments: ["--error-rate", "0.2"])
        let real = try #require(reports["naive-real"])
        let model = try #require(reports["naive"])
        #expect(real.counter("errors_server") > 0)
        #expect(real.counters == model.counters)
    }

    @Test func aBlockingJobIsStoppedByTheWatchdog() throws {
        let (status, errors) = try simulate("blocks")
        #expect(status == 70)
        #expect(errors.contains("a job blocked the harness's only thread for 2 s of real time at virtual time"))
    }

    /// `Task.sleep` in virtual time is virtualised and counted (a note), and gives the same
    /// numbers as the injected clock, but for the waits: only sleeps on `env.clock` are recorded
    /// as debounce waits.
    @Test func realClockSleepsAreVirtualisedAndCounted() throws {
        let (status, errors) = try simulate("real-sleep")
        #expect(status == 0)
        #expect(errors.contains("sleeps on a real clock (ContinuousClock)"))
        #expect(errors.contains("were virtualised"))
        let reports = try FieldMeasurement.simulate(harness: "ExampleHarness", strategies: ["real-sleep", "seed-000"], typists: 100)
        let real = try #require(reports["real-sleep"])
        let injected = try #require(reports["seed-000"])
        let waits: Set = ["debounce_waits", "task_churn", "cancels_while_current", "cancel_signal_ns", "timer_lateness_ns"]
        #expect(real.counters.filter { !waits.contains($0.key) } == injected.counters.filter { !waits.contains($0.key) })
        #expect(real.histograms.filter { !waits.contains($0.key) } == injected.histograms.filter { !waits.contains($0.key) })
        #expect(real.counter("debounce_waits") == 0)
        #expect(injected.counter("debounce_waits") > 0)
    }
}
