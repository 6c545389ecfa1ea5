import FieldRuntime
import TypestormMetrics
import SearchField
import Typists

/// The deterministic discrete-event runner: typists, strategies and a modelled backend in
/// virtual time.
///
/// A thin shell around `FieldHost`: it owns the virtual clock and the modelled backend
/// (`VirtualWorld`) and nothing about the metrics. Events wait in a priority queue ordered by
/// (time, insertion sequence), so the same inputs and seed always replay the same way. Every
/// random draw comes from a generator derived from (seed, global typist index, request id),
/// never from the order in which typists happen to run, and server cells never share state: a
/// run split on cell boundaries and merged equals the whole run.
///
/// Generic over the strategy and session types so that the hot loop is specialized: no
/// existential dispatch per event.
public struct VirtualRunner<Strategy: SearchFieldStrategy, Session: TypistSession> {
    /// The modelled backend the runner serves requests with.
    public var backend: BackendModel { world.backend }
    /// The seed every random draw derives from.
    public var seed: UInt64 { world.seed }
    /// The recorder the run's events went to; its `metrics()` are the run's (with typist
    /// groups, the first group's once the run is over).
    public internal(set) var recorder: Recorder
    /// One recorder per typist group (one, unless the run was given groups).
    package var recorders: [Recorder] {
        var all = parked
        all[activeGroup] = recorder
        return all
    }
    /// The recorders of the groups not being recorded into (the active group's slot holds an
    /// empty placeholder): events go to `recorder` in place, and a change of group swaps two
    /// recorders, so the hot path never indexes an array of recorders.
    private var parked: [Recorder]
    /// The group whose recorder is `recorder`.
    private var activeGroup = 0
    /// Per runner-local typist, its group's index into `recorders`; empty: every typist in group 0.
    let groupOf: [Int32]
    let settleIntervalNanos: Int64
    /// `run` has been called: a second run starts from empty recorders.
    private var hasRun = false
    /// Per typist of the server cell being run (slot `typist - cellStart`), in parallel buffers
    /// so that the hot path mutates each in place and never copies a typist's whole state. Cells
    /// run one after another and share nothing, so only one cell's sessions and fields are held
    /// at a time: memory per typist is what the recorder and the world keep, not a whole session.
    /// The buffers are made and freed by `runCell` and valid only while it runs; being the
    /// cell's own memory, not arrays, every access skips a copy-on-write uniqueness check.
    var hosts: UnsafeMutablePointer<FieldHost<Strategy, Int32>>?
    var sessions: UnsafeMutablePointer<Session>?
    /// Each typist's next keystroke, taken when its typing event comes up.
    var pendings: UnsafeMutablePointer<TypingEvent?>?
    /// The runner-local index of the first typist of the cell being run.
    var cellStart = 0
    let prototype: Strategy
    /// The sessions of runner-local typists `range`, made when their cell runs.
    let makeSessions: (Range<Int>) -> [Session]
    var context: FieldHostContext
    var world: VirtualWorld
    /// Events taken off the queue so far (typing, timers, network and server steps).
    public internal(set) var eventsProcessed = 0

    /// - Parameters:
    ///   - sessions: the typists, in order of `globalIndices`.
    ///   - globalIndices: each typist's index in the whole population (its random streams and
    ///     server cell derive from it); defaults to `0..<sessions.count`.
    ///   - settleInterval: S in docs/metrics.md: a burst ends once the input stays unchanged
    ///     this long.
    /// - Throws: ``SetupError`` when `globalIndices` does not hold one index per session, or
    ///   `settleInterval` is negative.
    public init(
        strategy prototype: Strategy, sessions: [Session], globalIndices: [Int]? = nil, backend: BackendModel,
        seed: UInt64, settleInterval: Duration = .seconds(1)
    ) throws(SetupError) {
        let indices = globalIndices ?? Array(sessions.indices)
        guard indices.count == sessions.count else {
            throw SetupError(description: "globalIndices: expected one index per session (\(sessions.count)), found \(indices.count)")
        }
        try SetupError.checkNotNegative(settleInterval, "settleInterval")
        self.init(strategy: prototype, globalIndices: indices, backend: backend, seed: seed,
                  settleIntervalNanos: settleInterval.wholeNanoseconds) { range in
            Array(sessions[range])
        }
    }

    /// A runner whose sessions are made cell by cell: `sessions` gets runner-local typist
    /// indices (into `globalIndices`) and is called once per server cell, when the cell runs.
    /// Each session must derive only from its typist, never from when it is made.
    ///
    /// `groups`: per runner-local typist, the index of the group whose recorder gets its records
    /// (`recorders`); the typists still share their server cells whatever their group.
    package init(
        strategy prototype: Strategy, globalIndices indices: [Int], backend: BackendModel,
        seed: UInt64, settleIntervalNanos: Int64, groups: [Int32] = [], sessions: @escaping (Range<Int>) -> [Session]
    ) {
        precondition(groups.isEmpty || groups.count == indices.count, "one group per typist")
        (recorder, parked) = Self.emptyRecorders(globalIndices: indices, groups: groups, settleIntervalNanos: settleIntervalNanos)
        self.settleIntervalNanos = settleIntervalNanos
        groupOf = groups
        self.prototype = prototype
        makeSessions = sessions
        context = FieldHostContext(configuration: prototype.configuration)
        world = VirtualWorld(backend: backend, seed: seed, globalIndices: indices)
    }

    /// Runs every typist to the end and all outstanding work to completion; returns the recorder
    /// (finished).
    ///
    /// Each run starts from nothing: run again (or run a copy of the runner), it types the same
    /// sessions and returns the same record.
    ///
    /// `observer` sees every typing action, event, effect and backend step, for `replay`.
    public mutating func run(observer: ((Int64, Int, TimelineEntry) -> Void)? = nil) -> Recorder {
        // Run again, it records afresh: the same record, not the first one's counts twice.
        if hasRun {
            record(into: 0)
            (recorder, parked) = Self.emptyRecorders(globalIndices: world.globalIndices, groups: groupOf,
                                                     settleIntervalNanos: settleIntervalNanos)
        }
        hasRun = true
        world.beginRun()
        world.observer = observer
        var end: Int64 = 0
        // The cells' bounds first: holding `world.slots` while the cells run would copy it.
        var cells: [Range<Int>] = []
        var first = 0
        while first < world.slots.count {
            var last = first + 1
            while last < world.slots.count, world.slots[last].cell == world.slots[first].cell { last += 1 }
            cells.append(first..<last)
            first = last
        }
        for cell in cells {
            end = max(end, runCell(cell))
            // The cell's typists are done: their recorders' query tables start over, so that they
            // hold one cell's queries, not the run's.
            recorder.retire(cell)
            for group in parked.indices where group != activeGroup { parked[group].retire(cell) }
        }
        world.now = end
        for group in parked.indices {
            record(into: group)
            recorder.finish(at: end)
        }
        record(into: 0)
        world.observer = nil
        return recorder
    }

    /// The recorders of a run that has not started: group 0's as `recorder`, the other groups'
    /// in `parked` (group 0's slot there holds an empty placeholder until it is parked).
    private static func emptyRecorders(
        globalIndices indices: [Int], groups: [Int32], settleIntervalNanos: Int64
    ) -> (Recorder, [Recorder]) {
        var recorder = Recorder(typists: indices.count, expectsBackend: true, settleIntervalNanos: settleIntervalNanos)
        recorder.globalTypists = indices
        let placeholder = Recorder(typists: 0, expectsBackend: true, settleIntervalNanos: settleIntervalNanos)
        return (recorder, [placeholder] + Array(repeating: recorder, count: Int(groups.max() ?? 0)))
    }

    /// Runs the typists of one server cell to completion and returns the time of its last event.
    ///
    /// Cells share nothing, so running them one after another gives exactly what running them
    /// interleaved would; it keeps the working set (a hundred typists, a small heap) in cache.
    private mutating func runCell(_ typists: Range<Int>) -> Int64 {
        world.now = 0
        world.removedUntil = 0
        world.queue.restart(at: 0)
        cellStart = typists.lowerBound
        let made = makeSessions(typists)
        precondition(made.count == typists.count, "one session per typist of the cell")
        let hosts = UnsafeMutablePointer<FieldHost<Strategy, Int32>>.allocate(capacity: typists.count)
        hosts.initialize(repeating: FieldHost(strategy: prototype), count: typists.count)
        let sessions = UnsafeMutablePointer<Session>.allocate(capacity: typists.count)
        _ = UnsafeMutableBufferPointer(start: sessions, count: typists.count).initialize(from: made)
        let pendings = UnsafeMutablePointer<TypingEvent?>.allocate(capacity: typists.count)
        pendings.initialize(repeating: nil, count: typists.count)
        self.hosts = hosts
        self.sessions = sessions
        self.pendings = pendings
        defer {
            hosts.deinitialize(count: typists.count)
            hosts.deallocate()
            sessions.deinitialize(count: typists.count)
            sessions.deallocate()
            pendings.deinitialize(count: typists.count)
            pendings.deallocate()
            self.hosts = nil
            self.sessions = nil
            self.pendings = nil
        }
        for typist in typists {
            recordFor(typist)
            scheduleNextTyping(typist)
        }
        while let event = world.queue.pop() {
            world.now = event.time
            eventsProcessed += 1
            let typist = Int(event.typist)
            recordFor(typist)
            switch event.kind {
            case .typing:
                typing(typist)
            case .timer:
                hosts[typist - cellStart].timerFired(TimerID(event.payload), deadline: event.time, typist: typist, at: world.now,
                                         context: &context, recorder: &recorder, runner: &world)
            default:
                if let step = world.requestEvent(event) {
                    recordFor(step.typist)
                    if let work = step.backendWork {
                        hosts[step.typist - cellStart].backendStopped(step.id, work: work, typist: step.typist, at: world.now, recorder: &recorder)
                    }
                    if let result = step.result {
                        // Virtual requests leave exactly when the strategy asks: no schedule lag.
                        hosts[step.typist - cellStart].requestFinished(step.id, result, scheduleLag: 0, typist: step.typist,
                                                           at: world.now, context: &context, recorder: &recorder, runner: &world)
                    }
                }
            }
        }
        // A timer taken off the queue is due when it would have been the cell's last event.
        return max(world.now, world.removedUntil)
    }

    /// Makes `recorder` the recorder of runner-local typist `typist`'s group.
    @inline(__always) private mutating func recordFor(_ typist: Int) {
        guard !groupOf.isEmpty else { return }
        let group = Int(groupOf[typist])
        if group != activeGroup { record(into: group) }
    }

    /// Parks the active group's recorder and makes group `group`'s the one recorded into.
    private mutating func record(into group: Int) {
        guard group != activeGroup else { return }
        swap(&recorder, &parked[activeGroup])
        swap(&recorder, &parked[group])
        activeGroup = group
    }

    /// The virtual time of the last event taken off the queue, from the run's start.
    public var lastEventTime: Duration { .nanoseconds(world.now) }

    // MARK: Typing

    private mutating func scheduleNextTyping(_ typist: Int) {
        let next = sessions.unsafelyUnwrapped[typist - cellStart].next()
        if let at = next?.at {
            world.queue.push(max(at, world.now), .typing, typist: Int32(typist))
            // `typing` took the slot's event, so the slot is empty: initialize it in place with
            // the new one (moved, not copied), without running the outlined destroy of the
            // multi-payload `TypingEvent?` on it, which cost more than the rest of this function.
            let slot = pendings.unsafelyUnwrapped + (typist - cellStart)
            assert(slot.pointee == nil, "the pending keystroke was not taken")
            slot.initialize(to: consume next)
        } else {
            hosts.unsafelyUnwrapped[typist - cellStart].endSession(typist: typist, at: world.now, recorder: &recorder)
        }
    }

    private mutating func typing(_ typist: Int) {
        let now = world.now
        if world.slots[typist].uiBusyUntil > now {
            if pendings.unsafelyUnwrapped[typist - cellStart] != nil {
                world.queue.push(world.slots[typist].uiBusyUntil, .typing, typist: Int32(typist))
            }
            return
        }
        // Moved out, not copied: the event's strings are neither retained nor released here.
        guard let typed = pendings.unsafelyUnwrapped[typist - cellStart].take() else { return }
        var ends = false
        if case .end = typed.action { ends = true }
        let intendedAt = typed.at
        // The event's last use: handed over, not copied and destroyed twice.
        hosts.unsafelyUnwrapped[typist - cellStart].type((consume typed).action, intendedAt: intendedAt, typist: typist, at: now,
                           context: &context, recorder: &recorder, runner: &world)
        if ends { return }
        scheduleNextTyping(typist)
    }
}
