import Foundation
import Testing
@testable import Typists

@Suite("FieldText: an edit's text as a view of the session's bytes", .timeLimit(.minutes(1)))
struct FieldTextTests {
    @Test("a text from a String has its bytes, equals and hashes like the same text from a session's buffer")
    func stringAndBufferAgree() {
        let arena = Array("xx한글 ab".utf8)
        let viewed = FieldText(copying: arena, start: 2, count: Int32(arena.count - 2))
        let made = FieldText("한글 ab")
        #expect(viewed == made)
        #expect(viewed.hashValue == made.hashValue)
        #expect(viewed.string == "한글 ab")
        #expect(viewed.utf8Count == 9)
        #expect(Array(viewed.utf8) == Array("한글 ab".utf8))
        #expect(viewed != FieldText("한글 a"))
        #expect(FieldText("").isEmpty)
        let literal: FieldText = "ab"
        #expect(literal == FieldText("ab"))
        #expect("\(literal)" == "ab")
    }

    @Test("string is the String of the text's bytes, short or long, ASCII or not",
          arguments: ["", "a", "wireless mouse", "wireless mouse!", "wireless mouse 2", "한", "한글 키보드", "无线鼠标 2 个装 黑色"])
    func stringOfBytes(text: String) {
        let arena = Array(("xx" + text + "yy").utf8)
        let viewed = FieldText(copying: arena, start: 2, count: Int32(text.utf8.count))
        let string = viewed.string
        #expect(string == text)
        #expect(Array(string.utf8) == Array(text.utf8))
        #expect(string.count == text.count)
    }

    @Test("a text encodes as a JSON string and decodes back")
    func codable() throws {
        let event = TypingEvent(at: 5, action: .edit(key: "a", text: "say \"hi\" 한"))
        let data = try JSONEncoder().encode(event)
        #expect(try JSONDecoder().decode(TypingEvent.self, from: data) == event)
        #expect(String(decoding: data, as: UTF8.self).contains("\"text\":\"say \\\"hi\\\" 한\""))
    }

    @Test("texts kept across queries keep their bytes: the session writes later queries elsewhere")
    func keptTextsSurviveRefills() throws {
        var config = TypistConfig()
        config.languageShares = [.en: 1, .ko: 1, .zh: 1]
        config.followUpRate = 0.95
        config.maxQueriesPerSession = 6
        let population = try TypistPopulation(config: config, queries: Support.shippedPool, seed: 3)
        var severalQueries = 0
        for index in 0..<20 {
            var kept = population.session(forTypist: index), raw = population.session(forTypist: index)
            var texts: [FieldText] = []
            var expected: [String] = []
            var queries = Set<Int>()
            while let event = kept.next() {
                queries.insert(kept.queryNumber)
                if case let .edit(_, text) = event.action { texts.append(text) }
                if let r = raw.nextRaw(), r.kind == .edit {
                    expected.append(raw.withFieldUTF8 { String(decoding: $0, as: UTF8.self) })
                }
            }
            #expect(texts.map(\.string) == expected)
            if queries.count > 1 { severalQueries += 1 }
        }
        #expect(severalQueries >= 10, "the test needs sessions of several queries")
    }
}
