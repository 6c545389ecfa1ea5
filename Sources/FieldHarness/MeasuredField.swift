import Observation
import SearchField

/// A search field written as ordinary async Swift, as Typestorm's typists use it.
///
/// Typestorm calls these methods on the main actor the moment the typist acts; the field does
/// whatever its real code does (start and cancel tasks, sleep, search through
/// `FieldEnvironment.search`) and says what it shows with `FieldEnvironment.show`. Clearing the
/// field arrives as `textChanged("")`. Scope, tokens and Return have default implementations
/// that ignore them.
@MainActor
public protocol MeasuredField: AnyObject {
    /// The field's whole text after the typist's key, paste or deletion.
    func textChanged(_ text: String)
    /// The search scope changed (`nil`: all).
    func scopeChanged(_ scope: String?)
    /// The search tokens changed.
    func tokensChanged(_ tokens: [String])
    /// The typist pressed Return.
    func submitted()
}

extension MeasuredField {
    /// By default a field ignores scope changes.
    public func scopeChanged(_ scope: String?) {}
    /// By default a field ignores token changes.
    public func tokensChanged(_ tokens: [String]) {}
    /// By default a field ignores Return.
    public func submitted() {}
}

/// What a field shows, as it tells Typestorm (`FieldEnvironment.show`).
public enum FieldScreen: Sendable, Equatable {
    /// Nothing searched: recent searches, suggestions or a blank list.
    case idle
    /// A spinner (or skeleton) instead of results.
    case loading
    /// The "still searching" indicator of a slow request.
    case stalled
    /// `count` results for `query` (0: "no results").
    case results(QueryIdentity, count: Int)
    /// "No results for `query`".
    case empty(QueryIdentity)
    /// An error message about searching for `query`.
    case error(QueryIdentity)

    /// `count` results for the text `query` (no scope, no tokens).
    public static func results(for query: String, count: Int) -> FieldScreen { .results(QueryIdentity(text: query), count: count) }
    /// "No results" for the text `query`.
    public static func empty(for query: String) -> FieldScreen { .empty(QueryIdentity(text: query)) }
    /// An error about the text `query`.
    public static func error(for query: String) -> FieldScreen { .error(QueryIdentity(text: query)) }
}

/// The answer of one search: how many results the backend found for `query`.
public struct SearchAnswer: Sendable, Equatable {
    /// The query that was searched for.
    public var query: QueryIdentity
    /// How many results the backend found (the count the screen shows); nil when the backend's
    /// answers carry no count (an HTTP API without a count path): show the results anyway, and
    /// Typestorm leaves the metrics that need a count (false empties) absent.
    public var count: Int?

    /// An answer of your own (an adapter's unit test, a preview's canned search).
    public init(query: QueryIdentity, count: Int?) {
        self.query = query
        self.count = count
    }
}

/// A search that failed on the backend or the network (a cancelled search throws
/// `CancellationError` instead).
public struct SearchFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// `server-error`, `timeout` or `transport`.
    public var reason: FailureReason
    /// The query whose search failed.
    public var query: QueryIdentity

    public var description: String { "search for \(query) failed: \(reason)" }

    package init(reason: FailureReason, query: QueryIdentity) {
        self.reason = reason
        self.query = query
    }
}

/// Knobs a field's factory reads (`--field-parameter NAME=VALUE`, and what `sweep` varies).
public struct FieldParameters: Sendable, Equatable {
    /// The parameters by name, as given on the command line.
    public var values: [String: String]

    /// Parameters by name.
    public init(_ values: [String: String] = [:]) { self.values = values }

    /// Parameter `name` as given, or nil when it was not.
    public subscript(name: String) -> String? { values[name] }

    /// Parameter `name` as a duration (`300ms`, `1.5s`, `250us`, or plain milliseconds), else `fallback`.
    public func duration(_ name: String, default fallback: Duration) -> Duration {
        guard let text = values[name] else { return fallback }
        return Self.parseDuration(text) ?? fallback
    }

    /// Parameter `name` as an integer, else `fallback`.
    public func int(_ name: String, default fallback: Int) -> Int {
        values[name].flatMap { Int($0) } ?? fallback
    }

    static func parseDuration(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 1e6), ("us", 1e3), ("ns", 1), ("s", 1e9)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { .nanoseconds(Int64($0 * scale)) }
        }
        return Double(text).map { .nanoseconds(Int64($0 * 1e6)) }
    }
}

/// Everything a field is built from: its clock, its search function and where it says what it
/// shows. Typestorm backs `search` with the run's backend (modelled in virtual time) and
/// `clock` with the run's clock (`VirtualClock` in virtual time).
public struct FieldEnvironment: Sendable {
    /// The typist's index in the population.
    public let typist: Int
    /// The clock to sleep on (`try await env.clock.sleep(for: .milliseconds(300))`): its sleeps
    /// run on the caller's actor, with no hop (`FieldClock`). Plain `Task.sleep` works too in
    /// virtual time (virtualised and counted).
    public let clock: FieldClock
    /// The knobs the factory reads (`--field-parameters NAME=VALUE`).
    public let parameters: FieldParameters
    let searchFunction: nonisolated(nonsending) @Sendable (QueryIdentity) async throws -> SearchAnswer
    let showFunction: @Sendable @MainActor (FieldScreen) -> Void
    /// Where the run records what only the field's code knows (nil outside a run of Typestorm's).
    let facts: (any FieldFacts)?

    /// An environment of your own (a unit test of the adapter, an app's preview).
    public init(
        typist: Int = 0, clock: any Clock<Duration>, parameters: FieldParameters = FieldParameters(),
        search: @escaping @Sendable (QueryIdentity) async throws -> SearchAnswer,
        show: @escaping @Sendable @MainActor (FieldScreen) -> Void
    ) {
        self.init(typist: typist, clock: clock, parameters: parameters, facts: nil, search: search, show: show)
    }

    /// The environment a run gives a typist's field: `facts` records its timers, cache answers
    /// and write-backs.
    package init(
        typist: Int, clock: any Clock<Duration>, parameters: FieldParameters, facts: (any FieldFacts)?,
        search: nonisolated(nonsending) @escaping @Sendable (QueryIdentity) async throws -> SearchAnswer,
        show: @escaping @Sendable @MainActor (FieldScreen) -> Void
    ) {
        self.typist = typist
        self.clock = FieldClock(clock)
        self.parameters = parameters
        searchFunction = search
        showFunction = show
        self.facts = facts
    }

    /// Searches the run's backend. Throws `CancellationError` when the calling task is
    /// cancelled (once the backend model says the client saw it) and `SearchFailure` when the
    /// backend fails. Runs on the caller's actor until the search itself suspends (no hop).
    public nonisolated(nonsending) func search(_ query: QueryIdentity) async throws -> SearchAnswer {
        try await searchFunction(query)
    }

    /// Searches for the text `query` (no scope, no tokens).
    public nonisolated(nonsending) func search(_ query: String) async throws -> SearchAnswer {
        try await searchFunction(QueryIdentity(text: query))
    }

    /// Tells Typestorm what the field shows now (call it whenever the screen changes; repeats
    /// are ignored).
    @MainActor public func show(_ screen: FieldScreen) { showFunction(screen) }

    /// Reports what an `@Observable` model shows whenever it changes: `screen` reads the model
    /// (as the view's `body` would) and is read again after every change of what it read, once
    /// the job that changed it has finished. Shows the current screen at once.
    @MainActor public func track(_ screen: @escaping @MainActor () -> FieldScreen) {
        ScreenTracker(screen: screen, show: showFunction).read()
    }
}

/// One `FieldEnvironment.track` of a field: reads its screen under observation, shows it, and
/// reads it again after every change of what it read.
final class ScreenTracker: @unchecked Sendable {
    let screen: @MainActor () -> FieldScreen
    let show: @Sendable @MainActor (FieldScreen) -> Void

    init(screen: @escaping @MainActor () -> FieldScreen, show: @escaping @Sendable @MainActor (FieldScreen) -> Void) {
        self.screen = screen
        self.show = show
    }

    @MainActor func read() {
        let value = withObservationTracking { screen() } onChange: { [self] in changed() }
        show(value)
    }

    /// Something the screen read changed: read it again once the changing job is over, in
    /// virtual time right after it, on Swift's own executors as the main actor's next job (as a
    /// view re-renders).
    func changed() {
        let scheduler = VirtualScheduler.shared
        if scheduler.session != nil, scheduler.onSchedulerThread {
            scheduler.post(self)
        } else {
            Task { @MainActor in read() }
        }
    }
}

/// A user field under a name: how to build one per typist, and the shortest query it searches
/// for (what staleness is measured against: below it the right screen is idle).
public struct FieldDefinition: Sendable {
    /// The shortest query the field searches for; below it the right screen is idle.
    public var minimumLength: Int
    /// Builds the field of one typist from its environment.
    public var make: @Sendable @MainActor (FieldEnvironment) throws -> any MeasuredField

    /// A field under a name, built per typist by `make`.
    public init(minimumLength: Int = 1, make: @escaping @Sendable @MainActor (FieldEnvironment) throws -> any MeasuredField) {
        self.minimumLength = minimumLength
        self.make = make
    }
}

/// The user fields of this process by name, beside the presets: one place every command that
/// resolves a strategy name asks.
public enum FieldRegistry {
    nonisolated(unsafe) static var fields: [String: FieldDefinition] = [:]

    /// Registers `fields` (before the command line runs).
    public static func register(_ fields: [String: FieldDefinition]) {
        for (name, definition) in fields { Self.fields[name] = definition }
    }

    /// The field registered as `name`.
    public static func field(named name: String) -> FieldDefinition? { fields[name] }

    /// Every registered name, sorted.
    public static var names: [String] { fields.keys.sorted() }
}
