import Typists

/// A simple typing model, until the Typists module's realistic typists are wired in: a few
/// queries per session, each typed letter by letter at a log-normal pace, with typos corrected
/// by backspace, occasional pauses mid-word, a settle pause after each query, then a clear.
///
/// Deterministic in (seed, typist index): the stream does not depend on which process or shard
/// runs the typist.
public struct SimpleTypingModel: Hashable, Sendable {
    public var queriesPerSession: Int
    /// Time between keys.
    public var interKey: Distribution
    public var typoProbability: Double
    /// Chance of a pause after a key, and its length.
    public var pauseProbability: Double
    public var pause: Distribution
    /// The pause after a finished query (longer than a settle).
    public var settlePause: Distribution
    /// When the session starts, from 0.
    public var startSpread: Distribution
    /// Chance that a query starts with a scope change.
    public var scopeChangeProbability: Double
    /// Chance of pressing Return after a finished query.
    public var submitProbability: Double
    public var scopes: [String]
    public var vocabulary: [String]

    public init(
        queriesPerSession: Int = 4, interKey: Distribution = .logNormal(median: 160_000_000, sigma: 0.45),
        typoProbability: Double = 0.03, pauseProbability: Double = 0.04,
        pause: Distribution = .uniform(350_000_000, 900_000_000),
        settlePause: Distribution = .uniform(1_500_000_000, 4_000_000_000),
        startSpread: Distribution = .uniform(0, 5_000_000_000), scopeChangeProbability: Double = 0.1,
        submitProbability: Double = 0.3,
        scopes: [String] = ["shoes", "bags", "outdoor"], vocabulary: [String] = SimpleTypingModel.defaultVocabulary
    ) {
        self.queriesPerSession = queriesPerSession
        self.interKey = interKey
        self.typoProbability = typoProbability
        self.pauseProbability = pauseProbability
        self.pause = pause
        self.settlePause = settlePause
        self.startSpread = startSpread
        self.scopeChangeProbability = scopeChangeProbability
        self.submitProbability = submitProbability
        self.scopes = scopes
        self.vocabulary = vocabulary
    }

    public static let defaultVocabulary = [
        "sweater", "jacket", "boots", "sneakers", "backpack", "wallet", "scarf", "gloves", "tent", "lantern",
        "jeans", "hoodie", "sandals", "raincoat", "beanie", "duffel", "thermos", "compass", "parka", "loafers",
        "wool socks", "red dress", "trail shoes", "rain boots", "belt bag", "sun hat",
    ]

    /// The session of typist `index` under `seed`.
    public func session(seed: UInt64, typist index: UInt64) -> SimpleTypist {
        SimpleTypist(model: self, rng: SeededGenerator(seed: seed, stream: index))
    }
}

/// One typist of the simple model. Plans one query at a time into a small buffer, so memory
/// per typist stays at one query's events.
public struct SimpleTypist: TypistSession, Sendable {
    let model: SimpleTypingModel
    var rng: SeededGenerator
    var clock: Int64 = 0
    var text = ""
    var queriesLeft: Int
    var started = false
    var ended = false
    var planned: [TypingEvent] = []
    var nextIndex = 0

    init(model: SimpleTypingModel, rng: SeededGenerator) {
        self.model = model
        self.rng = rng
        queriesLeft = model.queriesPerSession
    }

    public mutating func next() -> TypingEvent? {
        if nextIndex < planned.count {
            nextIndex += 1
            return planned[nextIndex - 1]
        }
        guard plan() else { return nil }
        return next()
    }

    /// Plans the next query (or the end of the session).
    private mutating func plan() -> Bool {
        planned.removeAll(keepingCapacity: true)
        nextIndex = 0
        guard !ended else { return false }
        if !started {
            started = true
            clock = model.startSpread.sample(&rng)
        } else {
            clock += model.settlePause.sample(&rng)
        }
        guard queriesLeft > 0 else {
            ended = true
            planned.append(TypingEvent(at: clock, action: .end))
            return true
        }
        queriesLeft -= 1
        if !text.isEmpty {
            text = ""
            planned.append(TypingEvent(at: clock, action: .edit(key: "⎋", text: "")))
        }
        if !model.scopes.isEmpty, rng.chance(model.scopeChangeProbability) {
            clock += model.interKey.sample(&rng)
            let scope = model.scopes[Int(rng.next() % UInt64(model.scopes.count))]
            planned.append(TypingEvent(at: clock, action: .scope(scope)))
        }
        let words = model.vocabulary
        let target = words[Int(rng.next() % UInt64(words.count))]
        for character in target {
            clock += model.interKey.sample(&rng)
            if rng.chance(model.pauseProbability) { clock += model.pause.sample(&rng) }
            if character != " ", rng.chance(model.typoProbability) {
                let typo = Character(Unicode.Scalar(UInt8(97 + rng.next() % 26)))
                text.append(typo)
                planned.append(TypingEvent(at: clock, action: .edit(key: String(typo), text: text)))
                clock += model.interKey.sample(&rng) * 2
                text.removeLast()
                planned.append(TypingEvent(at: clock, action: .edit(key: "⌫", text: text)))
                clock += model.interKey.sample(&rng)
            }
            text.append(character)
            planned.append(TypingEvent(at: clock, action: .edit(key: String(character), text: text)))
        }
        if rng.chance(model.submitProbability) {
            clock += model.interKey.sample(&rng)
            planned.append(TypingEvent(at: clock, action: .submit))
        }
        return true
    }
}
