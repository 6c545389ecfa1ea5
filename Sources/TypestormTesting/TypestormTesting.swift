// Support for a user's own tests: measuring a search field from Swift Testing (docs/own-field.md).
@_exported import Typestorm
import Foundation
import Testing

/// The metrics of one strategy of a `simulate --json` run, by the recorder's names
/// (docs/metrics.md).
public struct FieldReport: Sendable {
    /// The strategy's name (a field's or a preset's).
    public var name: String
    /// The recorder's counters by their metric names.
    public var counters: [String: Int64]
    /// Each histogram's `count`, `mean`, `p50`, `p90`, `p99`, `p999`, `max` (absent: no samples).
    public var histograms: [String: [String: Double]]
    /// Derived ratios; a ratio that is undefined is absent.
    public var derived: [String: Double]
    /// The first example of each flaw the run saw, by kind (`older_answer`, `out_of_order`,
    /// `never_fresh`): the typist, when, and the queries shown and typed.
    public var examples: [String: FlawExample] = [:]
    /// How the run was made (harness and command line), to replay one typist of it.
    var invocation: (harness: URL, arguments: [String])?

    /// Share of settles that ended on a wrong screen (`stale_settles / settles`); when an
    /// expectation on it fails, it shows the first such search and its timeline.
    public var staleShare: MeasuredShare {
        let example = examples[FlawKind.olderAnswer.rawValue] ?? examples[FlawKind.neverFresh.rawValue]
        return MeasuredShare(ratio("stale_settles", "settles"), evidence: example.map { Evidence(report: self, example: $0) })
    }
    /// False empties ("no results" for a query that was never answered so) per settle.
    /// Absent when answers came without a result count (an empty screen cannot be told then).
    public var falseEmptiesPerSettle: Double? { counters["false_empties"] == nil ? nil : ratio("false_empties", "settles") }
    /// Requests per burst of typing (fan-out), as a histogram: `requestsPerSearch.p99`.
    public var requestsPerSearch: Quantiles { Quantiles(histograms["fanout_per_settle"] ?? [:]) }

    /// Counter `name`; 0 when the recorder never counted it.
    public func counter(_ name: String) -> Int64 { counters[name] ?? 0 }

    /// What typist `typist` did in this field and what the field did back, step by step, in the
    /// `replay` command's format (keys, sleeps, searches, answers, screens), from the same run
    /// made again with the same seed: the way to see which keystroke, which request and which
    /// late answer made a number. For a field of yours only (presets: `typestorm replay`).
    public func timeline(ofTypist typist: Int) throws -> String {
        guard let invocation else { throw MeasurementError(description: "this report was not made by FieldMeasurement.simulate") }
        // The harness prints it in text mode, after the table, as `replay` does.
        let arguments = invocation.arguments.filter { $0 != "--json" } + ["--timeline", "\(typist)"]
        let text = String(decoding: try FieldMeasurement.execute(invocation.harness, arguments), as: UTF8.self)
        let header = "Timeline of typist \(typist) in \(name):\n"
        guard let start = text.range(of: header) else {
            throw MeasurementError(description: "the harness printed no timeline for '\(name)' (is it a field of yours?)")
        }
        let rest = text[start.upperBound...]
        return String(rest[..<(rest.range(of: "\nTimeline of typist ")?.lowerBound ?? rest.endIndex)])
    }

    /// The timeline of the search around `example` (5 s before its time to 2 s after).
    func timeline(around example: FlawExample) throws -> String {
        guard let invocation else { throw MeasurementError(description: "this report was not made by FieldMeasurement.simulate") }
        let at = String(format: "%.3f", Double(example.timeNs) / 1e6)
        let arguments = invocation.arguments.filter { $0 != "--json" } + ["--timeline", "\(example.typist)@\(at)"]
        let text = String(decoding: try FieldMeasurement.execute(invocation.harness, arguments), as: UTF8.self)
        guard let start = text.range(of: "Timeline of typist \(example.typist) in \(name):\n") else {
            throw MeasurementError(description: "the harness printed no timeline for '\(name)' (is it a field of yours?)")
        }
        let rest = text[start.upperBound...]
        return String(rest[..<(rest.range(of: "\nTimeline of typist ")?.lowerBound ?? rest.endIndex)])
    }

    func ratio(_ numerator: String, _ denominator: String) -> Double? {
        guard let total = counters[denominator], total > 0 else { return nil }
        return Double(counters[numerator] ?? 0) / Double(total)
    }

    /// A histogram's summary.
    public struct Quantiles: Sendable {
        /// The summary's figures by name (`count`, `mean`, `p50`, …).
        public var values: [String: Double]
        init(_ values: [String: Double]) { self.values = values }
        /// How many samples the histogram holds (0: none).
        public var count: Double { values["count"] ?? 0 }
        /// The median; nil without samples.
        public var p50: Double? { values["p50"] }
        /// The 90th percentile; nil without samples.
        public var p90: Double? { values["p90"] }
        /// The 99th percentile; nil without samples.
        public var p99: Double? { values["p99"] }
        /// The largest sample; nil without samples.
        public var max: Double? { values["max"] }
    }
}

/// A share a run measured (0…1), or absent when there was nothing to measure it on. Compare it
/// with plain numbers (`#expect(report.staleShare == 0)`, `#expect(report.staleShare <= 0.01)`);
/// an absent share satisfies no comparison (it is never a credit). When an expectation on it
/// fails, Swift Testing shows its description: the value, the first offending search (typist,
/// time, what was shown and what was typed) and that search's timeline in the `replay` format.
public struct MeasuredShare: Sendable, Comparable, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral,
    CustomStringConvertible, CustomTestStringConvertible {
    /// The share, or nil when it could not be measured.
    public var value: Double?
    let evidence: Evidence?

    init(_ value: Double?, evidence: Evidence? = nil) {
        self.value = value
        self.evidence = evidence
    }

    /// A share that could not be measured (nothing to measure it on).
    public static var absent: MeasuredShare { MeasuredShare(nil) }

    /// A share to compare with.
    public init(floatLiteral value: Double) { self.init(value) }
    /// A share to compare with.
    public init(integerLiteral value: Int) { self.init(Double(value)) }

    /// Equal values (an absent share equals nothing, not even another absent one).
    public static func == (a: MeasuredShare, b: MeasuredShare) -> Bool {
        guard let x = a.value, let y = b.value else { return false }
        return x == y
    }
    /// Whether `a` is below `b`; false when either is absent.
    public static func < (a: MeasuredShare, b: MeasuredShare) -> Bool {
        guard let x = a.value, let y = b.value else { return false }
        return x < y
    }
    /// Whether `a` is at most `b`; false when either is absent.
    public static func <= (a: MeasuredShare, b: MeasuredShare) -> Bool {
        guard let x = a.value, let y = b.value else { return false }
        return x <= y
    }
    /// Whether `a` is above `b`; false when either is absent.
    public static func > (a: MeasuredShare, b: MeasuredShare) -> Bool {
        guard let x = a.value, let y = b.value else { return false }
        return x > y
    }
    /// Whether `a` is at least `b`; false when either is absent.
    public static func >= (a: MeasuredShare, b: MeasuredShare) -> Bool {
        guard let x = a.value, let y = b.value else { return false }
        return x >= y
    }

    /// The value as a percentage, or "not measured".
    public var description: String {
        value.map { String(format: "%.3g %%", $0 * 100) } ?? "not measured"
    }

    /// The value, and where a run gave evidence, its first offending search and that search's
    /// timeline (the run is made again for it, once).
    public var testDescription: String {
        guard let evidence else { return description }
        return description + "\n" + evidence.text
    }
}

/// The first offending search of a share, described on demand: its timeline costs a second run
/// of the harness, made only when a description is asked for (a failed expectation), and once.
final class Evidence: @unchecked Sendable {
    let report: FieldReport
    let example: FlawExample
    private let lock = NSLock()
    private var cached: String?

    init(report: FieldReport, example: FlawExample) {
        self.report = report
        self.example = example
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        if let cached { return cached }
        var text = String(format: "first at typist %d, %.1f s", example.typist, Double(example.timeNs) / 1e9)
        if let shown = example.shown, let field = example.field, shown != field {
            text += ": the screen showed '\(shown)' while the field held '\(field)'"
        } else if let field = example.field {
            text += ": the field held '\(field)'"
        }
        do {
            text += "; its timeline:\n" + (try report.timeline(around: example))
        } catch {
            text += " (its timeline could not be made: \(error))"
        }
        cached = text
        return text
    }
}

/// A measurement run that did not produce metrics.
public struct MeasurementError: Error, CustomStringConvertible {
    public var description: String
}

/// Runs your harness executable (the one that calls `TypestormTool.main(fields:)`) as a
/// subprocess: virtual time needs executors installed before any task exists, which a test
/// process cannot do.
public enum FieldMeasurement {
    /// Runs `simulate --json` of the harness with `strategies` and returns each strategy's report
    /// by name. `harness`: the executable's name (found next to the test bundle, as SwiftPM
    /// builds a test target's executable dependencies) or a path.
    public static func simulate(
        harness: String, strategies: [String], typists: Int = 200, seed: UInt64 = 1, arguments: [String] = []
    ) throws -> [String: FieldReport] {
        let executable = try locate(harness)
        let command = ["simulate", "--typists", "\(typists)", "--seed", "\(seed)", "--strategies", strategies.joined(separator: ","), "--json"]
            + arguments
        var reports = try parse(try execute(executable, command))
        for name in reports.keys { reports[name]?.invocation = (executable, command) }
        return reports
    }

    /// Runs `executable` with `arguments` and returns its standard output; a non-zero exit is an
    /// error carrying its standard error.
    static func execute(_ executable: URL, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard error is read on its own thread so that neither pipe can fill and block the harness.
        final class Box: @unchecked Sendable { var data = Data() }
        let errorBox = Box()
        let reader = Thread { errorBox.data = errors.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1_000) }
        guard process.terminationStatus == 0 else {
            throw MeasurementError(description: "\(executable.path) exited with \(process.terminationStatus):\n\(String(decoding: errorBox.data, as: UTF8.self))")
        }
        return data
    }

    /// The harness executable `harness` (a name next to the test bundle, or a path).
    public static func locate(_ harness: String) throws -> URL {
        if harness.contains("/") { return URL(fileURLWithPath: harness) }
        var candidates: [URL] = []
        let bundle = Bundle.main.bundleURL
        candidates.append(bundle.appendingPathComponent(harness))
        candidates.append(bundle.deletingLastPathComponent().appendingPathComponent(harness))
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        candidates.append(runner.appendingPathComponent(harness))
        candidates.append(runner.deletingLastPathComponent().appendingPathComponent(harness))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw MeasurementError(description: """
            harness executable '\(harness)' not found (looked in \(candidates.map { $0.path }.joined(separator: ", "))): \
            make the test target depend on it
            """)
        }
        return found
    }

    static func parse(_ data: Data) throws -> [String: FieldReport] {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let strategies = root["strategies"] as? [[String: Any]] else {
            throw MeasurementError(description: "simulate --json printed no 'strategies' array")
        }
        var reports: [String: FieldReport] = [:]
        for strategy in strategies {
            guard let name = strategy["name"] as? String, let metrics = strategy["metrics"] as? [String: Any] else { continue }
            let counters = (metrics["counters"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.int64Value }
            let histograms = (metrics["histograms"] as? [String: Any] ?? [:]).compactMapValues { value in
                (value as? [String: Any])?.compactMapValues { ($0 as? NSNumber)?.doubleValue }
            }
            let derived = (metrics["derived"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.doubleValue }
            var examples: [String: FlawExample] = [:]
            if let given = metrics["examples"], JSONSerialization.isValidJSONObject(given) {
                let data = try JSONSerialization.data(withJSONObject: given)
                examples = (try? JSONDecoder().decode([String: FlawExample].self, from: data)) ?? [:]
            }
            reports[name] = FieldReport(name: name, counters: counters, histograms: histograms, derived: derived, examples: examples)
        }
        return reports
    }
}
