import Foundation

/// The factory that runners use: typist `index` of a run, from (config, queries, seed) only.
///
/// Nothing depends on which other typists were drawn or in what order, so a driver may hand
/// typists 0..<500 to one worker and 500..<1000 to another, on any machine, and the keys typed
/// are the same as in one process.
///
/// Everything but the seed is kept behind one reference (`settings`), so that copying a
/// population, as a runner does for every session it makes, retains one object.
public struct TypistPopulation: Sendable {
    /// The typing parameters every typist is drawn from.
    public var config: TypistConfig { settings.config }
    /// The phrases typists search for, per language.
    public var queries: QueryPool { settings.queries }
    /// The population's seed: with a typist's index it fixes everything that typist types.
    public let seed: UInt64
    /// Languages typists can be drawn in: those with a share and a query list.
    public var languages: [TypingLanguage] { settings.languageList }

    /// What every session of this population shares, behind one reference.
    let settings: PopulationSettings
    /// `SeededGenerator.streamBase(seed:)` of `seed`, which every typist's streams start from.
    let streamBase: UInt64

    /// A population drawing from `config` and `queries` under `seed`. Throws
    /// ``QueryPoolError/invalid(_:)`` naming the problems of `config`, a language with a share but no
    /// query list, or shares that leave no language or no device class.
    public init(config: TypistConfig = TypistConfig(), queries: QueryPool, seed: UInt64) throws {
        let problems = config.problems()
        guard problems.isEmpty else { throw QueryPoolError.invalid("typist config: " + problems.joined(separator: "; ")) }
        let wanted = TypingLanguage.allCases.filter { (config.languageShares[$0] ?? 0) > 0 }
        guard !wanted.isEmpty else { throw QueryPoolError.invalid("no language has a positive share") }
        let missing = wanted.filter { queries.pools[$0] == nil }
        guard missing.isEmpty else {
            throw QueryPoolError.invalid("no queries for \(missing.map(\.rawValue).joined(separator: ", ")), which the language shares ask for")
        }
        guard DeviceClass.allCases.contains(where: { (config.deviceShares[$0] ?? 0) > 0 }) else {
            throw QueryPoolError.invalid("no device class has a positive share")
        }
        self.seed = seed
        self.settings = PopulationSettings(config: config, queries: queries, languages: wanted)
        streamBase = SeededGenerator.streamBase(seed: seed)
    }

    /// Who typist `index` is.
    public func profile(forTypist index: Int) -> TypistProfile {
        var rng = SeededGenerator(streamBase: streamBase, stream: UInt64(truncatingIfNeeded: index) &* 2)
        return TypistProfile.draw(index: index, settings: settings, rng: &rng)
    }

    /// The events typist `index` types, generated lazily (allocation-light: buffers are reused
    /// between queries, and a String is made only when an event is handed out).
    public func session(forTypist index: Int) -> GeneratedSession {
        let profile = profile(forTypist: index)
        let rng = SeededGenerator(streamBase: streamBase, stream: UInt64(truncatingIfNeeded: index) &* 2 &+ 1)
        return GeneratedSession(profile: profile, settings: settings, rng: rng)
    }
}

/// The config and lookup tables of a population, shared by its sessions through one reference
/// (no dictionary lookups and no array copies per session).
final class PopulationSettings: Sendable {
    let config: TypistConfig
    /// The population's phrases (the public `TypistPopulation.queries`).
    let queries: QueryPool
    /// The languages typists are drawn in (the public `TypistPopulation.languages`).
    let languageList: [TypingLanguage]
    /// Query pools indexed by `TypingLanguage` order.
    let pools: [LanguagePool?]
    let devices: [(DeviceClass, Double)]
    let languages: [(TypingLanguage, Double)]
    /// The sums of the shares in `devices` and `languages` (what drawing one divides up).
    let deviceShareTotal: Double
    let languageShareTotal: Double
    /// What drawing a typist and starting a session read of each device's parameters.
    let deviceDraws: (desktop: DeviceDraw, mobile: DeviceDraw)
    /// Each device's `noticeDelayWeights`, read without copying the device's parameters.
    let noticeDelayWeights: (desktop: [Double], mobile: [Double])
    /// The sums of `noticeDelayWeights` and of the config's `wordsPerQuery` (what drawing
    /// from them divides up).
    let noticeDelayTotals: (desktop: Double, mobile: Double)
    let wordsPerQueryTotal: Double
    let samplers: (desktop: IntervalShape.Sampler, mobile: IntervalShape.Sampler)
    /// Each device's within-word key-pair factors (`KeyPairFactors`).
    let pairFactors: (desktop: KeyPairFactors, mobile: KeyPairFactors)
    /// Log-normal pauses by σ: a unit-mean sampler and the factor that makes its median 1.
    let pauses: [(sampler: IntervalShape.Sampler, unitMedian: Double)]
    /// `TypingKey`'s names of the keys below U+3200, for `GeneratedSession.next()`.
    let keyNames = TypingKey.names
    /// The same names as the bits of their `String` values, in memory of the settings' own,
    /// which a session reads through a pointer (see `KeyNameBits`).
    nonisolated(unsafe) let keyNameBits: UnsafeMutablePointer<KeyNameBits>

    /// `SeededGenerator.threshold(_:)` of the config's per-key hesitation and suggestion-look
    /// rates.
    let hesitationThreshold: UInt64
    let suggestionLookThreshold: UInt64

    /// The σ of the log of each kind of pause (docs/typing.md: focus 0.5, hesitation 0.6, …).
    enum PauseShape: Int {
        case sigma04, sigma05, sigma06, sigma07
    }

    init(config: TypistConfig, queries: QueryPool, languages: [TypingLanguage]) {
        self.config = config
        self.queries = queries
        languageList = languages
        pools = TypingLanguage.allCases.map { queries.pools[$0] }
        devices = DeviceClass.allCases.map { ($0, max(config.deviceShares[$0] ?? 0, 0)) }
        self.languages = languages.map { ($0, max(config.languageShares[$0] ?? 0, 0)) }
        deviceShareTotal = devices.reduce(0.0) { $0 + $1.1 }
        languageShareTotal = self.languages.reduce(0.0) { $0 + $1.1 }
        deviceDraws = (DeviceDraw(config.desktop, intervalShape: config.intervalShape), DeviceDraw(config.mobile, intervalShape: config.intervalShape))
        noticeDelayWeights = (config.desktop.noticeDelayWeights, config.mobile.noticeDelayWeights)
        noticeDelayTotals = (config.desktop.noticeDelayWeights.reduce(0, +), config.mobile.noticeDelayWeights.reduce(0, +))
        wordsPerQueryTotal = config.wordsPerQuery.reduce(0, +)
        samplers = (IntervalShape.Sampler(config.intervalShape ?? .logNormal(sigma: config.desktop.ikiSigma)),
                    IntervalShape.Sampler(config.intervalShape ?? .logNormal(sigma: config.mobile.ikiSigma)))
        pairFactors = (KeyPairFactors(config.desktop.keyPairMillis), KeyPairFactors(config.mobile.keyPairMillis))
        pauses = [0.4, 0.5, 0.6, 0.7].map { sigma in
            (IntervalShape.Sampler(.logNormal(sigma: sigma)), Foundation.exp(sigma * sigma / 2))
        }
        hesitationThreshold = SeededGenerator.threshold(config.hesitationRate)
        suggestionLookThreshold = SeededGenerator.threshold(config.suggestionLookRate)
        keyNameBits = .allocate(capacity: keyNames.count)
        for (code, name) in keyNames.enumerated() { keyNameBits[code] = KeyNameBits(name) }
        // The normal table that drawing a profile reads: made here, with the population's other
        // tables, rather than inside the first session a runner starts.
        _ = NormalQuantiles.table
    }

    deinit {
        keyNameBits.deallocate()
        pairFactors.desktop.deallocate()
        pairFactors.mobile.deallocate()
    }

    func pool(_ language: TypingLanguage) -> LanguagePool {
        pools[language.index]!
    }

    /// A device class with probability proportional to its share (desktop if none has one).
    func drawDevice(_ rng: inout SeededGenerator) -> DeviceClass {
        Self.pick(devices, total: deviceShareTotal, &rng) ?? .desktop
    }

    /// A language with probability proportional to its share.
    func drawLanguage(_ rng: inout SeededGenerator) -> TypingLanguage {
        Self.pick(languages, total: languageShareTotal, &rng) ?? languages.first?.0 ?? .en
    }

    /// One of `choices` with probability proportional to its share; `total` is the sum of
    /// the shares, and no number is drawn when it is not positive.
    @inline(__always)
    private static func pick<T>(_ choices: [(T, Double)], total: Double, _ rng: inout SeededGenerator) -> T? {
        guard total > 0 else { return nil }
        var x = rng.nextUnit() * total
        for (choice, share) in choices {
            if share > 0 && x < share { return choice }
            x -= share
        }
        return choices.last { $0.1 > 0 }?.0
    }
}

/// What drawing a typist and starting a session read of a device's parameters, copied out of
/// the config once: plain numbers, so reading them copies no arrays.
struct DeviceDraw {
    let wpm: TruncatedNormal
    let ikiNumeratorMillis: Double
    let firstKeyFactor: Double
    let firstKeyFactorMax: Double
    let rolloverRate: Double
    let slipRate: Double
    let noticeRate: Double
    let pasteRate: Double
    let predictionRate: Double
    let intervalShape: IntervalShape
    /// `SeededGenerator.threshold(_:)` of `slipRate`.
    let slipThreshold: UInt64

    init(_ parameters: DeviceParameters, intervalShape: IntervalShape?) {
        wpm = parameters.wpm
        ikiNumeratorMillis = parameters.ikiNumeratorMillis
        firstKeyFactor = parameters.firstKeyFactor
        firstKeyFactorMax = parameters.firstKeyFactorMax
        rolloverRate = parameters.rolloverRate
        slipRate = parameters.slipRate
        noticeRate = parameters.noticeRate
        pasteRate = parameters.pasteRate
        predictionRate = parameters.predictionRate
        self.intervalShape = intervalShape ?? .logNormal(sigma: parameters.ikiSigma)
        slipThreshold = SeededGenerator.threshold(parameters.slipRate)
    }
}

extension TypingLanguage {
    /// The language's position in `allCases` (the order of `PopulationSettings.pools`).
    var index: Int {
        switch self {
        case .en: 0
        case .ko: 1
        case .zh: 2
        }
    }
}
