import Foundation
import Testing
import TypestormTesting

/// Each field written as real async Swift against the preset that models it: the same typists
/// and backend in virtual time must give the same numbers.
@Suite(.timeLimit(.minutes(2)))
struct CrossCheckTests {
    /// The metrics a real field and its model must agree on: fan-out, staleness, false empties,
    /// wasted work and every time.
    static let agreed = [
        "keystrokes", "settles", "requests_started", "requests_completed", "requests_cancelled", "stale_settles",
        "never_fresh_settles", "false_empties", "wasted_requests", "mismatch_ns", "distinct_commits", "out_of_order_applies",
        "debounce_waits", "task_churn", "cancels_while_current",
    ]
    static let agreedHistograms = [
        "fanout_per_settle", "ttfr_ns", "request_latency_ns", "display_changes_per_settle", "blinks_per_settle", "cancel_signal_ns",
        "timer_lateness_ns",
    ]

    func expectAgreement(_ real: FieldReport, _ model: FieldReport) {
        for name in Self.agreed {
            #expect(real.counter(name) == model.counter(name), "\(real.name) vs \(model.name): \(name)")
        }
        for name in Self.agreedHistograms {
            #expect(real.histograms[name] == model.histograms[name], "\(real.name) vs \(model.name): \(name)")
        }
    }

    @Test func naiveFirstVersionMatchesTheNaivePreset() throws {
        let reports = try FieldMeasurement.simulate(harness: "ExampleHarness", strategies: ["naive-real", "naive"], typists: 300)
        let real = try #require(reports["naive-real"])
        let model = try #require(reports["naive"])
        expectAgreement(real, model)
        #expect(real.counter("applies") == model.counter("applies"))
        #expect(real.counter("settles") > 0)
    }

    /// Where they differ, and why: a real field's screen shows an answer only when the view
    /// changes, so an answer written under a spinner and replaced before the spinner goes away
    /// is never applied (the model applies it when it arrives); nothing else moves.
    @Test func seedModelMatchesSplitStateSeed() throws {
        let reports = try FieldMeasurement.simulate(harness: "ExampleHarness", strategies: ["seed-000", "split-state-seed"], typists: 300)
        let real = try #require(reports["seed-000"])
        let model = try #require(reports["split-state-seed"])
        expectAgreement(real, model)
        #expect(real.counter("debounce_waits") > 0)
        #expect(real.counter("applies") <= model.counter("applies"))
        #expect(try #require(real.staleShare) == (try #require(model.staleShare)))
    }

    @Test func sameSeedGivesTheSameBytes() throws {
        func run() throws -> Data {
            let process = Process()
            process.executableURL = try FieldMeasurement.locate("ExampleHarness")
            process.arguments = ["simulate", "--typists", "100", "--strategies", "seed-000,naive-real", "--json"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            return data
        }
        let first = try run()
        #expect(!first.isEmpty)
        #expect(try run() == first)
    }
}
