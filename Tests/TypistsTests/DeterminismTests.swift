import Foundation
import Testing
@testable import Typists

@Suite("Determinism: typist i depends only on (seed, i)", .timeLimit(.minutes(5)))
struct DeterminismTests {
    func population(seed: UInt64) throws -> TypistPopulation {
        var config = TypistConfig()
        config.languageShares = [.en: 1, .ko: 1, .zh: 1]
        return try TypistPopulation(config: config, queries: Support.shippedPool, seed: seed)
    }

    @Test("the same seed gives the same streams; another seed gives others")
    func sameSeedSameStream() throws {
        let a = try population(seed: 99), b = try population(seed: 99), c = try population(seed: 100)
        var differing = 0
        for index in 0..<50 {
            var sa = a.session(forTypist: index), sb = b.session(forTypist: index), sc = c.session(forTypist: index)
            let ea = Support.events(&sa)
            #expect(ea == Support.events(&sb))
            #expect(a.profile(forTypist: index) == b.profile(forTypist: index))
            if ea != Support.events(&sc) { differing += 1 }
        }
        #expect(differing == 50)
    }

    @Test("sharding: a typist's stream does not depend on which other typists were generated, or in what order")
    func shardingIndependence() throws {
        let whole = try population(seed: 5)
        var reference: [Int: [TypingEvent]] = [:]
        for index in 0..<40 {
            var session = whole.session(forTypist: index)
            reference[index] = Support.events(&session)
        }
        // Two workers, each with its own population value, taking interleaved and reversed shards.
        let worker = try population(seed: 5)
        for index in stride(from: 39, through: 0, by: -3) {
            var session = worker.session(forTypist: index)
            #expect(Support.events(&session) == reference[index])
        }
        // Interleaving two sessions' next() calls changes nothing either.
        var s1 = worker.session(forTypist: 3), s2 = worker.session(forTypist: 4)
        var e1: [TypingEvent] = [], e2: [TypingEvent] = []
        while true {
            let a = s1.next(), b = s2.next()
            if let a { e1.append(a) }
            if let b { e2.append(b) }
            if a == nil && b == nil { break }
        }
        #expect(e1 == reference[3] && e2 == reference[4])
    }

    @Test("nextRaw() with withFieldUTF8 is the same stream as next()")
    func rawMatchesStrings() throws {
        let population = try population(seed: 8)
        for index in 0..<30 {
            var strings = population.session(forTypist: index), raw = population.session(forTypist: index)
            while let event = strings.next() {
                let next = raw.nextRaw()
                let r = try #require(next)
                #expect(r.at == event.at)
                switch event.action {
                case let .edit(key, text):
                    #expect(r.kind == .edit)
                    #expect(TypingKey.name(r.key) == key)
                    #expect(raw.withFieldUTF8 { String(decoding: $0, as: UTF8.self) } == text.string)
                case .scope, .tokens:
                    #expect(raw.sideAction(of: r) == event.action)
                case .submit:
                    #expect(r.kind == .submit)
                case .end:
                    #expect(r.kind == .end)
                }
            }
            let after = raw.nextRaw()
            #expect(after == nil)
        }
    }

    @Test("a session typing into the buffers a finished one left types the same, and the finished one's texts stay as they were")
    func reusedBuffers() throws {
        let population = try population(seed: 11)
        // Reference: each session alone on a new thread, so it starts with buffers of its own.
        final class Box: @unchecked Sendable { var events: [TypingEvent] = [] }
        var reference: [[TypingEvent]] = []
        for index in 0..<24 {
            let box = Box(), done = DispatchSemaphore(value: 0)
            let thread = Thread {
                var session = population.session(forTypist: index)
                box.events = Support.events(&session)
                done.signal()
            }
            thread.start()
            done.wait()
            reference.append(box.events)
        }
        // One thread, one session after another: each takes the buffers the last one left,
        // while the texts handed out before are still held (their bytes must not change), and
        // asking a finished session again returns nil again.
        var held: [[TypingEvent]] = []
        var heldTexts: [[String]] = []
        for index in 0..<24 {
            var session = population.session(forTypist: index)
            let events = Support.events(&session)
            #expect(session.next() == nil && session.next() == nil)
            #expect(events == reference[index], "typist \(index)")
            held.append(events)
            heldTexts.append(Support.texts(events))
        }
        #expect(held.map(Support.texts) == heldTexts)
        // Interleaved: sessions that start while others are under way or finished.
        var sessions = (0..<24).map { population.session(forTypist: $0) }
        var interleaved = [[TypingEvent]](repeating: [], count: 24)
        var active = Set(0..<24)
        var turn = 0
        while !active.isEmpty {
            for index in active.sorted() where (index + turn) % 3 != 0 {
                if let event = sessions[index].next() { interleaved[index].append(event) } else { active.remove(index) }
            }
            turn += 1
        }
        #expect(interleaved == reference)
    }

    @Test("streams are well formed: times never decrease, one end, last event is end")
    func wellFormed() throws {
        let population = try population(seed: 21)
        for index in 0..<300 {
            var session = population.session(forTypist: index)
            let events = Support.events(&session)
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.at <= $1.at })
            #expect(events.last?.action == .end)
            #expect(events.filter { $0.action == .end }.count == 1)
            #expect(events.first.map { $0.at > 0 } ?? false)
        }
    }
}
