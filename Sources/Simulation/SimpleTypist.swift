import FieldRuntime
import Typists

/// A simple typing model (what `simulate` types with; scenario runners type with the Typists
/// module's population): a few queries per session, each typed letter by letter at a log-normal
/// pace, with typos corrected by backspace, occasional pauses mid-word, a settle pause after each
/// query, then a clear.
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
        SimpleTypist(model: SharedModel(self), rng: SeededGenerator(seed: seed, stream: index))
    }

    /// Sessions of many typists sharing one copy of the model.
    public func sessions(seed: UInt64, typists: Range<Int>) -> [SimpleTypist] {
        let shared = SharedModel(self)
        return typists.map { SimpleTypist(model: shared, rng: SeededGenerator(seed: seed, stream: UInt64($0))) }
    }
}

/// The model and its vocabulary as scalars, shared by every typist of a run (immutable, hence
/// `Sendable`), so a typist carries one reference instead of a copy of the word lists.
final class SharedModel: Sendable {
    let model: SimpleTypingModel
    let words: [[Unicode.Scalar]]
    /// The key name of each scalar of each word, and of the typo letters `a`–`z`, made once.
    let keys: [[String]]
    let typoKeys: [String]
    /// Every prefix of every word (`prefixes[word][n]`: its first `n` scalars): the field's text
    /// whenever no typo is pending, shared instead of decoded from bytes on each keystroke.
    let prefixes: [[String]]

    init(_ model: SimpleTypingModel) {
        self.model = model
        words = model.vocabulary.map { Array($0.unicodeScalars) }
        keys = words.map { $0.map { String($0) } }
        typoKeys = (0..<26).map { String(Unicode.Scalar(UInt8(97 + $0))) }
        prefixes = words.map { scalars in
            (0...scalars.count).map { count in
                var text = String.UnicodeScalarView()
                text.append(contentsOf: scalars.prefix(count))
                return String(text)
            }
        }
    }
}

/// One typist of the simple model. Produces one event per call from a handful of fields, so a
/// typist costs a few dozen bytes and no allocation per keystroke beyond its text.
///
/// The field's text lives as UTF-8 bytes and each event gets a fresh `String` made from them:
/// up to 15 bytes that is a small (inline) string, which every later copy (event, strategy
/// state, effects, recorder) passes around without reference counting. A string edited in
/// place would keep its heap buffer and cost an atomic retain and release per copy.
public struct SimpleTypist: TypistSession, Sendable {
    let shared: SharedModel
    var rng: SeededGenerator
    var clock: Int64 = 0
    var bytes: [UInt8] = []
    var word = 0
    var position = 0
    var queriesLeft: Int
    var step = Step.notStarted

    /// Where the typist is in its session.
    enum Step: UInt8, Sendable {
        case notStarted, newQuery, maybeScope, typing, backspace, afterQuery, settle, ended
    }

    init(model: SharedModel, rng: SeededGenerator) {
        shared = model
        self.rng = rng
        queriesLeft = model.model.queriesPerSession
    }

    public mutating func next() -> TypingEvent? {
        // Reading through the class reference copies only the field used, not the whole model
        // (whose arrays would be retained and released on every call).
        let shared = self.shared
        while true {
            switch step {
            case .notStarted:
                clock = shared.model.startSpread.sample(&rng)
                step = .newQuery
            case .newQuery:
                guard queriesLeft > 0 else {
                    step = .ended
                    return TypingEvent(at: clock, action: .end)
                }
                queriesLeft -= 1
                word = Int(rng.next() % UInt64(shared.words.count))
                position = 0
                step = .maybeScope
                if !bytes.isEmpty {
                    bytes.removeAll(keepingCapacity: true)
                    return TypingEvent(at: clock, action: .edit(key: "⎋", text: ""))
                }
            case .maybeScope:
                step = .typing
                let scopes = shared.model.scopes
                if !scopes.isEmpty, rng.chance(shared.model.scopeChangeProbability) {
                    clock += shared.model.interKey.sample(&rng)
                    let scope = scopes[Int(rng.next() % UInt64(scopes.count))]
                    return TypingEvent(at: clock, action: .scope(scope))
                }
            case .typing:
                let scalars = shared.words[word]
                guard position < scalars.count else {
                    step = .afterQuery
                    continue
                }
                clock += shared.model.interKey.sample(&rng)
                if rng.chance(shared.model.pauseProbability) { clock += shared.model.pause.sample(&rng) }
                let scalar = scalars[position]
                if scalar != " ", rng.chance(shared.model.typoProbability) {
                    let letter = Int(rng.next() % 26)
                    bytes.append(UInt8(97 + letter))
                    step = .backspace
                    return TypingEvent(at: clock, action: .edit(key: shared.typoKeys[letter], text: Self.text(bytes)))
                }
                position += 1
                append(scalar)
                return TypingEvent(at: clock, action: .edit(key: shared.keys[word][position - 1], text: shared.prefixes[word][position]))
            case .backspace:
                clock += shared.model.interKey.sample(&rng) * 2
                removeLastScalar()
                step = .typing
                // The typo is gone: the field holds the word's prefix again.
                return TypingEvent(at: clock, action: .edit(key: "⌫", text: shared.prefixes[word][position]))
            case .afterQuery:
                step = .settle
                if rng.chance(shared.model.submitProbability) {
                    clock += shared.model.interKey.sample(&rng)
                    return TypingEvent(at: clock, action: .submit)
                }
            case .settle:
                clock += shared.model.settlePause.sample(&rng)
                step = .newQuery
            case .ended:
                return nil
            }
        }
    }

    /// The field's text, freshly made from its bytes (small, hence uncounted, up to 15 bytes).
    /// Read inside `next()` through the bytes alone: a computed property on `self` there made
    /// the optimizer copy the whole typist (and retain its model) for every keystroke.
    var text: String { Self.text(bytes) }

    @inline(__always)
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    private mutating func append(_ scalar: Unicode.Scalar) {
        if scalar.isASCII {
            bytes.append(UInt8(scalar.value))
        } else {
            bytes.append(contentsOf: UTF8.encode(scalar)!)
        }
    }

    /// Backspace: drops the last scalar (its UTF-8 continuation bytes, then its lead byte).
    private mutating func removeLastScalar() {
        while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
    }
}
