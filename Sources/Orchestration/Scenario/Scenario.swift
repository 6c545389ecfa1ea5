import FieldRuntime

/// A complete description of one benchmark run: what is searched, who types, which strategies
/// are compared under which runners, and when the run counts as failed.
///
/// Read from JSON by `ScenarioReader` (which names the JSON path of every mistake); every field
/// below is already validated and has its defaults applied. `canonicalJSON` writes it back, and
/// `hash` is computed over that, so formatting and omitted defaults do not change the hash.
public struct Scenario: Sendable, Equatable {
    /// The scenario format version this build reads and writes (key `schema`); other versions are
    /// refused.
    public static let schemaVersion = 1

    /// The run's name: letters, digits and `-_.`; it names the run directory.
    public var name: String
    public var description: String?
    /// Every random stream derives from (seed, typist index): same scenario and seed, same keystrokes.
    public var seed: UInt64
    /// Length of each runner phase: wall clock for live runners, simulated time for `virtual`.
    public var durationNanos: Int64
    /// Worker processes when `typestorm run` is not given `--workers`.
    public var processes: Int
    /// What the `in-process` and `http-embedded` runners search.
    public var catalog: CatalogSource
    /// The typists: how many, their device and language mix, arrival and sessions.
    public var population: Population
    /// The strategies to compare, each measured in its own group (docs/strategies.md).
    public var strategies: [ScenarioStrategy]
    /// Run one after another, each as a phase that all workers start together.
    public var runners: [RunnerSpec]
    /// The modelled network and server: the `virtual` runner's backend, and the live runners' with
    /// ``LiveBackendKind/model``.
    public var backend: ScenarioBackend
    /// Pass/fail rules on the merged record; empty for none.
    public var thresholds: [Threshold]
    /// How the driver paces and polices its workers.
    public var driver: DriverSettings

    /// A scenario from its parts; ``ScenarioReader`` builds one from JSON and checks it, this
    /// initialiser does not.
    public init(
        name: String, description: String? = nil, seed: UInt64, durationNanos: Int64, processes: Int = 1,
        catalog: CatalogSource, population: Population, strategies: [ScenarioStrategy], runners: [RunnerSpec],
        backend: ScenarioBackend = ScenarioBackend(), thresholds: [Threshold] = [], driver: DriverSettings = DriverSettings()
    ) {
        self.name = name
        self.description = description
        self.seed = seed
        self.durationNanos = durationNanos
        self.processes = processes
        self.catalog = catalog
        self.population = population
        self.strategies = strategies
        self.runners = runners
        self.backend = backend
        self.thresholds = thresholds
        self.driver = driver
    }
}

/// Where the catalog comes from: a file, or the synthetic generator.
public enum CatalogSource: Sendable, Equatable {
    /// A catalog file, relative to the scenario file's directory unless absolute.
    case file(String)
    case generate(items: Int, seed: UInt64, languages: [LanguageShare])

    /// One language's share of a generated catalog.
    public struct LanguageShare: Sendable, Equatable {
        /// The language of the generated names.
        public var language: ScenarioLanguage
        /// The share of rows in this language.
        public var share: Double
        /// A share of `share` for `language`.
        public init(language: ScenarioLanguage, share: Double) {
            self.language = language
            self.share = share
        }
    }
}

/// The languages a scenario's typists and generated catalog can use: English, Korean, Chinese.
public enum ScenarioLanguage: String, Sendable, Equatable, CaseIterable {
    case en, ko, zh
}

/// What a typist types on: a physical keyboard (`desktop`) or a touch screen (`mobile`).
public enum Device: String, Sendable, Equatable, CaseIterable {
    case desktop, mobile
}

/// The typists: how many, what they type on and in, when they arrive, how long they stay.
public struct Population: Sendable, Equatable {
    /// Typists in the population (at least 1).
    public var typists: Int
    /// The device and language mix; shares add up to 1.
    public var mix: [MixEntry]
    /// When typists arrive in the field (live runners and the probe; virtual typists follow only
    /// ``Arrival/stages(_:)``).
    public var arrival: Arrival
    /// Queries each typist searches for before leaving the field.
    public var queriesPerSession: Int
    /// A session is cut off after this long (`nil`: only the phase duration cuts it).
    public var maximumSessionNanos: Int64?
    /// Live runners: a typist whose session ends starts another one (a fresh draw, as with
    /// arrival ``Arrival/stages(_:)``), so the field keeps its typists until the phase ends.
    public var repeatsSessions = false
    /// Directory of the query lists the typists search for (`en.txt`, `ko.txt`, `zh.txt`,
    /// `zh-pinyin.txt`), relative to the scenario; `nil`: the shipped `Datasets/queries`.
    public var queryLists: String?

    /// One entry of the mix: typists on `device` typing `language`, `share` of the population.
    public struct MixEntry: Sendable, Equatable {
        /// What this entry's typists type on.
        public var device: Device
        /// The language this entry's typists search in.
        public var language: ScenarioLanguage
        /// This entry's share of the typists, in (0, 1].
        public var share: Double
        /// The access network this entry's typists are on (`"network": "lte"`), added to the
        /// backend's round trip; `nil`: the backend's round trip alone.
        public var network: NetworkProfile?
        /// An entry for `device` and `language` with `share`, on `network` (none by default).
        public init(device: Device, language: ScenarioLanguage, share: Double, network: NetworkProfile? = nil) {
            self.device = device
            self.language = language
            self.share = share
            self.network = network
        }
    }

    /// When typists arrive: all at once (the default), spread over a ramp, at a Poisson rate, or
    /// following k6-style stages.
    public enum Arrival: Sendable, Equatable {
        case allAtOnce
        /// Arrivals spread evenly over the first `overNanos` of the phase.
        case ramp(overNanos: Int64)
        /// A Poisson process with this many arrivals per second.
        case rate(perSecond: Double)
        /// k6's `stages`: the number of typists in the field ramps linearly from the previous
        /// stage's target (0 at the start) to each stage's `target` over its duration; ramping
        /// up brings typists in, ramping down sends them away (`ArrivalSchedule`).
        case stages([Stage])
    }

    /// One stage of a `stages` arrival: reach `target` typists in the field over `overNanos`
    /// (0: at once).
    public struct Stage: Sendable, Equatable {
        /// The number of typists in the field at the end of the stage.
        public var target: Int
        /// How long the stage takes, in nanoseconds (0: at once).
        public var overNanos: Int64

        /// A stage reaching `target` typists over `overNanos` nanoseconds.
        public init(target: Int, overNanos: Int64) {
            self.target = target
            self.overNanos = overNanos
        }
    }

    /// A population of `typists`; by default all arrive at once, search one query each, and draw
    /// from the shipped query lists.
    public init(typists: Int, mix: [MixEntry], arrival: Arrival = .allAtOnce, queriesPerSession: Int = 1,
                maximumSessionNanos: Int64? = nil, queryLists: String? = nil) {
        self.queryLists = queryLists
        self.typists = typists
        self.mix = mix
        self.arrival = arrival
        self.queriesPerSession = queriesPerSession
        self.maximumSessionNanos = maximumSessionNanos
    }

    /// Which typist indices segment `index` of `count` runs: round-robin, so every segment gets
    /// early and late arrivals alike and all segments together are exactly `0..<typists`.
    public func typistIndices(segment index: Int, of count: Int) -> StrideTo<Int> {
        stride(from: index, to: typists, by: count)
    }

    /// The mix entry of typist `typist`, from (typist, typists, mix) alone, so the mix does not
    /// depend on how the typists are split into segments.
    ///
    /// Typist i is moved to position π(i) = i·s mod typists (`mixStride`: the first integer at
    /// or above 0.618·typists that is coprime to it, so π is a permutation), and the entry is
    /// the one whose cumulative share range holds (π(i) + ½)/typists. Because π is a
    /// permutation, every entry gets exactly the typists the shares give it; because the golden
    /// ratio step spreads consecutive indices evenly, every contiguous run of indices (a
    /// segment's server cells) gets close to each share, so no segment gets all of the slowest
    /// entry.
    public func mixEntry(forTypist typist: Int) -> MixEntry {
        mixEntry(forTypist: typist, stride: Self.mixStride(typists: typists))
    }

    /// `mixEntry(forTypist:)` with the stride computed once (`mixStride(typists:)`), for loops
    /// over many typists.
    public func mixEntry(forTypist typist: Int, stride: Int) -> MixEntry {
        mix[mixIndex(forTypist: typist, stride: stride)]
    }

    /// The index in `mix` of typist `typist`'s entry (see `mixEntry(forTypist:)`).
    public func mixIndex(forTypist typist: Int, stride: Int) -> Int {
        guard typists > 0 else { return 0 }
        let product = (typist % typists).multipliedFullWidth(by: stride)
        let permuted = typists.dividingFullWidth((product.high, product.low)).remainder
        let position = (Double(permuted) + 0.5) / Double(typists)
        var cumulative = 0.0
        for (index, entry) in mix.enumerated() {
            cumulative += entry.share
            if position < cumulative { return index }
        }
        return mix.count - 1
    }

    /// The step of the mix permutation for `typists` typists: the first integer at or above
    /// 0.618·typists (the golden ratio's fractional part) that is coprime to `typists`.
    public static func mixStride(typists: Int) -> Int {
        guard typists > 2 else { return 1 }
        var step = max(1, Int(Double(typists) * 0.6180339887498949))
        while greatestCommonDivisor(step, typists) != 1 { step += 1 }
        return step
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}

/// One strategy to compare: a preset (docs/strategies.md) and the knobs a scenario may turn.
public struct ScenarioStrategy: Sendable, Equatable {
    /// The preset names a scenario may use, in docs/strategies.md's order.
    public static let presets = [
        "naive", "manual-cancel", "split-state-seed", "split-state", "sequence-guard",
        "debounce-switch", "throttle", "submit-only", "local-filter",
    ]

    /// Unique label in reports (defaults to the preset).
    public var name: String
    /// The preset, one of ``presets`` (docs/strategies.md).
    public var preset: String
    /// Debounce interval in nanoseconds; `nil` keeps the preset's.
    public var debounceNanos: Int64?
    /// Shortest query searched, in characters; `nil` keeps the preset's.
    public var minimumLength: Int?
    /// Whether the query is trimmed before searching; `nil` keeps the preset's.
    public var trim: Bool?
    /// How long without an answer before the field shows a "still loading" indicator, in
    /// nanoseconds; `nil` keeps the preset's.
    public var stalledDelayNanos: Int64?
    /// Entries in the client-side result cache; `nil` keeps the preset's.
    public var cacheSize: Int?
    /// Seed 001's write-back normalization variant.
    public var writeBack: Bool?
    /// The knobs a user field's factory reads (`FieldParameters`), when `preset` names a field
    /// of yours rather than a preset: `debounce` and `minLength` reach it as the parameters
    /// `debounce` and `min-length` too, so `sweep` can vary them.
    public var parameters: [String: String] = [:]

    /// A strategy from `preset` with optional knobs; every `nil` keeps the preset's own value, and
    /// `name` defaults to the preset.
    public init(name: String? = nil, preset: String, debounceNanos: Int64? = nil, minimumLength: Int? = nil,
                trim: Bool? = nil, stalledDelayNanos: Int64? = nil, cacheSize: Int? = nil, writeBack: Bool? = nil) {
        self.name = name ?? preset
        self.preset = preset
        self.debounceNanos = debounceNanos
        self.minimumLength = minimumLength
        self.trim = trim
        self.stalledDelayNanos = stalledDelayNanos
        self.cacheSize = cacheSize
        self.writeBack = writeBack
    }

    /// Whether `preset` names a preset (else a user field registered by
    /// `TypestormTool.main(fields:)`).
    public var isPreset: Bool { Self.presets.contains(preset) }
}

/// Where requests go and on which clock.
public enum RunnerSpec: Sendable, Equatable {
    /// Discrete-event simulation against `Scenario.backend`.
    case virtual
    /// Real clock, the real filter engine in each worker process; with `.model`, served through
    /// `Scenario.backend`'s model (its delays, queues and failures around the engine).
    case inProcess(LiveBackendKind)
    /// Real clock, HTTP to the search server the driver starts; with `.model`, each request
    /// goes through `Scenario.backend`'s model in the client (its delays, queues and failures),
    /// the real HTTP request to the server taking part of the drawn service time.
    case httpEmbedded(serverThreads: Int, backend: LiveBackendKind = .engine)
    /// Real clock, HTTP to an existing endpoint; `{query}` in the template is replaced.
    case httpURL(template: String, request: HTTPRequestSpec = HTTPRequestSpec())
    /// The driver's own probe: typists that only type (no search), to exercise and measure the
    /// driver, the protocol and sharding. `realTime`: keys at their intended wall-clock times.
    case probe(realTime: Bool)

    /// The runner's kind as scenarios and records name it: one of ``kinds``.
    public var kind: String {
        switch self {
        case .virtual: return "virtual"
        case .inProcess: return "in-process"
        case .httpEmbedded: return "http-embedded"
        case .httpURL: return "http-url"
        case .probe: return "probe"
        }
    }

    /// Every runner kind, as `runners[].kind` takes it.
    public static let kinds = ["virtual", "in-process", "http-embedded", "http-url", "probe"]

    /// Whether the phase runs on the wall clock (so its duration is real time).
    public var isLive: Bool {
        switch self {
        case .virtual: return false
        case let .probe(realTime): return realTime
        default: return true
        }
    }
}

/// What a live runner's requests meet behind the client.
public enum LiveBackendKind: String, Sendable, Equatable, CaseIterable {
    /// The engine (or server) as fast as it is: its own time is the service time.
    case engine
    /// The scenario's `backend` model as real delays around the real engine: round trip,
    /// service time, workers and FIFO queues per server cell, failures, cancellation, timeout;
    /// the live counterpart of the virtual runner.
    case model
}

/// The modelled backend: the virtual runner's model, and the live runners' with
/// `"backend": "model"`. Every knob the simulator uses is here, with its default.
public struct ScenarioBackend: Sendable, Equatable {
    /// Requests served at once per server; more wait in a queue.
    public var workers: Int
    /// Typists sharing one modelled server (segments split on these cells in virtual time).
    public var typistsPerServer: Int
    /// Median service time per request, in nanoseconds (log-normal through it and the p99).
    public var serviceMedianNanos: Int64
    /// 99th percentile of the service time, in nanoseconds; equal to the median for a constant time.
    public var serviceP99Nanos: Int64
    /// Median network round trip, in nanoseconds (half each way).
    public var networkRoundTripNanos: Int64
    /// What happens when the client cancels a request.
    public var cancellation: Cancellation
    /// With `honoured`: how long the server takes to notice a cancellation.
    public var cancelDelayNanos: Int64
    /// Share of requests that fail with a server error.
    public var errorRate: Double
    /// Client-side timeout.
    public var timeoutNanos: Int64
    /// σ of the log-normal round trip around `networkRoundTripNanos` (0: constant).
    public var networkRTTSpread: Double
    /// The slow tail: with this probability a request's service time is multiplied by
    /// `slowTailFactor` (0: none, so the service time is exactly the stated distribution).
    public var slowTailProbability: Double
    /// The factor a slow-tail request's service time is multiplied by.
    public var slowTailFactor: Double
    /// Share of requests lost in transport (the client sees the failure after a round trip).
    public var transportErrorRate: Double
    /// `local-filter`'s in-memory filter on the typist's UI thread: items and cost per item.
    public var localItems: Int64
    /// Nanoseconds of UI-thread time per item `local-filter` filters.
    public var localNanosPerItem: Double
    /// Live runners: all strategies against one backend instance (a mixed population sharing
    /// capacity) instead of each strategy against its own.
    public var sharedAcrossStrategies: Bool

    /// `honoured`: the server stops after noticing; `client-only`: the client gives up but the
    /// server finishes the work; `ignored`: nobody notices, the response is delivered.
    public enum Cancellation: String, Sendable, Equatable, CaseIterable {
        case honoured
        case clientOnly = "client-only"
        case ignored
    }

    /// The model with every knob at its documented default (docs/driver.md, `backend`): a scenario
    /// without a `backend` runs exactly this.
    public init(workers: Int = 4, typistsPerServer: Int = 100, serviceMedianNanos: Int64 = 8_000_000, serviceP99Nanos: Int64 = 60_000_000,
                networkRoundTripNanos: Int64 = 30_000_000, cancellation: Cancellation = .honoured, cancelDelayNanos: Int64 = 5_000_000,
                errorRate: Double = 0, timeoutNanos: Int64 = 5_000_000_000, networkRTTSpread: Double = 0.3,
                slowTailProbability: Double = 0, slowTailFactor: Double = 20, transportErrorRate: Double = 0,
                localItems: Int64 = 10_000, localNanosPerItem: Double = 150, sharedAcrossStrategies: Bool = false) {
        self.workers = workers
        self.typistsPerServer = typistsPerServer
        self.cancelDelayNanos = cancelDelayNanos
        self.serviceMedianNanos = serviceMedianNanos
        self.serviceP99Nanos = serviceP99Nanos
        self.networkRoundTripNanos = networkRoundTripNanos
        self.cancellation = cancellation
        self.errorRate = errorRate
        self.timeoutNanos = timeoutNanos
        self.networkRTTSpread = networkRTTSpread
        self.slowTailProbability = slowTailProbability
        self.slowTailFactor = slowTailFactor
        self.transportErrorRate = transportErrorRate
        self.localItems = localItems
        self.localNanosPerItem = localNanosPerItem
        self.sharedAcrossStrategies = sharedAcrossStrategies
    }
}

/// A pass/fail rule on the merged record: `metric` of the groups it selects must stay within
/// `[minimum, maximum]`.
public struct Threshold: Sendable, Equatable {
    /// A counter name, or a histogram name with a statistic: `ttfr.p99`, `fanout.mean`,
    /// `requests.count`, `ttfr.max`.
    public var metric: String
    /// Only groups of this strategy name (`nil`: every group).
    public var strategy: String?
    /// Only groups of this runner kind (`nil`: every runner).
    public var runner: String?
    /// The largest value that passes; `nil` for no upper bound.
    public var maximum: Double?
    /// The smallest value that passes; `nil` for no lower bound.
    public var minimum: Double?
    /// Stop the run as soon as the running figures cross the bound (exit 1, partial report).
    public var abort: Bool

    /// A rule on `metric`, for the groups of `strategy` and `runner` (`nil`: all), within `minimum`
    /// and `maximum` (`nil`: unbounded); `abort` stops the run once it is crossed.
    public init(metric: String, strategy: String? = nil, runner: String? = nil, maximum: Double? = nil, minimum: Double? = nil,
                abort: Bool = false) {
        self.metric = metric
        self.strategy = strategy
        self.runner = runner
        self.maximum = maximum
        self.minimum = minimum
        self.abort = abort
    }
}

/// How the driver paces and polices its workers.
public struct DriverSettings: Sendable, Equatable {
    /// How often a worker sends a snapshot.
    public var snapshotIntervalNanos: Int64
    /// A worker that sends nothing for this long is declared hung and killed.
    public var hangTimeoutNanos: Int64
    /// After SIGTERM, how long a worker gets before SIGKILL.
    public var graceNanos: Int64
    /// After a stop request, how long in-flight work may finish before workers are terminated.
    public var drainNanos: Int64

    /// Settings in nanoseconds; the defaults are a snapshot every 500 ms, a hang after 10 s of
    /// silence, 2 s of grace after SIGTERM and 5 s of drain.
    public init(snapshotIntervalNanos: Int64 = 500_000_000, hangTimeoutNanos: Int64 = 10_000_000_000,
                graceNanos: Int64 = 2_000_000_000, drainNanos: Int64 = 5_000_000_000) {
        self.snapshotIntervalNanos = snapshotIntervalNanos
        self.hangTimeoutNanos = hangTimeoutNanos
        self.graceNanos = graceNanos
        self.drainNanos = drainNanos
    }
}
