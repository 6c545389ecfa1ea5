import Testing
import Typists
@testable import Orchestration

@Suite("Scenario typists", .timeLimit(.minutes(5)))
struct ScenarioTypistsTests {
    static let json = """
    {
      "name": "mix", "seed": 7, "duration": "10s",
      "catalog": { "generate": { "items": 100 } },
      "population": {
        "typists": 10,
        "mix": [ { "device": "desktop", "language": "en", "share": 0.5 },
                 { "device": "mobile", "language": "ko", "share": 0.5 } ],
        "session": { "queries": 2, "maxLength": "20s" }
      },
      "strategies": [ { "preset": "naive" } ],
      "runners": [ { "kind": "virtual" } ]
    }
    """

    static func texts(_ session: some TypistSession) -> [String] {
        var session = session
        var texts: [String] = []
        while let event = session.next() {
            if case let .edit(_, text) = event.action { texts.append(text.string) }
        }
        return texts
    }

    @Test func typistsFollowTheMixAndTheSeed() throws {
        let scenario = try ScenarioReader.read(json: Self.json)
        let typists = try ScenarioTypists(scenario: scenario, baseDirectory: "/")
        // Five typists of each entry, interleaved over the indices (`Population.mixEntry`).
        let languages = (0..<10).map { scenario.population.mixEntry(forTypist: $0).language }
        #expect(languages.filter { $0 == .en }.count == 5)
        let englishIndex = try #require(languages.firstIndex(of: .en))
        let koreanIndex = try #require(languages.firstIndex(of: .ko))
        let english = Self.texts(typists.session(forTypist: englishIndex))
        let korean = Self.texts(typists.session(forTypist: koreanIndex))
        #expect(!english.isEmpty && !korean.isEmpty)
        #expect(english.allSatisfy { $0.unicodeScalars.allSatisfy { $0.value < 0x1100 } })
        #expect(korean.contains { $0.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) || (0x3131...0x318E).contains($0.value) } })
        // The same typist types the same keys whichever process builds it.
        let again = try ScenarioTypists(scenario: scenario, baseDirectory: "/")
        #expect(Self.texts(again.session(forTypist: koreanIndex)) == korean)
    }

    @Test func sessionsAreCutAtMaxLength() throws {
        let scenario = try ScenarioReader.read(json: Self.json)
        var session = try ScenarioTypists(scenario: scenario, baseDirectory: "/").session(forTypist: 3)
        var last: TypingEvent?
        while let event = session.next() { last = event }
        #expect((last?.at ?? .max) <= 20_000_000_000)
    }

    @Test func aMissingQueryListDirectoryIsNamedByPath() throws {
        let json = Self.json.replacingOccurrences(of: #""session": { "queries": 2, "maxLength": "20s" }"#,
                                                  with: #""session": { "queries": 2 }, "queryLists": "no-such-dir""#)
        let scenario = try ScenarioReader.read(json: json)
        #expect(scenario.population.queryLists == "no-such-dir")
        #expect {
            _ = try ScenarioTypists(scenario: scenario, baseDirectory: "/tmp")
        } throws: { error in
            "\(error)".contains("$.population.queryLists") && "\(error)".contains("/tmp/no-such-dir")
        }
    }
}
