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

    /// A slower backend than the default (a 120 ms round trip, a tenth of the requests 20 times
    /// slower, cancellation ignored by the server): the stalled indicator shows, and cancelled
    /// searches still answer.
    static let slowBackend = ["--rtt", "120ms", "--slow-tail", "0.1", "--cancel", "ignored"]

    func expectAgreement(_ real: FieldReport, _ model: FieldReport, except: Set<String> = []) {
        for name in Self.agreed where !except.contains(name) {
            #expect(real.counter(name) == model.counter(name), "\(real.name) vs \(model.name): \(name)")
        }
        for name in Self.agreedHistograms where !except.contains(name) {
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
        #expect(real.staleShare.value != nil)
        #expect(real.staleShare.value == model.staleShare.value)
    }

    /// Runs `real` and `model` under 300 typists (with `arguments` for the backend) and returns
    /// both reports.
    func measure(_ real: String, _ model: String, arguments: [String] = []) throws -> (real: FieldReport, model: FieldReport) {
        let reports = try FieldMeasurement.simulate(harness: "ExampleHarness", strategies: [real, model], typists: 300, arguments: arguments)
        return (try #require(reports[real]), try #require(reports[model]))
    }

    /// The sequence-numbered guard (Algolia InstantSearch) against `sequence-guard`. A real field
    /// drops an old answer without telling anyone, so `responses_discarded` is the model's alone;
    /// the dropped answer still counts as wasted work in both.
    @Test func instantSearchMatchesSequenceGuard() throws {
        let (real, model) = try measure("instant-search", "sequence-guard")
        expectAgreement(real, model)
        #expect(real.counter("applies") == model.counter("applies"))
        #expect(real.counter("requests_started") == real.counter("keystrokes"))
        #expect(real.counter("requests_cancel_requested") == 0)
        #expect(real.counter("responses_discarded") == 0)
        #expect(model.counter("responses_discarded") > 0)
        #expect(real.counter("stale_settles") == 0)
    }

    /// Under a slow backend the stalled indicator is up while older answers come in. The model
    /// applies each of them under the indicator; the real view shows the indicator, not the
    /// results its model holds, so an answer replaced before the newest one arrives was never on
    /// screen: fewer applies, and more wasted requests (those answers matched the field's query,
    /// "shoe" for "shoe ", so the model counts them useful). Everything else agrees.
    @Test func instantSearchUnderASlowBackend() throws {
        let (real, model) = try measure("instant-search", "sequence-guard", arguments: Self.slowBackend)
        expectAgreement(real, model, except: ["wasted_requests"])
        #expect(try #require(real.histograms["timer_lateness_ns"]?["count"]) > 0)
        #expect(real.counter("applies") < model.counter("applies"))
        #expect(real.counter("wasted_requests") > model.counter("wasted_requests"))
    }

    /// Seed 003's search (scope, tokens, a 32-entry cache) against `split-state+cache`: a cache
    /// hit the field reports with `env.answeredFromCache` is the model's cached commit.
    @Test func catalogSearchMatchesSplitStateWithCache() throws {
        let (real, model) = try measure("seed-003", "split-state+cache")
        expectAgreement(real, model)
        for name in ["applies", "commits_cached", "commits", "submits", "responses_discarded"] {
            #expect(real.counter(name) == model.counter(name), "\(name)")
        }
        #expect(real.counter("commits_cached") > 0)
        #expect(try #require(real.histograms["timer_lateness_ns"]?["count"]) > 0)
    }

    /// Seed 002's draft that does not follow the scope and tokens against
    /// `split-state+text-keyed`: the same wrong final screens.
    @Test func draftSearchMatchesTextKeyedSplitState() throws {
        let (real, model) = try measure("seed-002", "split-state+text-keyed")
        expectAgreement(real, model)
        #expect(real.counter("applies") == model.counter("applies"))
        #expect(real.counter("stale_settles") > 0)
        #expect(real.counter("commits_cached") == 0)
    }

    /// Both split-state fields when cancelled searches still answer (the server ignores the
    /// cancellation): the real code drops such an answer after its `Task.isCancelled` check
    /// without telling anyone, so `responses_discarded` is the model's alone.
    @Test func splitStateFieldsUnderASlowBackend() throws {
        for (name, preset) in [("seed-003", "split-state+cache"), ("seed-002", "split-state+text-keyed")] {
            let (real, model) = try measure(name, preset, arguments: Self.slowBackend)
            expectAgreement(real, model)
            #expect(real.counter("applies") == model.counter("applies"), "\(name)")
            #expect(real.counter("responses_discarded") == 0)
            #expect(model.counter("responses_discarded") > 0)
        }
    }

    /// Both split-state fields when the server fails a twentieth of the requests: a failure is
    /// shown as an error, does not answer its query, and the next edit retries it; a retry
    /// cancelled while the earlier error is still on screen answers nothing.
    @Test func splitStateFieldsWithServerErrors() throws {
        for (name, preset) in [("seed-003", "split-state+cache"), ("seed-002", "split-state+text-keyed")] {
            let (real, model) = try measure(name, preset, arguments: ["--error-rate", "0.05", "--rtt", "120ms"])
            expectAgreement(real, model)
            #expect(real.counter("applies") == model.counter("applies"), "\(name)")
            #expect(real.counter("errors_server") > 0)
        }
    }

    /// Seed 001's `onChange` write-back around seed 000's model, against
    /// `split-state-seed+write-back`: the same write-backs and re-entries, and the same numbers
    /// but for one thing real code does differently. SwiftUI runs the `onChange` action one job
    /// after the change, before the task the change restarted has run a line, so the wait for
    /// the untrimmed text is cancelled before it starts; the model starts it and cancels it.
    /// Each such write-back is one debounce wait, one task churn and one cancel of a still
    /// current wait fewer (the untrimmed and the trimmed text ask for the same query).
    @Test func writeBackMatchesSplitStateSeedWithWriteBack() throws {
        let (real, model) = try measure("seed-001", "split-state-seed+write-back")
        let waits: Set = ["debounce_waits", "task_churn", "cancels_while_current"]
        expectAgreement(real, model, except: waits)
        for name in ["writeback_changes", "writeback_reentries", "writeback_runaways", "composition_breaks"] {
            #expect(real.counter(name) == model.counter(name), "\(name)")
        }
        #expect(real.counter("writeback_changes") > 0)
        let unstarted = model.counter("debounce_waits") - real.counter("debounce_waits")
        #expect(unstarted > 0)
        #expect(unstarted <= real.counter("writeback_changes"))
        #expect(model.counter("task_churn") - real.counter("task_churn") == unstarted)
        #expect(model.counter("cancels_while_current") - real.counter("cancels_while_current") == unstarted)
        #expect(real.counter("applies") <= model.counter("applies"))
    }

    @Test func sameSeedGivesTheSameBytes() throws {
        func run() throws -> Data {
            let process = Process()
            process.executableURL = try FieldMeasurement.locate("ExampleHarness")
            process.arguments = ["simulate", "--typists", "100", "--strategies", "seed-000,naive-real,instant-search,seed-003,seed-002,seed-001", "--json"]
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
