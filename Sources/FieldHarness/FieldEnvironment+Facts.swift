import SearchField
import TypestormMetrics

// What a field's own code does that Typestorm cannot see from its searches and its screen: a
// timer that is not a debounce wait (a stalled indicator's delay), an answer from the field's
// own cache, and text the field writes back into itself. Each is recorded as the preset models
// record the same fact, so the numbers of real code and of its model mean the same.

extension FieldEnvironment {
    /// A clock for the field's timers that are not a debounce before a search: a stalled
    /// indicator's delay, a spinner's grace period. Sleeps on `clock` are recorded as debounce
    /// waits (`debounce_waits`, `task_churn`); sleeps on this one only as timers
    /// (`timer_lateness_ns` when one fires). Outside a virtual run it is `clock`.
    public var timerClock: any Clock<Duration> {
        guard let waits = typistWaits else { return clock }
        return VirtualClock(waits: TypistTimers(waits))
    }

    /// Tells Typestorm that the field answered `query` from its own cache, with no search: the
    /// results it shows next for `query` are a real answer (`cached_commits`, `cache_hit_rate`).
    /// Call it when the cached results are written, before the screen shows them.
    @MainActor public func answeredFromCache(_ query: QueryIdentity) {
        guard let waits = typistWaits else { return }
        waits.run.answeredFromCache(query, typist: waits.typist)
    }

    /// The run's bookkeeping for this typist, reached through the clock it made for the field
    /// (nil outside a virtual run).
    var typistWaits: TypistWaits? { (clock as? VirtualClock)?.waits as? TypistWaits }
}

/// A typist's sleeps on `FieldEnvironment.timerClock`: a fired one is recorded as timer
/// lateness (0 in virtual time), as a preset's stalled timer is; a cancelled one not at all.
final class TypistTimers: WaitObserver, @unchecked Sendable {
    /// The same typist's debounce waits: its run and its slot.
    let waits: TypistWaits

    init(_ waits: TypistWaits) { self.waits = waits }

    func waitStarted(delay: Int64) -> UInt64? { 0 }

    func waitFired(_ id: UInt64) { waits.run.recorder.record(.timerLateness(0), typist: waits.typist, at: waits.run.world.now) }

    func waitCancelled(_ id: UInt64) {}
}

extension VirtualFieldRun {
    /// The field answered `query` from its own cache: a cached commit, as a preset's cache hit
    /// records it. An answer for `query` that reached the field earlier and was never shown is
    /// not applied by the screen that shows the cached results (a preset applies nothing there).
    func answeredFromCache(_ query: QueryIdentity, typist: Int) {
        guard VirtualScheduler.shared.session === self else { return }
        typists[typist].ledger.answeredFromCache(query, typist: typist, at: world.now, recorder: &recorder)
    }
}
