import Foundation
import Testing
import TypestormTesting

/// A field of yours in the whole command line: `run` over worker processes (the harness itself)
/// and `sweep` over a knob its factory reads, in virtual time, with the same numbers as its model.
@Suite(.timeLimit(.minutes(3)))
struct WholeToolTests {
    /// The repository's checkout (for the shipped scenario and catalog).
    static let checkout = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The default scenario with `strategies` and `runners`, written into a fresh directory.
    func scenario(strategies: [[String: Any]], runners: [[String: Any]] = [["kind": "virtual"]]) throws -> URL {
        let shipped = Self.checkout.appendingPathComponent("Datasets/scenarios/default.json")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: shipped)) as? [String: Any])
        root["strategies"] = strategies
        root["runners"] = runners
        root["thresholds"] = nil
        root["catalog"] = ["file": Self.checkout.appendingPathComponent("Datasets/catalogs/products-20k.tsv").path]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("own-field-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("own.json")
        try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]).write(to: file)
        return file
    }

    /// Runs the harness in the scenario's directory; returns exit code, standard output and error.
    func harness(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: Data, errors: String) {
        let process = Process()
        process.executableURL = try FieldMeasurement.locate("ExampleHarness")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, data, text)
    }

    @Test func runOverWorkerProcessesMeasuresYourFieldAsItsModel() throws {
        let file = try scenario(strategies: [["preset": "seed-000"], ["preset": "split-state-seed"],
                                             ["preset": "seed-000", "name": "seed-000-150ms", "debounce": "150ms"]])
        let (status, output, errors) = try harness(["run", file.path, "--json"], in: file.deletingLastPathComponent())
        #expect(status == 0, "\(errors)")
        let root = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        let groups = try #require(root["groups"] as? [[String: Any]])
        func counters(_ name: String) throws -> [String: Int64] {
            let group = try #require(groups.first { $0["name"] as? String == name }, "no group \(name)")
            return try #require(group["counters"] as? [String: Any]).compactMapValues { ($0 as? NSNumber)?.int64Value }
        }
        let real = try counters("seed-000"), model = try counters("split-state-seed"), faster = try counters("seed-000-150ms")
        for name in ["keystrokes", "settles", "requests_started", "stale_settles", "false_empties", "debounce_waits", "mismatch_ns"] {
            #expect(real[name] == model[name], "\(name)")
        }
        #expect(try #require(real["settles"]) > 0)
        // The scenario's debounce reaches the factory as the `debounce` parameter.
        #expect(try #require(faster["requests_started"]) > (real["requests_started"] ?? 0))
    }

    @Test func sweepVariesYourFieldsKnobInProcessAndOverWorkers() throws {
        let file = try scenario(strategies: [["preset": "seed-000"]])
        let arguments = ["sweep", file.path, "--strategies", "seed-000,split-state-seed", "--debounce", "100:200:100",
                         "--replicates", "1", "--typists", "60", "--json"]
        let here = try harness(arguments, in: file.deletingLastPathComponent())
        #expect(here.status == 0, "\(here.errors)")
        let spread = try harness(arguments + ["--workers", "2"], in: file.deletingLastPathComponent())
        #expect(spread.status == 0, "\(spread.errors)")
        #expect(here.output == spread.output)
        let root = try #require(try JSONSerialization.jsonObject(with: here.output) as? [String: Any])
        let points = try #require(root["points"] as? [[String: Any]])
        func objective(_ strategy: String, _ debounce: Int) -> Double? {
            let point = points.first { $0["strategy"] as? String == strategy && $0["debounceMs"] as? Int == debounce }
            return (point?["objective"] as? [String: Any])?["mean"] as? Double
        }
        for debounce in [100, 200] {
            #expect(objective("seed-000", debounce) != nil)
            #expect(objective("seed-000", debounce) == objective("split-state-seed", debounce))
        }
    }

    /// Live, on Swift's own executors and the real clock against the engine in the worker: the
    /// field keeps its 300 ms debounce and lands where its model does.
    @Test func aLiveRunMeasuresYourFieldOnTheRealClock() throws {
        var file = try scenario(strategies: [["preset": "seed-000"], ["preset": "split-state-seed"]], runners: [["kind": "in-process"]])
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        root["duration"] = "6s"
        var population = try #require(root["population"] as? [String: Any])
        population["typists"] = 30
        population["arrival"] = ["kind": "ramp", "over": "1s"]
        population["session"] = ["queries": 2, "maxLength": "5s"]
        root["population"] = population
        try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]).write(to: file)
        file = file.standardizedFileURL
        let (status, output, errors) = try harness(["run", file.path, "--json"], in: file.deletingLastPathComponent())
        #expect(status == 0, "\(errors)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        let groups = try #require(parsed["groups"] as? [[String: Any]])
        func group(_ name: String) throws -> (counters: [String: Int64], ttfrMedian: Double) {
            let group = try #require(groups.first { $0["name"] as? String == name }, "no group \(name)")
            let counters = try #require(group["counters"] as? [String: Any]).compactMapValues { ($0 as? NSNumber)?.int64Value }
            let histograms = try #require(group["histograms"] as? [String: Any])
            let ttfr = try #require((histograms["ttfr_ns"] as? [String: Any])?["p50"] as? Double, "no TTFR for \(name)")
            return (counters, ttfr)
        }
        let real = try group("seed-000"), model = try group("split-state-seed")
        #expect(try #require(real.counters["requests_started"]) > 0)
        #expect(real.counters["debounce_waits"] ?? 0 > 0)
        // Both wait 300 ms after the last key, then search the engine (well under a millisecond).
        #expect(abs(real.ttfrMedian - model.ttfrMedian) < 20_000_000)
        #expect(real.ttfrMedian >= 300_000_000)
        #expect((real.counters["stale_settles"] ?? 0) * 20 <= (real.counters["settles"] ?? 0))
    }

    /// One typist's keys, sleeps, searches, answers and screens in the `replay` format, from the
    /// same seeded run made again: the same text every time.
    @Test func aTypistsTimelineShowsWhatTheFieldDid() throws {
        let reports = try FieldMeasurement.simulate(harness: "ExampleHarness", strategies: ["seed-000"], typists: 50)
        let report = try #require(reports["seed-000"])
        let timeline = try report.timeline(ofTypist: 7)
        #expect(timeline.contains("⌨ "))
        #expect(timeline.contains("(debounce for "))
        #expect(timeline.contains("→ send #1 "))
        #expect(timeline.contains("⇠ response #"))
        #expect(timeline.contains("▣ results("))
        #expect(try report.timeline(ofTypist: 7) == timeline)
        #expect(try report.timeline(ofTypist: 8) != timeline)
    }

    /// What a failed `#expect(report.staleShare == 0)` prints: the share, the first search that
    /// ended on a wrong screen, and that search's timeline.
    @Test func aShareDescribesItsFirstOffendingSearchWithItsTimeline() throws {
        let reports = try FieldMeasurement.simulate(harness: "ExampleHarness", strategies: ["seed-000"], typists: 300)
        let share = try #require(reports["seed-000"]).staleShare
        #expect(share > 0)
        let description = share.testDescription
        #expect(description.hasPrefix(share.description + "\nfirst at typist "))
        #expect(description.contains("; its timeline:\n"))
        #expect(description.contains("⌨ "))
        #expect(description.contains("▣ "))
        // An absent share satisfies no comparison.
        let absent = MeasuredShare.absent
        #expect(!(absent <= 1) && !(absent >= 0) && !(absent == absent))
    }

    @Test func virtualAndLiveRunnersForYourFieldInOneScenarioAreRefusedBeforeAnyLoad() throws {
        let file = try scenario(strategies: [["preset": "seed-000"]], runners: [["kind": "virtual"], ["kind": "in-process"]])
        let (status, _, errors) = try harness(["run", file.path], in: file.deletingLastPathComponent())
        #expect(status == 65)
        #expect(errors.contains("$.runners[1]: $.strategies[0] is \"seed-000\", a field of yours: it runs in virtual time"))
    }
}
