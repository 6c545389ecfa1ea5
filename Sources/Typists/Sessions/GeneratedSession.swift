import Foundation

/// One synthetic typist's session: focus, one or more queries typed with the typist's timing,
/// slips and corrections, then leaving the field.
///
/// Events are produced a query at a time into reused buffers (the field's text after each key
/// goes into one byte arena), and handed out one by one. `next()` makes the `TypingEvent`
/// (the key name is always a small string, the text a ``FieldText`` view of the arena);
/// `nextRaw()` with `withFieldUTF8(_:)` hands out the same stream with no reference counting.
///
/// The generation state lives in one heap block (`SessionStorage`) that copies of a session
/// share until one of them generates its next query, which then copies the state first.
public struct GeneratedSession: TypistSession, Sendable {
    /// The typist whose session this is.
    public let profile: TypistProfile
    /// `nonisolated(unsafe)`: a `ManagedBuffer` is never `Sendable`; the state is written only
    /// through the one reference to it (`withState`), as an array's buffer is.
    nonisolated(unsafe) var storage: SessionStorage
    /// The current query's events are `events[0..<outCount]` (the state's `out`), handed out
    /// from `outIndex` (kept here, so that copies of a session hand out events on their own).
    /// The pointers are into memory that `storage` keeps (`nonisolated(unsafe)`: a session is
    /// used by one thread at a time, and the memory is written only while no event of it is
    /// pending).
    @usableFromInline var outIndex = 0
    @usableFromInline var outCount = 0
    @usableFromInline nonisolated(unsafe) var events: UnsafePointer<RawTypingEvent>
    /// `TypingKey`'s names of the keys below `TypingKey.namedBelow` as `String` bits (the
    /// population's, which the state keeps alive).
    @usableFromInline nonisolated(unsafe) let keyNames: UnsafePointer<KeyNameBits>
    /// The arena the current query's texts are in: the state's, which keeps it alive for as
    /// long as its events are handed out. Not retained here (`unowned(unsafe)`): a reference
    /// here would cost a retain and a release per query and make the arena look shared to
    /// the state's check before it writes the next query.
    @usableFromInline unowned(unsafe) var arena = FieldBytes.empty

    /// The event handed out last, if it is of the current query: `events[outIndex - 1]` (not
    /// kept apart, so that handing out an event stores nothing but `outIndex`).
    @inlinable
    var lastEmitted: RawTypingEvent? { outIndex > 0 ? events[outIndex - 1] : nil }

    init(profile: TypistProfile, settings: PopulationSettings, rng: SeededGenerator) {
        self.profile = profile
        storage = .make { SessionState(profile: profile, settings: settings, rng: rng, target: $0, baseBytes: $1) }
        events = UnsafePointer(storage.state.pointee.out.base)
        keyNames = UnsafePointer(settings.keyNameBits)
    }

    /// The text the typist means to have in the field at the end of the current query (the
    /// field as it was, plus the intended words): what uncorrected errors are measured against.
    /// Made on request; generation itself never builds it.
    public var intendedText: String { storage.state.pointee.intendedText }
    /// Number of words in the query being typed (the words-per-query draw, or the words added
    /// by a refinement).
    public var intendedWords: Int { storage.state.pointee.intendedWords }
    /// The part of `intendedText` this query types (after the text already in the field).
    public var intendedTyped: String { String(decoding: storage.state.pointee.target.elements, as: UTF8.self) }
    /// Counts the queries planned so far; changes when the events of a new query begin.
    public var queryNumber: Int { storage.state.pointee.queryNumber }
    /// The current query adds words to the previous one instead of starting afresh.
    public var isRefinement: Bool { storage.state.pointee.isRefinement }

    /// The next event; an edit's text is a view of the session's arena (see ``FieldText``).
    ///
    /// Inlinable for the common events, a key whose name is in the table, a submit and the
    /// end: the caller's code then sees the event made, and need not retain and release its
    /// key's name (made from the bits of an immortal string, see `KeyNameBits`). Always
    /// inlined: the simulator's runner calls it once per event, through `DeadlineSession`.
    @inlinable @inline(__always)
    public mutating func next() -> TypingEvent? {
        if outIndex == outCount {
            refill()
            if outIndex == outCount { return nil }
        }
        let event = events[outIndex]
        switch event.kind {
        case .edit where event.key < TypingKey.namedBelow:
            outIndex += 1
            return TypingEvent(at: event.at, action: .edit(key: keyNames[Int(event.key)].string,
                                                            text: FieldText(storage: arena, start: event.textStart, count: event.textCount)))
        case .submit:
            outIndex += 1
            return TypingEvent(at: event.at, action: .submit)
        case .end:
            outIndex += 1
            return TypingEvent(at: event.at, action: .end)
        default:
            return nextEvent()
        }
    }

    /// `next()` for the other events: keys named by `TypingKey.name`, scope and token changes.
    @usableFromInline
    mutating func nextEvent() -> TypingEvent? {
        guard let raw = nextRaw() else { return nil }
        let action: TypingEvent.Action
        switch raw.kind {
        case .edit:
            action = .edit(key: TypingKey.name(raw.key, names: storage.state.pointee.settings.keyNames),
                           text: FieldText(storage: arena, start: raw.textStart, count: raw.textCount))
        case .scope, .tokens:
            action = storage.state.pointee.sideActions[Int(raw.key)]
        case .submit:
            action = .submit
        case .end:
            action = .end
        }
        return TypingEvent(at: raw.at, action: action)
    }

    /// The next event without making any String; for edits, read the field with
    /// `withFieldUTF8(_:)` before the next call.
    ///
    /// - Complexity: amortised O(1) per event, plus the field's length to render it.
    @inline(__always)
    public mutating func nextRaw() -> RawTypingEvent? {
        if outIndex == outCount {
            refill()
            if outIndex == outCount { return nil }
        }
        let event = events[outIndex]
        outIndex += 1
        return event
    }

    /// The field's UTF-8 text after the last edit returned by `nextRaw()`.
    @inlinable
    public func withFieldUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard let event = lastEmitted, event.kind == .edit else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try withExtendedLifetime(arena) {
            try body(UnsafeBufferPointer(start: arena.base + Int(event.textStart), count: Int(event.textCount)))
        }
    }

    /// The scope or tokens change of a raw `.scope` / `.tokens` event.
    public func sideAction(of event: RawTypingEvent) -> TypingEvent.Action? {
        event.kind == .scope || event.kind == .tokens ? storage.state.pointee.sideActions[Int(event.key)] : nil
    }

    /// Generates the next query's events (none once the session is over).
    @inline(never) @usableFromInline
    mutating func refill() {
        outIndex = 0
        outCount = 0
        withState { $0.refill() }
        outCount = storage.state.pointee.out.count
        events = UnsafePointer(storage.state.pointee.out.base)
        arena = storage.state.pointee.arena
    }

    /// Calls `body` with the generation state, made this session's own first.
    mutating func withState<R>(_ body: (inout SessionState) -> R) -> R {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return body(&storage.state.pointee)
    }
}

/// The owner of a session's generation state: one small object per session, and the state
/// changed through a pointer, with no exclusivity or uniqueness check per key. Copies of a
/// session share it until one generates (`withState`).
///
/// The state is in a block of memory that the thread's spare blocks lend (see
/// `SessionBuffers.takeBlock()`), with room for the query's target and base text after it: a
/// runner makes a cell's hundred sessions at once and drops them at once, more blocks of the
/// state's size than the allocator keeps at hand per thread, so taking and giving them back
/// through the allocator went to its shared arena most of the time.
final class SessionStorage {
    /// The state, at the same address for the storage's life.
    let state: UnsafeMutablePointer<SessionState>

    /// Bytes of the block's own for the query's target and for its base text, which `make`
    /// lends the state: most queries need no more, so a session allocates neither.
    static let targetCapacity = 128
    static let baseCapacity = 64

    /// Bytes of a block: the state, then the target's and the base text's bytes.
    static let blockSize = MemoryLayout<SessionState>.stride + targetCapacity + baseCapacity
    static let blockAlignment = MemoryLayout<SessionState>.alignment

    private init(state: UnsafeMutablePointer<SessionState>) {
        self.state = state
    }

    /// Storage holding the state `makeState` makes from the target and base text buffers it
    /// is lent (in the state's block).
    @inline(__always)
    static func make(_ makeState: (_ target: RawBuffer<UInt8>, _ baseBytes: RawBuffer<UInt8>) -> SessionState) -> SessionStorage {
        let block = SessionBuffers.takeBlock()
            ?? UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: blockAlignment)
        let bytes = (block + MemoryLayout<SessionState>.stride).bindMemory(to: UInt8.self, capacity: targetCapacity + baseCapacity)
        let state = block.bindMemory(to: SessionState.self, capacity: 1)
        state.initialize(to: makeState(RawBuffer(lending: bytes, capacity: targetCapacity),
                                       RawBuffer(lending: bytes + targetCapacity, capacity: baseCapacity)))
        return SessionStorage(state: state)
    }

    /// A session dropped before it typed past its end (a runner stops at the `.end` event)
    /// leaves its generation buffers to the thread's next session too, and its block.
    deinit {
        state.pointee.releaseBuffers()
        state.pointee.deallocateBuffers()
        state.deinitialize(count: 1)
        SessionBuffers.keepBlock(UnsafeMutableRawPointer(state))
    }

    /// Storage with a copy of the state and buffers of its own.
    func copy() -> SessionStorage {
        .make { state.pointee.copy(target: $0, baseBytes: $1) }
    }
}

/// What a session generates from: the typist, the population's settings, the random stream,
/// the field editor, the plan of the current query and its events.
struct SessionState {
    let profile: TypistProfile
    let settings: PopulationSettings
    /// The device's paste and word-prediction rates (``DeviceParameters``), kept here so that
    /// a session holds no copy of the device's parameters.
    let pasteRate: Double
    let predictionRate: Double
    let pool: LanguagePool
    var rng: SeededGenerator
    let sampler: IntervalShape.Sampler

    /// Per-key interval before the per-key factors, in ms, for composing a query.
    let baseIKI: Double
    /// Within-word key-pair factors of the typist's device (all 1 without key-pair times).
    let pairFactors: KeyPairFactors
    /// `SeededGenerator.threshold(_:)` of the rates drawn on every key: hesitation,
    /// suggestion look, slip, rollover.
    let hesitationThreshold: UInt64
    let suggestionLookThreshold: UInt64
    let slipThreshold: UInt64
    let rolloverThreshold: UInt64

    var editor: FieldEditor
    /// The plan of the current query: keys, the typed bytes they produce, and its words.
    var keys = RawBuffer<PlanKey>()
    var target: RawBuffer<UInt8>
    var words = RawBuffer<PlannedWord>()
    /// Editor states before each key of the plan on the track typed so far.
    var marks = RawBuffer<FieldEditor.Mark>()
    /// The field's text when the query started (what clearing part-way returns to).
    var baseBytes: RawBuffer<UInt8>
    /// Scratch bytes for building a field text.
    var scratch = RawBuffer<UInt8>()

    /// The current query's events.
    var out = RawBuffer<RawTypingEvent>()
    /// The field's texts of the current query, in `arena.base[0..<arenaCount]`: a text that
    /// extends the one before it (or is a prefix of it) shares its bytes, others follow;
    /// bytes past `arenaCount` are unused room. Written only past `arenaCount` (texts handed
    /// out view what is below it); a query starts over at 0 only in an arena no text holds.
    var arena = FieldBytes.empty
    var arenaCount = 0
    /// The last edit's text, `arena.base[lastTextStart..<lastTextStart + lastTextCount]`,
    /// and whether it ends at `arenaCount` (so that a text extending it is written in place).
    var lastTextStart = 0
    var lastTextCount = 0
    var lastTextEndsArena = true
    var sideActions: [TypingEvent.Action] = []
    /// The generation buffers are the session's, taken for its first query
    /// (`reserveBuffers`) and not yet given up (`releaseBuffers`).
    var holdsBuffers = false

    var now: Int64 = 0
    var prevPhysical: UInt8 = KeyboardLayout.none
    /// Hand bits (`PlanKey.handMask`) of the previous key, 0 if none.
    var prevHand: UInt8 = 0
    var queriesDone = 0
    var finished = false
    var lastPhrase = -1
    var lastPhraseWords = 0
    var scope: String?
    var tokens: [String] = []

    var intendedText: String { String(decoding: Array(baseBytes.elements) + Array(target.elements), as: UTF8.self) }
    var intendedWords = 0
    var queryNumber = 0
    var isRefinement = false

    struct PlannedWord {
        var firstKey: Int
        /// Index of the key after the word (a space key, or the end of the plan).
        var endKey: Int
        /// Target byte offset just past the word.
        var byteEnd: Int
    }

    /// `target` and `baseBytes` are the empty buffers the state's storage lends it.
    init(profile: TypistProfile, settings: PopulationSettings, rng: SeededGenerator, target: RawBuffer<UInt8>, baseBytes: RawBuffer<UInt8>) {
        self.profile = profile
        self.target = target
        self.baseBytes = baseBytes
        self.settings = settings
        // Read through the shared settings field by field: calling a method of the config would
        // copy all of it (and retain its arrays) for every session.
        let desktop = profile.device == .desktop
        let device = desktop ? settings.deviceDraws.desktop : settings.deviceDraws.mobile
        pasteRate = device.pasteRate
        predictionRate = device.predictionRate
        self.pool = settings.pool(profile.language)
        self.rng = rng
        self.sampler = desktop ? settings.samplers.desktop : settings.samplers.mobile
        pairFactors = desktop ? settings.pairFactors.desktop : settings.pairFactors.mobile
        // About one key in six starts a word; rollover keys take about 55 % of an interval.
        let firstShare = 0.16
        let normalisation = (1 + firstShare * (profile.firstKeyFactor - 1))
            * (1 - (1 - firstShare) * profile.rolloverRate * 0.45)
        baseIKI = profile.meanIKIMillis / profile.composingSpeedScale / normalisation
        editor = FieldEditor(pinyinInField: settings.config.pinyinInField)
        hesitationThreshold = settings.hesitationThreshold
        suggestionLookThreshold = settings.suggestionLookThreshold
        // The profile's slip rate is its device's.
        slipThreshold = profile.slipRate == device.slipRate ? device.slipThreshold : SeededGenerator.threshold(profile.slipRate)
        rolloverThreshold = SeededGenerator.threshold(profile.rolloverRate)
    }

    /// Gives the per-query buffers room for a typical query: a finished session's buffers if
    /// this thread has some spare (see `SessionBuffers`), otherwise new ones within the
    /// allocator's small, cached classes; the target and the base text are the session's own
    /// (the public properties read them after the session is over), in its storage. Done at
    /// the first query rather than in `init`, so that sessions made ahead (a runner makes all
    /// of its typists' at once) hold no buffers until they type.
    mutating func reserveBuffers() {
        holdsBuffers = true
        if SessionBuffers.takeSpare({ exchangeBuffers(&$0) }) { return }
        keys.reserveCapacity(96)
        words.reserveCapacity(16)
        marks.reserveCapacity(32)
        out.reserveCapacity(40)
        editor.reserveCapacity(96)
    }

    /// Frees the buffers that only generation uses once the session is over, or leaves them
    /// to the thread's next session (what the public properties read, the query's target and
    /// base text, stays). Does nothing if the session holds none: it gave them up already (a
    /// session that typed to its end is dropped after), or never took any.
    mutating func releaseBuffers() {
        guard holdsBuffers else { return }
        holdsBuffers = false
        arenaCount = 0
        out.removeAll()
        if SessionBuffers.keep({ exchangeBuffers(&$0) }) { return }
        var buffers = SessionBuffers()
        exchangeBuffers(&buffers)
        buffers.free()
    }

    /// Swaps the generation buffers with `buffers`.
    mutating func exchangeBuffers(_ buffers: inout SessionBuffers) {
        swap(&keys, &buffers.keys)
        swap(&words, &buffers.words)
        swap(&marks, &buffers.marks)
        swap(&out, &buffers.out)
        swap(&arena, &buffers.arena)
        swap(&scratch, &buffers.scratch)
        swap(&sideActions, &buffers.sideActions)
        editor.exchangeBuffers(committed: &buffers.committed, pinyin: &buffers.pinyin, pinyinShown: &buffers.pinyinShown)
    }

    /// Frees the raw buffers, which leaves the state unusable (the storage is going away).
    mutating func deallocateBuffers() {
        target.deallocate()
        baseBytes.deallocate()
        keys.deallocate()
        words.deallocate()
        marks.deallocate()
        out.deallocate()
        scratch.deallocate()
        editor.deallocateBuffers()
    }

    /// The same state with raw buffers of its own: the target and base text in the empty
    /// buffers given (see `SessionStorage.make`), the others allocated.
    func copy(target: RawBuffer<UInt8>, baseBytes: RawBuffer<UInt8>) -> SessionState {
        var copy = self
        copy.target = target
        copy.target.append(contentsOf: self.target.elements)
        copy.baseBytes = baseBytes
        copy.baseBytes.append(contentsOf: self.baseBytes.elements)
        copy.keys = keys.copy()
        copy.words = words.copy()
        copy.marks = marks.copy()
        copy.out = out.copy()
        copy.scratch = scratch.copy()
        copy.editor = editor.copy()
        return copy
    }

    /// The next query's events into `out` (none once the session is over).
    mutating func refill() {
        out.removeAll()
        arenaCount = 0
        lastTextStart = 0
        lastTextCount = 0
        lastTextEndsArena = true
        if !sideActions.isEmpty { sideActions.removeAll(keepingCapacity: true) }
        guard !finished else {
            releaseBuffers()
            return
        }
        if queriesDone == 0 { reserveBuffers() }
        // Texts handed out may still view the arena: then the query goes into a new one.
        if !isKnownUniquelyReferenced(&arena) && arena.capacity > 0 { arena = FieldBytes(capacity: arena.capacity) }
        produceQuery()
    }
}
