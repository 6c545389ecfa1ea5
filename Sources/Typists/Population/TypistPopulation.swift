import Foundation

/// The factory that runners use: typist `index` of a run, from (config, queries, seed) only.
///
/// Nothing depends on which other typists were drawn or in what order, so a driver may hand
/// typists 0..<500 to one worker and 500..<1000 to another, on any machine, and the keys typed
/// are the same as in one process.
public struct TypistPopulation: Sendable {
    /// The typing parameters every typist is drawn from.
    public let config: TypistConfig
    /// The phrases typists search for, per language.
    public let queries: QueryPool
    /// The population's seed: with a typist's index it fixes everything that typist types.
    public let seed: UInt64
    /// Languages typists can be drawn in: those with a share and a query list.
    public let languages: [TypingLanguage]

    /// What every session of this population shares, behind one reference.
    let settings: PopulationSettings

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
        self.config = config
        self.queries = queries
        self.seed = seed
        self.languages = wanted
        self.settings = PopulationSettings(config: config, pools: queries.pools, languages: wanted)
    }

    /// Who typist `index` is.
    public func profile(forTypist index: Int) -> TypistProfile {
        var rng = SeededGenerator(seed: seed, stream: UInt64(truncatingIfNeeded: index) &* 2)
        return TypistProfile.draw(index: index, settings: settings, rng: &rng)
    }

    /// The events typist `index` types, generated lazily (allocation-light: buffers are reused
    /// between queries, and a String is made only when an event is handed out).
    public func session(forTypist index: Int) -> GeneratedSession {
        let profile = profile(forTypist: index)
        let rng = SeededGenerator(seed: seed, stream: UInt64(truncatingIfNeeded: index) &* 2 &+ 1)
        return GeneratedSession(profile: profile, settings: settings, rng: rng)
    }
}

/// The config and lookup tables of a population, shared by its sessions through one reference
/// (no dictionary lookups and no array copies per session).
final class PopulationSettings: Sendable {
    let config: TypistConfig
    /// Query pools indexed by `TypingLanguage` order.
    let pools: [LanguagePool?]
    let devices: [(DeviceClass, Double)]
    let languages: [(TypingLanguage, Double)]
    let samplers: (desktop: IntervalShape.Sampler, mobile: IntervalShape.Sampler)
    /// Each device's within-word key-pair factors (`KeyPairFactors`).
    let pairFactors: (desktop: KeyPairFactors, mobile: KeyPairFactors)
    /// Log-normal pauses by σ: a unit-mean sampler and the factor that makes its median 1.
    let pauses: [(sampler: IntervalShape.Sampler, unitMedian: Double)]
    /// `TypingKey`'s names of the keys below U+3200, for `GeneratedSession.next()`.
    let keyNames = TypingKey.names
    /// The same names in memory of the settings' own, which a session reads through a pointer.
    nonisolated(unsafe) let keyNamePointer: UnsafeMutablePointer<String>

    /// `SeededGenerator.threshold(_:)` of the config's per-key hesitation and suggestion-look
    /// rates.
    let hesitationThreshold: UInt64
    let suggestionLookThreshold: UInt64

    /// The σ of the log of each kind of pause (docs/typing.md: focus 0.5, hesitation 0.6, …).
    enum PauseShape: Int {
        case sigma04, sigma05, sigma06, sigma07
    }

    init(config: TypistConfig, pools: [TypingLanguage: LanguagePool], languages: [TypingLanguage]) {
        self.config = config
        self.pools = TypingLanguage.allCases.map { pools[$0] }
        devices = DeviceClass.allCases.map { ($0, max(config.deviceShares[$0] ?? 0, 0)) }
        self.languages = languages.map { ($0, max(config.languageShares[$0] ?? 0, 0)) }
        samplers = (IntervalShape.Sampler(config.intervalShape ?? .logNormal(sigma: config.desktop.ikiSigma)),
                    IntervalShape.Sampler(config.intervalShape ?? .logNormal(sigma: config.mobile.ikiSigma)))
        pairFactors = (KeyPairFactors(config.desktop.keyPairMillis), KeyPairFactors(config.mobile.keyPairMillis))
        pauses = [0.4, 0.5, 0.6, 0.7].map { sigma in
            (IntervalShape.Sampler(.logNormal(sigma: sigma)), Foundation.exp(sigma * sigma / 2))
        }
        hesitationThreshold = SeededGenerator.threshold(config.hesitationRate)
        suggestionLookThreshold = SeededGenerator.threshold(config.suggestionLookRate)
        keyNamePointer = .allocate(capacity: keyNames.count)
        keyNamePointer.initialize(from: keyNames, count: keyNames.count)
        // The normal table that drawing a profile reads: made here, with the population's other
        // tables, rather than inside the first session a runner starts.
        _ = NormalQuantiles.table
    }

    deinit {
        keyNamePointer.deinitialize(count: keyNames.count)
        keyNamePointer.deallocate()
        pairFactors.desktop.deallocate()
        pairFactors.mobile.deallocate()
    }

    func pool(_ language: TypingLanguage) -> LanguagePool {
        pools[TypingLanguage.allCases.firstIndex(of: language)!]!
    }
}
