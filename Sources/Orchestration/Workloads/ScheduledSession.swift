import Typists

/// A typist's session placed on the phase's clock for the virtual runner: its events shifted by
/// the typist's arrival and cut where it is sent away (arrival `stages`) or the phase ends.
///
/// The virtual runner reads event times as phase times; without a schedule every session starts
/// at 0 and is passed through unchanged. A typist the schedule never brings types nothing.
package struct ScheduledSession<Base: TypistSession & Sendable>: TypistSession, Sendable {
    private var base: DeadlineSession<Base>?
    private let arrival: Int64

    /// - Parameters:
    ///   - schedule: the phase's arrivals, or `nil` for every typist at 0 with no cut.
    ///   - end: the phase's end; with a schedule, no typist types past it.
    package init(_ session: Base, typist: Int, schedule: ArrivalSchedule?, end: Int64) {
        guard let schedule else {
            base = DeadlineSession(base: session, limit: .max)
            arrival = 0
            return
        }
        arrival = schedule.offsets[typist]
        let leave = min(end, schedule.departures[typist])
        base = arrival < leave ? DeadlineSession(base: session, limit: leave - arrival) : nil
    }

    package mutating func next() -> TypingEvent? {
        guard var event = base?.next() else { return nil }
        event.at += arrival
        return event
    }
}
