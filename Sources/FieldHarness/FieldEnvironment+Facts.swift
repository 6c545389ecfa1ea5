import SearchField
import TypestormMetrics

// What a field's own code does that Typestorm cannot see from its searches and its screen: a
// timer that is not a debounce wait (a stalled indicator's delay), an answer from the field's
// own cache, and text the field writes back into itself. Each is recorded as the preset models
// record the same fact, so the numbers of real code and of its model mean the same.

/// Where a run records one typist's facts that only the field's own code knows (its
/// `timerClock` timers, its cache answers, its write-backs): the virtual run and the live one
/// each give every field's environment theirs, and both record through the typist's
/// `FieldLedger`.
package protocol FieldFacts: Sendable {
    /// The clock for the typist's timers that are not a debounce wait.
    var timerClock: any Clock<Duration> { get }
    /// The field answered `query` from its own cache.
    @MainActor func answeredFromCache(_ query: QueryIdentity)
    /// The field's code set the text field's text; what the text field holds afterwards, or nil
    /// once the edit's write-backs have reached their bound.
    @MainActor func fieldTextSet(_ text: String) -> String?
}

extension FieldEnvironment {
    /// A clock for the field's timers that are not a debounce before a search: a stalled
    /// indicator's delay, a spinner's grace period. Sleeps on `clock` are recorded as debounce
    /// waits (`debounce_waits`, `task_churn`); sleeps on this one only as timers
    /// (`timer_lateness_ns` when one fires: 0 in virtual time, how late it woke in a live run).
    /// Outside a run of Typestorm's it is `clock`.
    public var timerClock: any Clock<Duration> { facts?.timerClock ?? clock }

    /// Tells Typestorm that the field answered `query` from its own cache, with no search: the
    /// results it shows next for `query` are a real answer (`cached_commits`, `cache_hit_rate`).
    /// Call it when the cached results are written, before the screen shows them.
    @MainActor public func answeredFromCache(_ query: QueryIdentity) {
        facts?.answeredFromCache(query)
    }
}

/// A typist's sleeps on `FieldEnvironment.timerClock` in virtual time: a fired one is recorded
/// as timer lateness (0 in virtual time), as a preset's stalled timer is; a cancelled one not at
/// all.
final class TypistTimers: WaitObserver, @unchecked Sendable {
    /// The same typist's debounce waits: its run and its slot.
    let waits: TypistWaits

    init(_ waits: TypistWaits) { self.waits = waits }

    func waitStarted(delay: Int64) -> UInt64? { 0 }

    func waitFired(_ id: UInt64) {
        let run = waits.run, typist = waits.typist
        run.typists[typist].ledger.timerFired(lateness: 0, typist: typist, at: run.world.now, recorder: &run.recorder)
    }

    func waitCancelled(_ id: UInt64) {}
}

extension TypistWaits: FieldFacts {
    var timerClock: any Clock<Duration> { VirtualClock(waits: TypistTimers(self)) }

    /// The field answered `query` from its own cache: a cached commit, as a preset's cache hit
    /// records it.
    func answeredFromCache(_ query: QueryIdentity) {
        guard VirtualScheduler.shared.session === run else { return }
        run.typists[typist].ledger.answeredFromCache(query, typist: typist, at: run.world.now, recorder: &run.recorder)
    }

    func fieldTextSet(_ text: String) -> String? {
        guard VirtualScheduler.shared.session === run else { return text }
        return run.typists[typist].ledger.fieldTextSet(text)
    }
}
