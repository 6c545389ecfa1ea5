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
        let file = try smallLive(try scenario(strategies: [["preset": "seed-000"], ["preset": "split-state-seed"]]), typists: 30,
                                 runners: [["kind": "in-process"]])
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

    /// The default scenario's population cut small for a live run: `typists` arriving over a
    /// second, two queries each, sessions of at most 5 s, a 6 s phase.
    func smallLive(_ file: URL, typists: Int, runners: [[String: Any]]) throws -> URL {
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        root["duration"] = "6s"
        root["runners"] = runners
        var population = try #require(root["population"] as? [String: Any])
        population["typists"] = typists
        population["arrival"] = ["kind": "ramp", "over": "1s"]
        population["session"] = ["queries": 2, "maxLength": "5s"]
        root["population"] = population
        try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]).write(to: file)
        return file.standardizedFileURL
    }

    /// `crosscheck` of a field of yours: its virtual side in a process of its own (the harness
    /// again, on the virtual executors), its live side in the harness on Swift's own executors
    /// against the model-driven backend, compared by the rules a preset is compared by. The
    /// field's virtual side is its model's, check for check.
    @Test(.timeLimit(.minutes(2))) func crosscheckComparesYourFieldInVirtualTimeAndLive() throws {
        let file = try smallLive(try scenario(strategies: [["preset": "seed-000"], ["preset": "split-state-seed"]]), typists: 20,
                                 runners: [["kind": "in-process"]])
        let (status, output, errors) = try harness(["crosscheck", file.path, "--json"], in: file.deletingLastPathComponent())
        #expect(status == 0 || status == 1, "\(errors)")
        #expect(errors.contains("crosscheck: seed-000: virtual time, in a process of its own"))
        let root = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "\(errors)")
        let strategies = try #require(root["strategies"] as? [[String: Any]])
        #expect(strategies.map { $0["strategy"] as? String } == ["seed-000", "split-state-seed"])
        #expect(strategies.map { $0["runner"] as? String } == ["in-process", "in-process"])
        func checks(_ index: Int) throws -> [String: [String: Any]] {
            let list = try #require(strategies[index]["checks"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: list.map { ($0["metric"] as? String ?? "", $0) })
        }
        let field = try checks(0), model = try checks(1)
        #expect(field.keys.sorted() == model.keys.sorted())
        for (metric, check) in field {
            #expect(check["virtual"] as? Double == model[metric]?["virtual"] as? Double, "\(metric)")
        }
        let keystrokes = try #require(field["keystrokes"])
        #expect(keystrokes["agrees"] as? Bool == true)
        #expect(try #require(keystrokes["virtual"] as? Double) > 0)
        let requests = try #require(field["requests"])
        #expect(requests["agrees"] as? Bool == true, "virtual \(requests["virtual"] ?? "–"), live \(requests["live"] ?? "–")")
        #expect(try #require(requests["live"] as? Double) > 0)
    }

    /// Live, a field's own facts are recorded as in virtual time: seed 001's write-backs (which
    /// follow from the keys alone, so the same count) and seed 003's answers from its cache.
    @Test(.timeLimit(.minutes(2))) func aLiveRunRecordsYourFieldsWriteBacksAndCacheAnswers() throws {
        let strategies: [[String: Any]] = [["preset": "seed-001"], ["preset": "seed-003"]]
        let live = try smallLive(try scenario(strategies: strategies), typists: 120, runners: [["kind": "in-process", "backend": "model"]])
        let virtual = try smallLive(try scenario(strategies: strategies), typists: 120, runners: [["kind": "virtual"]])
        func counters(_ file: URL) throws -> [String: [String: Int64]] {
            let (status, output, errors) = try harness(["run", file.path, "--json"], in: file.deletingLastPathComponent())
            #expect(status == 0, "\(errors)")
            let root = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "\(errors)")
            let groups = try #require(root["groups"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: try groups.map { group in
                (group["name"] as? String ?? "",
                 try #require(group["counters"] as? [String: Any]).compactMapValues { ($0 as? NSNumber)?.int64Value })
            })
        }
        let onTheClock = try counters(live), inVirtualTime = try counters(virtual)
        let writeBacks = try #require(onTheClock["seed-001"]?["writeback_changes"])
        #expect(writeBacks > 0)
        #expect(writeBacks == inVirtualTime["seed-001"]?["writeback_changes"])
        #expect(onTheClock["seed-001"]?["writeback_reentries"] == inVirtualTime["seed-001"]?["writeback_reentries"])
        let cached = try #require(onTheClock["seed-003"]?["commits_cached"])
        let cachedVirtually = try #require(inVirtualTime["seed-003"]?["commits_cached"])
        #expect(cached > 0)
        // Which keys come before a debounce ends can differ on the real clock: a count's tolerance.
        #expect(Double(abs(cached - cachedVirtually)) <= max(2, 3.29 * Double(cached + cachedVirtually).squareRoot()))
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
