import Foundation
import Testing
@testable import Typists

@Suite("JSON Lines traces: record, replay, and errors that name the line", .timeLimit(.minutes(5)))
struct TraceTests {
    @Test("generated sessions survive a write and a read unchanged, to the nanosecond")
    func roundTrip() throws {
        var config = TypistConfig()
        config.languageShares = [.en: 1, .ko: 1, .zh: 1]
        config.scopeOrTokenChangeRate = 0.5
        let population = try TypistPopulation(config: config, queries: Support.shippedPool, seed: 31)
        var writer = TraceWriter()
        var expected: [[TypingEvent]] = []
        for index in 0..<40 {
            var session = population.session(forTypist: index)
            writer.beginSession(TraceHeader(session: index, seed: 31, profile: session.profile))
            let events = Support.events(&session)
            events.forEach { writer.write($0) }
            expected.append(events)
        }
        let sessions = try TraceReader.parse(writer.text, file: "roundtrip.jsonl")
        #expect(sessions.count == 40)
        for (index, session) in sessions.enumerated() {
            #expect(session.events == expected[index])
            #expect(session.header?.typist == index)
            var replay = session
            #expect(Support.events(&replay) == expected[index])
        }
    }

    @Test("awkward text is escaped and read back")
    func escaping() throws {
        let events = [
            TypingEvent(at: 1, action: .edit(key: "\"", text: "say \"hi\"\\ \t\u{1}")),
            TypingEvent(at: 1_500_000, action: .scope(nil)),
            TypingEvent(at: 2_000_001, action: .tokens(["a,b", "한글"])),
            TypingEvent(at: 3_000_000_000, action: .submit),
            TypingEvent(at: 3_000_000_000, action: .end),
        ]
        var writer = TraceWriter()
        events.forEach { writer.write($0) }
        #expect(writer.text.contains("{\"t_ms\":1.5,\"scope\":null}"))
        #expect(writer.text.contains("{\"t_ms\":3000,\"submit\":true}"))
        let sessions = try TraceReader.parse(writer.text, file: "x.jsonl")
        #expect(sessions.count == 1 && sessions[0].events == events && sessions[0].header == nil)
    }

    @Test("bad lines are reported with file and line", arguments: [
        ("{\"t_ms\":1,\"key\":\"a\",\"text\":\"a\"}\n\n{\"t_ms\":2,\"key\":\"b\"}", 3, "needs 'text'"),
        ("{\"t_ms\":5,\"submit\":true}\n{\"t_ms\":4,\"end\":true}", 2, "must not decrease"),
        ("{\"t_ms\":1,\"submit\":true,\"end\":true}", 1, "more than one event"),
        ("{\"t_ms\":1}", 1, "no event"),
        ("{\"key\":\"a\",\"text\":\"a\"}", 1, "missing 't_ms'"),
        ("{\"t_ms\":\"soon\",\"submit\":true}", 1, "t_ms"),
        ("{\"t_ms\":1,\"submit\":true}\nnot json", 2, "not a JSON object"),
        ("{\"t_ms\":-3,\"submit\":true}", 1, "≥ 0"),
        ("{\"t_ms\":1,\"tokens\":\"a\"}", 1, "tokens"),
    ])
    func errors(_ text: String, _ line: Int, _ fragment: String) {
        #expect {
            try TraceReader.parse(text, file: "bad.jsonl")
        } throws: { error in
            guard let error = error as? TraceError else { return false }
            return error.file == "bad.jsonl" && error.line == line && error.description.hasPrefix("bad.jsonl:\(line): ")
                && error.description.contains(fragment)
        }
    }

    @Test("a missing file is named")
    func missingFile() {
        #expect(throws: TraceError(file: "/nonexistent/t.jsonl", line: 0, reason: "cannot read the file")) {
            try TraceReader.read(path: "/nonexistent/t.jsonl")
        }
    }

    @Test("the shipped sample traces read, and are what a typist types", arguments: ["en-desktop", "en-mobile-errors", "ko", "zh-pinyin"])
    func shippedTraces(_ name: String) throws {
        let sessions = try TraceReader.read(path: Support.tracesDirectory + "/\(name).jsonl")
        #expect(!sessions.isEmpty)
        for session in sessions {
            #expect(session.events.last?.action == .end)
            #expect(session.header?.language != nil)
        }
        if name == "en-mobile-errors" {
            let keys = sessions.flatMap(\.events).compactMap { if case let .edit(key, _) = $0.action { key } else { nil } }
            #expect(keys.filter { $0 == "⌫" }.count >= 3)
            #expect(sessions[0].header?.device == "mobile")
        }
    }
}
