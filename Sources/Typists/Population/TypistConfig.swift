/// Every knob of a typist population, with the defaults and sources of docs/typing.md.
///
/// A scenario overrides what it needs; everything else keeps the published or estimated figure.
/// The population is a pure function of (config, query pool, seed), so a config must be the
/// same in every worker of a run.
public struct TypistConfig: Sendable, Hashable, Codable {
    /// Share of typists per device class (normalised; need not sum to 1).
    public var deviceShares: [DeviceClass: Double] = [.desktop: 0.5, .mobile: 0.5]
    /// Share of typists per language (normalised). Languages without a query pool are skipped.
    public var languageShares: [TypingLanguage: Double] = [.en: 1.0]
    /// Typing parameters of desktop typists (``DeviceParameters/desktop`` unless changed).
    public var desktop = DeviceParameters.desktop
    /// Typing parameters of mobile typists (``DeviceParameters/mobile`` unless changed).
    public var mobile = DeviceParameters.mobile
    /// How keys vary around the typist's mean; `nil` uses log-normal with the device's σ.
    public var intervalShape: IntervalShape? = nil
    /// Speed while composing a query relative to copying text: intervals are divided by a
    /// factor drawn uniformly from this range per typist [Karat 1999: 19 vs 32.5 WPM].
    public var composingSpeedScale: ClosedRange<Double> = 0.6...0.8

    /// Share of keys followed by a hesitation (log-normal, `hesitationMedian`, σ 0.6).
    public var hesitationRate = 0.03
    /// Median hesitation, in milliseconds.
    public var hesitationMedianMillis = 1200.0
    /// Share of word boundaries where the typist looks at the suggestions.
    public var suggestionLookRate = 0.15
    /// Median time spent looking at the suggestions, in milliseconds.
    public var suggestionLookMedianMillis = 600.0
    /// Focus to first key: log-normal, median 1.2 s, σ 0.5 [KLM].
    public var focusDelayMedianMillis = 1200.0
    /// Pause before Return.
    public var submitPauseMedianMillis = 500.0
    /// Share of queries that end with Return (the rest are read as you type and left or refined).
    public var submitRate = 0.8
    /// Reading the results before a follow-up query.
    public var readingPauseMedianMillis = 3000.0
    /// Chance that another query follows in the same session [Q1, Q7: 37–50 %].
    public var followUpRate = 0.43
    /// Of follow-ups, the share that refine the current text by adding words (the rest clear
    /// the field and type a new query).
    public var refineShare = 0.5
    /// At most this many queries in one session.
    public var maxQueriesPerSession = 6
    /// Clear the field part-way and type the query again.
    public var clearAndRetypeRate = 0.05
    /// Accept an autocomplete suggestion for the whole query part-way through.
    public var acceptSuggestionRate = 0.08
    /// Change the scope or the tokens part-way through a query (seeds 002 and 003).
    public var scopeOrTokenChangeRate = 0.05
    /// Scopes a typist may pick; the first change may also return to `nil` (all).
    public var scopes: [String] = ["products", "brands", "stores"]
    /// Tokens a typist may add.
    public var tokens: [String] = ["in-stock", "free-shipping", "on-sale"]
    /// Words per query (index 0 = one word; the last entry stands for "that many or more").
    /// [Q1–Q3]: 1: 25 %, 2: 33 %, 3: 22 %, 4: 11 %, 5: 5 %, 6+: 4 %.
    public var wordsPerQuery: [Double] = [0.25, 0.33, 0.22, 0.11, 0.05, 0.04]
    /// Pinyin: keep the Latin pinyin out of the field until the candidate pick (some IMEs keep
    /// it in a window of their own).
    public var pinyinInField = true
    /// Pinyin: per multi-character segment, chance of typing only the initials after the first
    /// syllable ("shouj" for 手机), and of typing initials only ("sj"). Calibrated so a typist
    /// averages about 2.2 keys per character [R1].
    public var pinyinAbbreviateRest = 0.45
    /// Pinyin: per multi-character segment, chance of typing the initials only ("sj" for 手机); see
    /// ``pinyinAbbreviateRest``.
    public var pinyinInitialsOnly = 0.5
    /// Median pause before a pinyin candidate pick [docs/typing.md, est.].
    public var candidatePickMedianMillis = 400.0
    /// Emit keys that leave the field unchanged (hidden pinyin, the 한/영 toggle). A search
    /// field's binding never sees them, so they are off by default; their time still passes.
    public var emitsUnchangedKeys = false

    /// The default configuration: the published figures of docs/typing.md, half desktop and half
    /// mobile, English only.
    public init() {}

    /// The typing parameters for `device`: ``desktop`` or ``mobile``.
    public func parameters(for device: DeviceClass) -> DeviceParameters {
        device == .desktop ? desktop : mobile
    }
}

/// Speed, error and timing figures for one device class.
public struct DeviceParameters: Sendable, Hashable, Codable {
    /// Words per minute across typists.
    public var wpm: TruncatedNormal
    /// Mean IKI = `ikiNumeratorMillis` / WPM (12000 ms = 60 s / 5 keys per word).
    public var ikiNumeratorMillis: Double
    /// σ of the log of a typist's own IKIs.
    public var ikiSigma: Double
    /// The first key of a word takes this much longer than the typist's mean (drawn per typist
    /// from a normal with SD 0.15, cut to [1.1, `firstKeyFactorMax`]).
    public var firstKeyFactor: Double
    /// Upper bound of the per-typist ``firstKeyFactor`` draw.
    public var firstKeyFactorMax: Double
    /// Key-pair effects (left-left, right-right, alternating hands, same key twice) in ms at
    /// the population mean, applied as ratios; `nil` on touch screens.
    public var keyPairMillis: KeyPairTimes?
    /// Share of keys pressed before the previous one is released, at the population's mean
    /// WPM, rising with speed; 0 on touch screens.
    public var rolloverRate: Double
    /// Slip: wrong neighbouring key with this chance per key; noticed with `noticeRate`.
    /// The first estimate was p ≈ 0.06 (desktop) and 0.062 (mobile); space, digits off the letter
    /// rows and picks never slip here, so desktop's p is 0.065, fitted with the notice delays
    /// to the published uncorrected-error rate and backspace share
    /// (`typestorm typists stats --device desktop`).
    public var slipRate: Double
    /// Chance that a slip is noticed and corrected with backspaces; unnoticed slips stay in the query.
    public var noticeRate: Double
    /// How many more keys are typed before a slip is noticed (0, 1, 2), as weights.
    public var noticeDelayWeights: [Double]
    /// Share of words finished by tapping a word prediction.
    public var predictionRate: Double
    /// Paste the query instead of typing it.
    public var pasteRate: Double

    /// Desktop (physical keyboard) typists, from the published copy-typing studies of docs/typing.md.
    public static let desktop = DeviceParameters(
        wpm: TruncatedNormal(mean: 51.56, standardDeviation: 20.2, bounds: 10...150),
        ikiNumeratorMillis: 12000 * 1.03,
        ikiSigma: 0.40,
        firstKeyFactor: 1.5,
        firstKeyFactorMax: 1.9,
        keyPairMillis: KeyPairTimes(leftLeft: 215, rightRight: 204, alternating: 198, sameKey: 176),
        rolloverRate: 0.25,
        slipRate: 0.065,
        noticeRate: 0.8,
        noticeDelayWeights: [0.55, 0.27, 0.18],
        predictionRate: 0,
        pasteRate: 0.03
    )

    /// Mobile (touch screen) typists, from the published copy-typing studies of docs/typing.md.
    public static let mobile = DeviceParameters(
        wpm: TruncatedNormal(mean: 36.17, standardDeviation: 13.22, bounds: 8...90),
        ikiNumeratorMillis: 12000,
        ikiSigma: 0.45,
        firstKeyFactor: 1.5,
        firstKeyFactorMax: 1.9,
        keyPairMillis: nil,
        rolloverRate: 0,
        slipRate: 0.062,
        noticeRate: 0.62,
        noticeDelayWeights: [0.5, 0.3, 0.2],
        predictionRate: 0.10,
        pasteRate: 0.01
    )
}

/// Within-word intervals by which hands type a key pair [D1].
public struct KeyPairTimes: Sendable, Hashable, Codable {
    /// Both keys typed with the left hand, in milliseconds.
    public var leftLeft: Double
    /// Both keys typed with the right hand, in milliseconds.
    public var rightRight: Double
    /// One key with each hand, in milliseconds.
    public var alternating: Double
    /// The same key twice, in milliseconds.
    public var sameKey: Double
}
