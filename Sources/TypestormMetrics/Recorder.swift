import SearchField
/// Computes every metric of docs/metrics.md from timestamped records, for every runner.
///
/// Runners report what happened (`record(_:typist:at:)`) for typist slots `0..<typists`, in
/// non-decreasing time per typist, call `finish(at:)` once, and read `metrics()`. No runner
/// computes a metric of its own, so the virtual, in-process and HTTP numbers mean the same.
///
/// Everything accumulated is integral and per typist until it is added to the totals, so
/// recording typists in separate recorders and merging their `MetricSet`s gives exactly the
/// numbers of one recorder holding them all.
///
/// - Complexity: O(1) per record, plus O(open units) for input changes and request records
///   (a handful per typist).
public struct Recorder: RecordSink, Sendable {
    /// A burst ends once the input stays unchanged this long (S in docs/metrics.md, "Settles").
    public var settleInterval: Duration { .nanoseconds(settleIntervalNanos) }
    /// A display state visible for less than this is a blink.
    public var blinkThreshold: Duration { .nanoseconds(blinkThresholdNanos) }
    /// ``settleInterval`` in nanoseconds, as the recorder keeps time.
    package let settleIntervalNanos: Int64
    /// ``blinkThreshold`` in nanoseconds.
    package let blinkThresholdNanos: Int64
    /// The runner reports `backendStopped` for every request, so work is judged only once both
    /// the client and the backend are done with it.
    public let expectsBackend: Bool
    private var tracks: [Track]
    var totals = Totals()
    /// Per-typist state refers to queries by number (see `QueryRef`).
    private(set) var queries: QueryInterner
    /// Each typist slot's index in the whole population, for the first examples of flaws
    /// (`FlawExample.typist`); `nil`: slot `i` is typist `i`.
    package var globalTypists: [Int]?

    /// A recorder for typist slots `0..<typists`. `expectsBackend`: the runner reports
    /// `backendStopped` for every request, so work is judged only once the backend is done too.
    /// `settleInterval` and `blinkThreshold` default to 1 s and 200 ms, as docs/metrics.md
    /// defines them.
    ///
    /// - Throws: ``SetupError`` for fewer than 0 typists or a negative duration.
    public init(typists: Int, expectsBackend: Bool = true, settleInterval: Duration = .seconds(1),
                blinkThreshold: Duration = .milliseconds(200)) throws(SetupError) {
        if typists < 0 { throw SetupError(description: "typists: expected 0 or more, found \(typists)") }
        try SetupError.checkNotNegative(settleInterval, "settleInterval")
        try SetupError.checkNotNegative(blinkThreshold, "blinkThreshold")
        self.init(typists: typists, expectsBackend: expectsBackend, settleIntervalNanos: settleInterval.wholeNanoseconds,
                  blinkThresholdNanos: blinkThreshold.wholeNanoseconds)
    }

    /// A recorder with its intervals in nanoseconds (1 s and 200 ms by default).
    /// `compactionFloor`: the fewest distinct queries held before dead ones are dropped (tests
    /// set it tiny to exercise compaction).
    package init(typists: Int, expectsBackend: Bool, settleIntervalNanos: Int64,
                 blinkThresholdNanos: Int64 = 200_000_000, compactionFloor: Int = 1 << 16) {
        self.expectsBackend = expectsBackend
        self.settleIntervalNanos = settleIntervalNanos
        self.blinkThresholdNanos = blinkThresholdNanos
        tracks = Array(repeating: Track(expectsBackend: expectsBackend), count: max(0, typists))
        queries = QueryInterner(typists: max(0, typists), floor: compactionFloor)
    }

    /// The number of typist slots this recorder was created for.
    public var typistCount: Int { tracks.count }

    /// Records one fact about typist slot `typist` at `time` (nanoseconds on the runner's clock,
    /// the run starting at 0).
    @inlinable
    public mutating func record(_ record: Record, typist: Int, at time: Int64) {
        // Inlined where the record is made, so that the records a runner sends for nearly every
        // keystroke or request go straight to their own bookkeeping, without a `Record` built
        // and taken apart again.
        switch record {
        case let .inputLag(lag):
            inputLag(lag, at: time)
        case let .scheduleLag(lag):
            scheduleLag(lag, at: time)
        case let .workStopped(id, reason):
            workStopped(id: id, reason: reason, typist: typist, at: time)
        case let .backendStopped(id, work):
            backendStopped(id: id, work: work, typist: typist, at: time)
        default:
            recordAny(record, typist: typist, at: time)
        }
    }

    /// `record(.inputLag(_:))`.
    @usableFromInline
    mutating func inputLag(_ lag: Int64, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        totals.inputLag.record(lag)
    }

    /// `record(.scheduleLag(_:))`.
    @usableFromInline
    mutating func scheduleLag(_ lag: Int64, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        totals.scheduleLag.record(lag)
    }

    /// `record(.workStopped(id:reason:))`.
    @usableFromInline
    mutating func workStopped(id: UInt64, reason: StopReason, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        tracks[typist].workStopped(id, reason: reason, at: time, totals: &totals)
    }

    /// `record(.backendStopped(id:work:))`.
    @usableFromInline
    mutating func backendStopped(id: UInt64, work: BackendWork, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        tracks[typist].backendStopped(id, work: work, at: time, totals: &totals)
    }

    /// `record(_:typist:at:)` for any record.
    @usableFromInline
    mutating func recordAny(_ record: Record, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        switch record {
        case let .keystroke(_, query):
            keystroke(query, typist: typist, at: time)
        case .submit:
            totals.submits &+= 1
        case .sessionEnd:
            tracks[typist].sessionEnd(at: time, totals: &totals)
        case let .commit(query, cached):
            commit(query, cached: cached, typist: typist, at: time)
        case let .waitStarted(id, query):
            waitStarted(id: id, query: query, typist: typist, at: time)
        case let .waitFired(id, lateness):
            waitFired(id: id, lateness: lateness, typist: typist, at: time)
        case let .requestStart(id, query, lag):
            requestStarted(id: id, query: query, lag: lag, typist: typist, at: time)
        case let .cancelRequested(id, wait):
            cancelRequested(id: id, wait: wait, typist: typist, at: time)
        case let .workStopped(id, reason):
            tracks[typist].workStopped(id, reason: reason, at: time, totals: &totals)
        case let .backendStopped(id, work):
            tracks[typist].backendStopped(id, work: work, at: time, totals: &totals)
        case let .apply(id, query, kind):
            apply(id: id, query: query, kind: kind, typist: typist, at: time)
        case .countUnknown:
            totals.answersWithoutCount &+= 1
        case let .discard(id):
            totals.discards &+= 1
            tracks[typist].decide(id, applied: false, totals: &totals)
        case let .display(kind, query):
            display(kind, query: query, typist: typist, at: time)
        case let .writeBack(reentries, runaway, brokeComposition):
            totals.writeBackChanges &+= 1
            totals.writeBackReentries &+= Int64(reentries)
            if runaway { totals.writeBackRunaways &+= 1 }
            if brokeComposition { totals.compositionBreaks &+= 1 }
        case let .timerLateness(lateness):
            totals.timerLateness.record(lateness)
        case let .inputLag(lag):
            totals.inputLag.record(lag)
        case let .scheduleLag(lag):
            totals.scheduleLag.record(lag)
        }
    }

    // The records a runner sends for nearly every keystroke, callable without building a
    // `Record`: the same bookkeeping as `record(_:typist:at:)`, minus an enum round trip.

    /// `record(.keystroke(text:query:))`.
    public mutating func keystroke(_ query: QueryIdentity?, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        if queries.needsCompaction { compactQueries() }
        tracks[typist].keystroke(queries.ref(query, typist: typist), at: time, settle: settleIntervalNanos, totals: &totals)
        if totals.examples.hasPending { resolveFlawExamples(typist: typist) }
    }

    /// `record(.commit(_:cached:))`.
    public mutating func commit(_ query: QueryIdentity, cached: Bool, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        tracks[typist].commit(queries.ref(query, typist: typist), cached: cached, totals: &totals)
    }

    /// `record(.requestStart(id:query:lag:))`.
    public mutating func requestStarted(id: UInt64, query: QueryIdentity, lag: Int64?, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        if let lag { totals.scheduleLag.record(lag) }
        tracks[typist].unitStarted(Unit(id: id, query: queries.ref(query, typist: typist), start: time), totals: &totals)
    }

    /// `record(.apply(id:query:kind:))`.
    public mutating func apply(id: UInt64, query: QueryIdentity, kind: DisplayKind, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        tracks[typist].apply(id, query: queries.ref(query, typist: typist), kind: kind, at: time, totals: &totals)
        if totals.examples.hasPending { resolveFlawExamples(typist: typist) }
    }

    /// `record(.waitStarted(id:query:))`.
    public mutating func waitStarted(id: UInt64, query: QueryIdentity, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        totals.waits &+= 1
        tracks[typist].waits.append(Wait(id: id, query: queries.ref(query, typist: typist)))
    }

    /// `record(.waitFired(id:lateness:))`.
    public mutating func waitFired(id: UInt64, lateness: Int64, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        totals.timerLateness.record(lateness)
        tracks[typist].waitFired(id)
    }

    /// `record(.cancelRequested(id:wait:))`.
    public mutating func cancelRequested(id: UInt64, wait: Bool, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        tracks[typist].cancelRequested(id, wait: wait, at: time, totals: &totals)
    }

    /// `record(.display(_:query:))`.
    public mutating func display(_ kind: DisplayKind, query: QueryIdentity?, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        tracks[typist].display(kind, queries.ref(query, typist: typist), at: time, blink: blinkThresholdNanos, totals: &totals)
    }

    /// Renumbers the queries typist state still refers to as `0..<live` and drops the rest, so
    /// memory stays proportional to live state, not to every query ever typed. Refs map one to
    /// one, so every comparison gives the same answer as before.
    ///
    /// - Complexity: O(typists + refs held + queries held); amortized O(1) per record, as the
    ///   table must grow fourfold between compactions.
    mutating func compactQueries() {
        var renumbered = [UInt32](repeating: .max, count: queries.count)
        var live: [QueryIdentity] = []
        func keep(_ ref: QueryRef) -> QueryRef {
            if ref.isRetired { return ref }
            if renumbered[Int(ref.raw)] == .max {
                renumbered[Int(ref.raw)] = UInt32(live.count)
                live.append(queries.key(ref))
            }
            return QueryRef(raw: renumbered[Int(ref.raw)])
        }
        for typist in tracks.indices { tracks[typist].mapQueries(keep) }
        queries.rebuild(keeping: live)
    }

    /// Typists `typists` will get no record but `finish(at:)`, and no other typist holds a query
    /// in the recorder's table (every other typist recorded so far was retired before): their
    /// queries move out of the table, which starts over empty. The virtual runner retires each
    /// server cell's typists once the cell has run, so the table holds one cell's queries and
    /// stays in cache. Metrics are the same with or without it.
    package mutating func retire(_ typists: Range<Int>) {
        guard !typists.isEmpty else { return }
        precondition(typists.lowerBound >= 0 && typists.upperBound <= tracks.count, "retired typists out of range")
        precondition(!totals.examples.hasPending, "an example is noted but not resolved")
        queries.retire(typists: typists) { move in
            for typist in typists { tracks[typist].mapQueries(move) }
        }
    }

    /// Closes every open settle at `time` (after the runner drained all outstanding work) and
    /// counts work that never finished as wasted. Call once, before `metrics()`.
    public mutating func finish(at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        for index in tracks.indices {
            tracks[index].finish(at: time, totals: &totals)
            if totals.examples.hasPending { resolveFlawExamples(typist: index) }
        }
    }

    /// Process-level load figures a live runner measures (CPU nanoseconds, peak RSS, the heap's
    /// allocated bytes; `nil` where the allocator cannot tell). A recorder never told has none
    /// of them in its metrics: virtual time has no process to measure.
    public mutating func recordProcess(cpuNanos: Int64, peakRSSBytes: Int64, allocatedBytes: Int64?) {
        totals.cpuNanos = (totals.cpuNanos ?? 0) + cpuNanos
        totals.peakRSS = max(totals.peakRSS ?? 0, peakRSSBytes)
        if let allocatedBytes { totals.allocatedBytes = (totals.allocatedBytes ?? 0) + allocatedBytes }
    }

    /// Every metric under the names documented in `MetricName`.
    public func metrics() -> MetricSet {
        withFlawExamples(totals.metricSet())
    }
}

/// A request: a unit of backend work that can become obsolete (debounce waits are `Wait`s).
struct Unit: Sendable {
    var id: UInt64
    var query: QueryRef
    var start: Int64
    /// The first input change after `start` that made `query` differ from the field's query.
    var obsoleteAt: Int64 = -1
    var cancelAt: Int64 = -1
    var stopped = false
    /// Completed, and the field no longer asked for `query` at that moment.
    var staleAtCompletion = false
    var completed = false
    /// Applied as results or empty (a useful answer); `decided` once applied or discarded.
    var applied = false
    var decided = false
    var backendDone = false
    var serviceNanos: Int64 = 0
    var items: Int64 = 0
    var clientNs: Int64 = 0
}

/// A debounce wait: cheaper than a `Unit`, as one starts and ends on nearly every keystroke.
struct Wait: Sendable {
    var id: UInt64
    var query: QueryRef
    /// The first input change after it started that made `query` differ from the field's query.
    var obsoleteAt: Int64 = -1
}

/// One typist's state between records.
///
/// Counts, sums and time differences use wrapping arithmetic: times are nanoseconds of one run
/// and counts are of its records, far below `Int64.max`, and an overflow check was a branch on
/// every figure of every record.
struct Track: Sendable {
    let expectsBackend: Bool
    var field: QueryRef?
    var started = false
    var ended = false
    var endedAt: Int64 = -1
    var displayKind = DisplayKind.idle
    var displayQuery: QueryRef?
    /// The query whose real answer the screen's data holds: set by an apply of a completed
    /// response (or a client-cache hit, an earlier real answer), cleared by an apply of a
    /// failure. A screen that shows "results" or "empty" for the field's query without one
    /// (a failure rendered as an empty list) answers nothing and is never fresh.
    var answerQuery: QueryRef?
    var displaySince: Int64 = 0
    var displayChangedOnce = false
    var mismatchFrom: Int64 = -1
    var lastKeystroke: Int64 = -1
    var burstOpen = false
    var freshSince: Int64 = -1
    /// The screen was right at the burst's last keystroke and has stayed so: the settle needed
    /// no answer, and it has no time to fresh results (`already_fresh_settles`).
    var freshAtLastKeystroke = false
    var burstRequests: Int64 = 0
    var burstDisplayChanges: Int64 = 0
    var burstBlinks: Int64 = 0
    var burstCommits: [QueryRef] = []
    var maxApplied: UInt64 = 0
    var hasApplied = false
    var falseApplyAt: Int64 = -1
    var units: [Unit] = []
    var waits: [Wait] = []
    var openRequests: Int64 = 0

    /// Replaces every query ref the track holds with `transform`'s.
    mutating func mapQueries(_ transform: (QueryRef) -> QueryRef) {
        field = field.map(transform)
        displayQuery = displayQuery.map(transform)
        answerQuery = answerQuery.map(transform)
        for index in burstCommits.indices { burstCommits[index] = transform(burstCommits[index]) }
        for index in units.indices { units[index].query = transform(units[index].query) }
        for index in waits.indices { waits[index].query = transform(waits[index].query) }
    }

    /// Whether the screen answers `field`: its results (or its confirmed emptiness), or idle when
    /// the field is below the minimum length.
    var isFresh: Bool {
        guard let field else { return displayKind == .idle }
        return (displayKind == .results || displayKind == .empty) && displayQuery == field && answerQuery == field
    }

    var showsAnswerForOtherQuery: Bool {
        (displayKind == .results || displayKind == .empty) && displayQuery != field
    }

    mutating func accrueMismatch(at time: Int64, totals: inout Totals) {
        if mismatchFrom >= 0 { totals.mismatchNs &+= time &- mismatchFrom }
        mismatchFrom = (!ended && showsAnswerForOtherQuery) ? time : -1
    }

    mutating func keystroke(_ query: QueryRef?, at time: Int64, settle: Int64, totals: inout Totals) {
        totals.keystrokes &+= 1
        if !started {
            started = true
            displaySince = time
            totals.sessionStartSum &+= time
        }
        if burstOpen, time &- lastKeystroke >= settle {
            closeSettle(totals: &totals)
        }
        if !burstOpen {
            burstOpen = true
            burstRequests = 0
            burstDisplayChanges = 0
            burstBlinks = 0
            burstCommits.removeAll(keepingCapacity: true)
        }
        lastKeystroke = time
        if query != field {
            field = query
            for index in units.indices where units[index].obsoleteAt < 0 && units[index].query != query {
                units[index].obsoleteAt = time
            }
            for index in waits.indices where waits[index].obsoleteAt < 0 && waits[index].query != query {
                waits[index].obsoleteAt = time
            }
        }
        accrueMismatch(at: time, totals: &totals)
        freshAtLastKeystroke = isFresh
        freshSince = freshAtLastKeystroke ? time : -1
    }

    /// The session is over: mismatch time stops accruing (nobody is looking any more), but
    /// late responses still count for the final screen and time to fresh results.
    mutating func sessionEnd(at time: Int64, totals: inout Totals) {
        guard !ended else { return }
        if mismatchFrom >= 0 { totals.mismatchNs &+= time &- mismatchFrom }
        mismatchFrom = -1
        ended = true
        endedAt = time
    }

    mutating func commit(_ query: QueryRef, cached: Bool, totals: inout Totals) {
        totals.commits &+= 1
        if cached {
            totals.cachedCommits &+= 1
            answerQuery = query
        }
        if burstOpen, !burstCommits.contains(query) {
            burstCommits.append(query)
        }
    }

    mutating func unitStarted(_ unit: Unit, totals: inout Totals) {
        totals.requestsStarted &+= 1
        totals.timeline.requestStarted(at: unit.start)
        if burstOpen { burstRequests &+= 1 }
        openRequests &+= 1
        totals.inFlight.record(openRequests)
        if openRequests > totals.maxInFlight { totals.maxInFlight = openRequests }
        units.append(unit)
    }

    func unitIndex(_ id: UInt64) -> Int? {
        units.firstIndex { $0.id == id }
    }

    mutating func waitFired(_ id: UInt64) {
        if let index = waits.firstIndex(where: { $0.id == id }) { removeWait(at: index) }
    }

    /// Usually the last: a typist has one wait open at a time.
    @discardableResult
    mutating func removeWait(at index: Int) -> Wait {
        waits.removeMostlyLast(at: index)
    }

    mutating func cancelRequested(_ id: UInt64, wait: Bool, at time: Int64, totals: inout Totals) {
        if wait {
            guard let index = waits.firstIndex(where: { $0.id == id }) else { return }
            let obsoleteAt = removeWait(at: index).obsoleteAt
            if obsoleteAt >= 0 {
                totals.signalLatency.record(time &- obsoleteAt)
            } else {
                totals.cancelsWhileCurrent &+= 1
            }
            totals.taskChurn &+= 1
            return
        }
        guard let index = unitIndex(id), units[index].cancelAt < 0 else { return }
        units[index].cancelAt = time
        if units[index].obsoleteAt >= 0 {
            totals.signalLatency.record(time &- units[index].obsoleteAt)
        } else {
            totals.cancelsWhileCurrent &+= 1
        }
        totals.requestsCancelled &+= 1
    }

    mutating func workStopped(_ id: UInt64, reason: StopReason, at time: Int64, totals: inout Totals) {
        guard let index = unitIndex(id), !units[index].stopped else { return }
        openRequests &-= 1
        var unit = units[index]
        unit.stopped = true
        unit.clientNs = time &- unit.start
        totals.clientNs &+= unit.clientNs
        totals.timeline.requestStopped(start: unit.start, end: time, completed: reason == .completed)
        if unit.cancelAt >= 0 {
            totals.stopLatencyClient.record(time &- unit.cancelAt)
        }
        switch reason {
        case .completed:
            totals.requestsCompleted &+= 1
            totals.requestLatency.record(time &- unit.start)
            unit.completed = true
            unit.staleAtCompletion = unit.query != field
        case .cancelledObserved: totals.cancelsObserved &+= 1
        case .serverError: totals.serverErrors &+= 1
        case .timeout: totals.timeouts &+= 1
        case .transport: totals.transportErrors &+= 1
        }
        if reason != .completed { unit.decided = true }
        units[index] = unit
        finalizeIfDone(index, totals: &totals)
    }

    mutating func backendStopped(_ id: UInt64, work: BackendWork, at time: Int64, totals: inout Totals) {
        guard let index = unitIndex(id), !units[index].backendDone else { return }
        units[index].backendDone = true
        units[index].serviceNanos = work.serviceNanos
        units[index].items = work.itemsScanned
        totals.serviceNanos &+= work.serviceNanos
        totals.itemsScanned &+= work.itemsScanned
        totals.queueTime.record(work.queueNanos)
        totals.serviceTime.record(work.serviceNanos)
        if units[index].cancelAt >= 0 {
            totals.stopLatencyBackend.record(time &- units[index].cancelAt)
        }
        finalizeIfDone(index, totals: &totals)
    }

    /// Judges a request once the client stopped, the strategy decided, and the backend reported.
    mutating func finalizeIfDone(_ index: Int, totals: inout Totals) {
        let unit = units[index]
        if unit.stopped, unit.decided, unit.backendDone || !expectsBackend {
            finalize(index, totals: &totals)
        }
    }

    mutating func apply(_ id: UInt64, query: QueryRef, kind: DisplayKind, at time: Int64, totals: inout Totals) {
        totals.applies &+= 1
        if hasApplied, id < maxApplied {
            totals.outOfOrderApplies &+= 1
            totals.examples.note(.outOfOrder, at: time, shown: query, field: field)
        }
        if !hasApplied || id > maxApplied { maxApplied = id }
        hasApplied = true
        let unitIndex = unitIndex(id)
        let answered = (kind == .results || kind == .empty) && (unitIndex.map { units[$0].completed } ?? false)
        answerQuery = answered ? query : nil
        if kind == .empty || kind == .error {
            let cancelled = unitIndex.map { units[$0].cancelAt >= 0 } ?? false
            if cancelled || query != field { falseApplyAt = time }
        }
        decide(at: unitIndex, applied: kind == .results || kind == .empty, totals: &totals)
    }

    mutating func decide(_ id: UInt64, applied: Bool, totals: inout Totals) {
        decide(at: unitIndex(id), applied: applied, totals: &totals)
    }

    /// `decide` for the unit at `index` (`nil`: no open unit has the id), found once by the caller.
    @inline(__always)
    mutating func decide(at index: Int?, applied: Bool, totals: inout Totals) {
        guard let index, !units[index].decided else { return }
        units[index].decided = true
        units[index].applied = applied
        finalizeIfDone(index, totals: &totals)
    }

    /// Counts the unit's work as useful or wasted and forgets it.
    mutating func finalize(_ index: Int, totals: inout Totals) {
        // Usually the last: the newest request.
        let unit = units.removeMostlyLast(at: index)
        if !(unit.completed && unit.applied && !unit.staleAtCompletion) {
            totals.wastedRequests &+= 1
            totals.wastedServiceNs &+= unit.serviceNanos
            totals.wastedItems &+= unit.items
            totals.wastedClientNs &+= unit.clientNs
        }
    }

    mutating func display(_ kind: DisplayKind, _ query: QueryRef?, at time: Int64, blink: Int64, totals: inout Totals) {
        guard kind != displayKind || query != displayQuery else { return }
        totals.displayChanges &+= 1
        if burstOpen {
            burstDisplayChanges &+= 1
            if displayChangedOnce, time &- displaySince < blink {
                burstBlinks &+= 1
                totals.blinks &+= 1
            }
        }
        displayChangedOnce = true
        displayKind = kind
        displayQuery = query
        displaySince = time
        if kind == .empty || kind == .error, burstOpen {
            if query != field || falseApplyAt == time { totals.falseEmpties &+= 1 }
        }
        accrueMismatch(at: time, totals: &totals)
        if isFresh {
            if freshSince < 0, burstOpen { freshSince = time }
        } else {
            freshSince = -1
            freshAtLastKeystroke = false
        }
    }

    mutating func closeSettle(totals: inout Totals) {
        burstOpen = false
        totals.settles &+= 1
        totals.fanOutPerSettle.record(burstRequests)
        totals.displayChangesPerSettle.record(burstDisplayChanges)
        totals.blinksPerSettle.record(burstBlinks)
        totals.distinctCommits &+= Int64(burstCommits.count)
        if !isFresh { totals.staleSettles &+= 1 }
        noteSettleFlaws(totals: &totals)
        if freshAtLastKeystroke {
            totals.alreadyFreshSettles &+= 1
        } else if freshSince >= 0 {
            totals.timeToFresh.record(freshSince &- lastKeystroke)
        } else {
            totals.neverFresh &+= 1
        }
    }

    mutating func finish(at time: Int64, totals: inout Totals) {
        let end = ended ? endedAt : time
        if mismatchFrom >= 0 {
            totals.mismatchNs &+= end &- mismatchFrom
            mismatchFrom = -1
        }
        if started { totals.sessionEndSum &+= end }
        if burstOpen { closeSettle(totals: &totals) }
        waits.removeAll()
        while !units.isEmpty {
            if !units[0].stopped {
                totals.unfinishedRequests &+= 1
                totals.timeline.requestStopped(start: units[0].start, end: end, completed: false)
            }
            finalize(0, totals: &totals)
        }
    }
}
