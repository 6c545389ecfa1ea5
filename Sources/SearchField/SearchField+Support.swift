/// Emits a `display` effect only when what the screen shows changes.
struct DisplayTracker: Hashable, Sendable {
    private(set) var shown: DisplayState = .idle

    /// Emits `.display(state)` unless `state` is on screen already.
    @inline(__always)
    mutating func show(_ state: consuming DisplayState, into effects: inout [SearchEffect]) {
        guard !Self.same(state, shown) else { return }
        effects.append(.display(copy state))
        shown = state
    }

    /// `a == b`, compared in place (the synthesized `==` switched over a tuple of copies of both),
    /// the request before the query: a new answer is for another request, found unequal without
    /// reading the texts.
    private static func same(_ a: borrowing DisplayState, _ b: borrowing DisplayState) -> Bool {
        switch a {
        case .idle:
            switch b {
            case .idle: true
            default: false
            }
        case .loading:
            switch b {
            case .loading: true
            default: false
            }
        case .stalled:
            switch b {
            case .stalled: true
            default: false
            }
        case let .results(query, request):
            switch b {
            case let .results(other, otherRequest): request == otherRequest && query == other
            default: false
            }
        case let .empty(query):
            switch b {
            case let .empty(other): query == other
            default: false
            }
        case let .error(query):
            switch b {
            case let .error(other): query == other
            default: false
            }
        }
    }
}

/// Hands out request and timer numbers, each increasing from 1.
struct IDSource: Hashable, Sendable {
    private var lastRequest: RequestID = 0
    private var lastTimer: TimerID = 0

    mutating func request() -> RequestID {
        lastRequest += 1
        return lastRequest
    }

    mutating func timer() -> TimerID {
        lastTimer += 1
        return lastTimer
    }

    /// A new request for `query`: its uncached commit, then its send.
    @inline(__always)
    mutating func send(_ query: QueryIdentity, into effects: inout [SearchEffect]) -> RequestID {
        let id = request()
        effects.append(.commit(query, cached: false))
        effects.append(.sendRequest(id, query))
        return id
    }

    /// A new timer, scheduled to fire after `delay` nanoseconds for `purpose`.
    @inline(__always)
    mutating func schedule(after delay: Int64, for purpose: TimerPurpose, into effects: inout [SearchEffect]) -> TimerID {
        let id = timer()
        effects.append(.scheduleTimer(id, delay: delay, purpose: purpose))
        return id
    }
}

/// Requests whose results will still be written when they come back, with their queries.
///
/// A few entries at most in practice (the presets that never cancel hold one per keystroke of a
/// burst), so a flat array with linear search beats hashing and allocates only while growing.
struct RequestBook: Hashable, Sendable {
    private var entries: [(id: RequestID, query: QueryIdentity)] = []

    var isEmpty: Bool { entries.isEmpty }

    mutating func insert(_ id: RequestID, _ query: QueryIdentity) {
        entries.append((id, query))
    }

    /// Removes `id` and returns its query, or `nil` when it is not in the book.
    mutating func remove(_ id: RequestID) -> QueryIdentity? {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
        return entries.remove(at: index).query
    }

    func contains(_ id: RequestID) -> Bool {
        entries.contains { $0.id == id }
    }

    static func == (a: RequestBook, b: RequestBook) -> Bool {
        a.entries.elementsEqual(b.entries) { $0.id == $1.id && $0.query == $1.query }
    }

    func hash(into hasher: inout Hasher) {
        for entry in entries { hasher.combine(entry.id) }
    }
}

/// What the screen's result area holds: the seed's `results` and `committedQuery` rolled into one.
enum ShownContent: Hashable, Sendable {
    case nothing
    /// `count` is ``unknownCount`` when the answer did not say how many (shown as results). A
    /// plain `Int`, not an optional: the screen's state is copied on every event, and an
    /// optional payload makes each copy a call through the enum's value witnesses.
    case results(QueryIdentity, request: RequestID, count: Int)
    case error(QueryIdentity)

    var display: DisplayState {
        switch self {
        case .nothing: .idle
        case let .results(query, request, count): count == 0 ? .empty(query) : .results(query, request: request)
        case let .error(query): .error(query)
        }
    }

    /// The count of an answer that did not say how many.
    static let unknownCount = -1

    static func answer(_ query: QueryIdentity, _ request: RequestID, _ summary: ResultSummary) -> ShownContent {
        .results(query, request: request, count: summary.count ?? unknownCount)
    }

    /// The answer `summary` to request `id` for `query`, applied: what the screen then holds.
    @inline(__always)
    static func applied(
        _ id: RequestID, _ query: QueryIdentity, _ summary: ResultSummary, into effects: inout [SearchEffect]
    ) -> ShownContent {
        effects.append(.apply(id, query, summary.applyKind))
        return .answer(query, id, summary)
    }

    /// The failure of request `id` for `query`, applied as an error on screen.
    @inline(__always)
    static func failed(_ id: RequestID, _ query: QueryIdentity, into effects: inout [SearchEffect]) -> ShownContent {
        effects.append(.apply(id, query, .error))
        return .error(query)
    }
}

extension FieldInput {
    /// ``absorb(_:)`` for a field keyed on the text only: `true` when the text changed; a new
    /// scope or tokens are held for the next search but start nothing (`false`), as are events
    /// that are not input.
    @inline(__always)
    mutating func absorbText(_ event: SearchEvent) -> Bool {
        guard absorb(event) == true else { return false }
        switch event {
        case .textChanged, .fieldTextSet: return true
        default: return false
        }
    }
}

extension SearchFieldConfiguration {
    /// The identity `input` searches for, or `nil` when its text is too short.
    @inline(__always)
    func identity(of input: FieldInput) -> QueryIdentity? {
        normalizer.identity(text: input.text, scope: input.scope, tokens: input.tokens)
    }
}

extension ResultSummary {
    var applyKind: ApplyKind { count == 0 ? .empty : .results }
}

/// A switch-to-latest pipeline (RxJS `switchMap`, Combine `switchToLatest`), shared by
/// `debounce-switch`, `throttle` and `submit-only`: each emitted query replaces the request in
/// flight (a cached one shows at once); only the request in flight may answer; its results (or
/// emptiness) go on screen and into the cache, a failure shows an error, a cancellation shows
/// nothing. Any other request's answer is discarded.
struct SwitchToLatest {
    /// The one request whose answer may still be applied.
    private(set) var inFlight: (id: RequestID, query: QueryIdentity)?
    /// What the pipeline's answers put on screen.
    private(set) var shown = ShownContent.nothing
    private var cache: ClientCache

    init(cacheCapacity: Int) {
        cache = ClientCache(capacity: cacheCapacity)
    }

    /// `switchMap`: `query` replaces the search in flight, from the cache when it holds it.
    @inline(__always)
    mutating func emit(_ query: QueryIdentity, ids: inout IDSource, into effects: inout [SearchEffect]) {
        if let inFlight { effects.append(.cancelRequest(inFlight.id)) }
        inFlight = nil
        if let hit = cache.hit(query, into: &effects) {
            shown = hit
        } else {
            inFlight = (ids.send(query, into: &effects), query)
        }
    }

    /// The answer `summary` to request `id`. Returns `false` when it belongs to no current
    /// request (it is discarded, and the caller changes nothing else), `true` when it was applied.
    @inline(__always)
    mutating func answered(_ id: RequestID, _ summary: ResultSummary, into effects: inout [SearchEffect]) -> Bool {
        guard let current = inFlight, current.id == id else {
            effects.append(.discard(id))
            return false
        }
        inFlight = nil
        shown = cache.applied(id, current.query, summary, into: &effects)
        return true
    }

    /// The failure of request `id` for `reason`. Returns `false` when it belongs to no current
    /// request, `true` when it was the one in flight (a cancellation then shows nothing).
    @inline(__always)
    mutating func failed(_ id: RequestID, _ reason: FailureReason, into effects: inout [SearchEffect]) -> Bool {
        guard let current = inFlight, current.id == id else { return false }
        inFlight = nil
        if reason != .cancelled { shown = .failed(id, current.query, into: &effects) }
        return true
    }
}

/// The client-side LRU cache of identity → results (seed 003: "prefetching and caching data").
///
/// Small capacities (tens of entries) are the point of a client cache, so entries live in a flat
/// array ordered from least to most recently used.
///
/// - Complexity: O(capacity) per lookup.
struct ClientCache: Hashable, Sendable {
    let capacity: Int
    private var entries: [Entry] = []

    struct Entry: Hashable, Sendable {
        var query: QueryIdentity
        var request: RequestID
        var summary: ResultSummary
    }

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func lookup(_ query: QueryIdentity) -> Entry? {
        guard capacity > 0, let index = entries.lastIndex(where: { $0.query == query }) else { return nil }
        let entry = entries.remove(at: index)
        entries.append(entry)
        return entry
    }

    mutating func insert(_ query: QueryIdentity, request: RequestID, summary: ResultSummary) {
        guard capacity > 0 else { return }
        if let index = entries.firstIndex(where: { $0.query == query }) { entries.remove(at: index) }
        if entries.count >= capacity { entries.removeFirst() }
        entries.append(Entry(query: query, request: request, summary: summary))
    }

    /// On a hit for `query`: its cached commit, and the cached answer as the screen shows it.
    /// `nil` on a miss.
    @inline(__always)
    mutating func hit(_ query: QueryIdentity, into effects: inout [SearchEffect]) -> ShownContent? {
        guard let entry = lookup(query) else { return nil }
        effects.append(.commit(query, cached: true))
        return .answer(query, entry.request, entry.summary)
    }

    /// The answer `summary` to request `id` for `query`, applied and cached: what the screen then
    /// holds.
    @inline(__always)
    mutating func applied(
        _ id: RequestID, _ query: QueryIdentity, _ summary: ResultSummary, into effects: inout [SearchEffect]
    ) -> ShownContent {
        insert(query, request: id, summary: summary)
        return .applied(id, query, summary, into: &effects)
    }
}

/// Whether a key press leaves an IME composition open, as far as the field can tell.
public enum Composition {
    /// A Hangul jamo key (compatibility jamo U+3131–U+318E or conjoining jamo U+1100–U+11FF)
    /// leaves the syllable being composed open; a write-back now commits or mangles it.
    public static func isComposing(key: String) -> Bool {
        guard key.utf8.count == 3, let scalar = key.unicodeScalars.first else { return false }
        let value = scalar.value
        return (value >= 0x3131 && value <= 0x318E) || (value >= 0x1100 && value <= 0x11FF)
    }
}

/// A text field as far as a write-back needs one: what it reports after the app sets its text.
///
/// While an IME composition is open, the input method re-inserts its marked text after a
/// programmatic set, so the binding changes straight back to what the user had: the change
/// handler sees a new value every time and seed 001's loop runs until something stops it.
public struct TextFieldModel: Hashable, Sendable {
    /// What the field shows: the last text set, by the user or by the app's write-back.
    public private(set) var text: String
    /// Whether an input-method composition is open (marked text), which makes the IME re-insert its
    /// text after a programmatic set.
    public var composing: Bool

    /// A field showing `text`, with a composition open when `composing`.
    public init(text: String = "", composing: Bool = false) {
        self.text = text
        self.composing = composing
    }

    /// The user's edit.
    public mutating func userEdit(_ newText: String, composing: Bool) {
        text = newText
        self.composing = composing
    }

    /// The app sets the text; returns what the binding reports afterwards.
    public mutating func programmaticSet(_ newText: String) -> String {
        if composing { return text }
        text = newText
        return newText
    }
}
