import JSONReading
import Foundation
import Testing
@testable import Orchestration
import TypestormMetrics

@Suite("Scenario reader", .timeLimit(.minutes(5)))
struct ScenarioReaderTests {
    static let minimal = """
    {
      "name": "t",
      "seed": 1,
      "duration": "10s",
      "catalog": { "file": "catalog.jsonl" },
      "population": { "typists": 10 },
      "strategies": [ { "preset": "naive" } ],
      "runners": [ { "kind": "virtual" } ]
    }
    """

    /// The issues of reading `json`, or an empty list if it read.
    func issues(_ json: String) -> [ScenarioError.Issue] {
        do {
            _ = try ScenarioReader.read(json: json)
            return []
        } catch {
            return error.issues
        }
    }

    /// `minimal` with `key` of the top-level object replaced by `value` (raw JSON).
    func replacing(_ key: String, with value: String) -> String {
        var document = try! JSONParser.parse(Self.minimal)
        guard case var .object(members) = document else { fatalError() }
        let parsed = try! JSONParser.parse(value)
        if let index = members.firstIndex(where: { $0.key == key }) { members[index].value = parsed } else { members.append((key, parsed)) }
        document = .object(members)
        return document.canonical
    }

    @Test func minimalScenarioGetsDefaults() throws {
        let scenario = try ScenarioReader.read(json: Self.minimal)
        #expect(scenario.name == "t")
        #expect(scenario.durationNanos == 10_000_000_000)
        #expect(scenario.processes == 1)
        #expect(scenario.catalog == .file("catalog.jsonl"))
        #expect(scenario.population.mix == [.init(device: .desktop, language: .en, share: 1)])
        #expect(scenario.population.arrival == .allAtOnce)
        #expect(scenario.strategies == [ScenarioStrategy(preset: "naive")])
        #expect(scenario.runners == [.virtual])
        #expect(scenario.backend == ScenarioBackend())
        #expect(scenario.driver == DriverSettings())
    }

    @Test func shippedScenariosRead() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Datasets/scenarios")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(files.contains("default.json"))
        for file in files {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            _ = try ScenarioReader.read(bytes: Array(data), file: file)
        }
    }

    @Test func unknownKeySuggestsTheClosestName() {
        let found = issues(replacing("population", with: #"{"typists": 5, "arival": {"kind": "all-at-once"}}"#))
        #expect(found.count == 1)
        #expect(found.first?.path == "$.population.arival")
        #expect(found.first?.message.contains("unknown key; did you mean \"arrival\"?") == true)
    }

    @Test func unknownTopLevelKeyIsReported() {
        let found = issues(replacing("runner", with: #"{"kind": "virtual"}"#))
        #expect(found.map(\.path) == ["$.runner"])
        #expect(found.first?.message.contains("did you mean \"runners\"?") == true)
    }

    @Test func wrongTypeNamesPathAndExpectation() {
        let found = issues(replacing("population", with: #"{"typists": "ten"}"#))
        #expect(found == [.init(path: "$.population.typists", message: "expected an integer in 1...10000000, found \"ten\"")])
    }

    @Test func impossibleShareNamesTheArrayElement() {
        let mix = #"{"typists": 5, "mix": [{"device": "desktop", "share": 0.5}, {"device": "mobile", "share": -0.5}]}"#
        let found = issues(replacing("population", with: mix))
        #expect(found.count == 1)
        #expect(found.first?.path == "$.population.mix[1].share")
        #expect(found.first?.message == "expected a number greater than 0.0 and at most 1.0, found -0.5")
    }

    @Test func sharesMustAddUpToOne() {
        let mix = #"{"typists": 5, "mix": [{"share": 0.5}, {"device": "mobile", "share": 0.2}]}"#
        let found = issues(replacing("population", with: mix))
        #expect(found.map(\.path) == ["$.population.mix"])
        #expect(found.first?.message.contains("add up to 1") == true)
    }

    @Test func durationsNeedAUnit() {
        let found = issues(replacing("duration", with: "300"))
        #expect(found.first?.path == "$.duration")
        #expect(found.first?.message.contains("expected a duration string such as \"300ms\"") == true)
        #expect(issues(replacing("duration", with: #""300 parsecs""#)).first?.path == "$.duration")
        #expect(issues(replacing("duration", with: #""1.5s""#)).isEmpty)
    }

    @Test func unknownChoiceSuggestsTheClosest() {
        let found = issues(replacing("runners", with: #"[{"kind": "virtual"}, {"kind": "inprocess"}]"#))
        #expect(found.map(\.path) == ["$.runners[1].kind"])
        #expect(found.first?.message.contains("(did you mean \"in-process\"?)") == true)
    }

    @Test func missingRequiredMemberIsNamed() {
        let json = Self.minimal.replacingOccurrences(of: "\"seed\": 1,", with: "")
        let found = issues(json)
        #expect(found.map(\.path) == ["$.seed"])
        #expect(found.first?.message.hasPrefix("missing; expected an integer") == true)
    }

    @Test func everyProblemIsReportedAtOnce() {
        var json = replacing("processes", with: "0")
        json = json.replacingOccurrences(of: #""preset":"naive""#, with: #""preset":"naïve""#)
        let found = issues(json)
        #expect(Set(found.map(\.path)) == ["$.processes", "$.strategies[0].preset"])
    }

    @Test func duplicateStrategyNamesAndUnknownThresholdStrategy() {
        var json = replacing("strategies", with: #"[{"preset": "naive"}, {"preset": "naive"}]"#)
        json = json.replacingOccurrences(of: #""name":"t""#, with: #""name":"t","thresholds":[{"metric":"ttfr.p99","max":"1s","strategy":"naiv"}]"#)
        let found = issues(json)
        #expect(found.map(\.path) == ["$.strategies[1].name", "$.thresholds[0].strategy"])
        #expect(found.last?.message == "no strategy is named \"naiv\"; did you mean \"naive\"?")
    }

    @Test func syntaxErrorsGiveLineAndColumn() {
        let found = issues("{\n  \"name\": \"t\",\n  \"seed\": 1,,\n}")
        #expect(found.count == 1)
        #expect(found.first?.path == "$")
        #expect(found.first?.message.contains("line 3, column 13") == true)
    }

    @Test func errorDescriptionNamesFileAndPath() {
        let error = ScenarioError(file: "s.json", issues: [.init(path: "$.seed", message: "expected an integer")])
        #expect(error.description == "invalid scenario s.json: $.seed: expected an integer")
    }

    @Test func hashIgnoresFormattingAndWrittenDefaults() throws {
        let a = try ScenarioReader.read(json: Self.minimal)
        let spelledOut = try ScenarioReader.read(json: a.canonicalJSON.prettyCanonical)
        let withDefault = try ScenarioReader.read(json: replacing("processes", with: "1"))
        #expect(a.hash == spelledOut.hash)
        #expect(a == spelledOut)
        #expect(a.hash == withDefault.hash)
        let otherSeed = try ScenarioReader.read(json: replacing("seed", with: "2"))
        #expect(a.hash != otherSeed.hash)
        #expect(a.hash.count == 16)
    }

    @Test func largeSeedsSurviveExactly() throws {
        let scenario = try ScenarioReader.read(json: replacing("seed", with: "18446744073709551615"))
        #expect(scenario.seed == UInt64.max)
        #expect(issues(replacing("seed", with: "18446744073709551616")).map(\.path) == ["$.seed"])
    }

    @Test func arrivalKindsAndTheirSettings() throws {
        let ramp = try ScenarioReader.read(json: replacing("population", with: #"{"typists": 4, "arrival": {"kind": "ramp", "over": "2s"}}"#))
        #expect(ramp.population.arrival == .ramp(overNanos: 2_000_000_000))
        let rate = try ScenarioReader.read(json: replacing("population", with: #"{"typists": 4, "arrival": {"kind": "rate", "perSecond": 2.5}}"#))
        #expect(rate.population.arrival == .rate(perSecond: 2.5))
        let missing = issues(replacing("population", with: #"{"typists": 4, "arrival": {"kind": "rate"}}"#))
        #expect(missing.map(\.path) == ["$.population.arrival.perSecond"])
    }
}

@Suite("JSON parser", .timeLimit(.minutes(5)))
struct JSONParserTests {
    @Test func parsesEscapesAndKeepsNumbersAsWritten() throws {
        let value = try JSONParser.parse(#"{"a": "x\u00e9\ud83d\ude00\n", "n": 12345678901234567890, "f": -1.5e3, "l": [true, false, null]}"#)
        #expect(value["a"] == .string("xé😀\n"))
        #expect(value["n"] == .number("12345678901234567890"))
        #expect(value["f"] == .number("-1.5e3"))
        #expect(value["l"] == .array([.bool(true), .bool(false), .null]))
    }

    @Test(arguments: [
        (#"{"a": 1, "a": 2}"#, "appears twice"),
        ("[1, 2,]", "expected a value"),
        ("01", "leading zeros"),
        (#""abc"#, "unterminated string"),
        ("{} x", "after the end"),
    ])
    func rejectsInvalidDocuments(text: String, fragment: String) {
        #expect {
            _ = try JSONParser.parse(text)
        } throws: { error in
            (error as? JSONSyntaxError)?.message.contains(fragment) == true
        }
    }

    @Test func canonicalFormSortsKeys() throws {
        let value = try JSONParser.parse(#"{ "b": [1, {"d": 2, "c": "\""}], "a": null }"#)
        #expect(value.canonical == #"{"a":null,"b":[1,{"c":"\"","d":2}]}"#)
    }

    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(String(repeating: "a", count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}
