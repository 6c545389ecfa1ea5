import Testing
import Typists
@testable import Orchestration

@Suite("Live workload", .timeLimit(.minutes(5)))
struct LiveWorkloadTests {
    struct Scripted: TypistSession, Sendable {
        var events: [TypingEvent]
        mutating func next() -> TypingEvent? { events.isEmpty ? nil : events.removeFirst() }
    }

    func drain<S: TypistSession>(_ session: S) -> [TypingEvent] {
        var session = session
        var out: [TypingEvent] = []
        while let event = session.next() { out.append(event) }
        return out
    }

    @Test func sessionsEndAtThePhaseDeadline() {
        let keys = [0, 100, 200, 300].map { TypingEvent(at: Int64($0), action: .edit(key: "a", text: "a")) }
        let cut = drain(DeadlineSession(base: Scripted(events: keys), limit: 250))
        #expect(cut.map(\.at) == [0, 100, 200, 250])
        #expect(cut.last?.action == .end)
        let whole = drain(DeadlineSession(base: Scripted(events: keys), limit: 1_000))
        #expect(whole == keys)
    }
}
