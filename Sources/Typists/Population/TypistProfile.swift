/// One drawn typist: who they are and how they type.
///
/// A pure function of (config, seed, typist index), so every process that asks for typist 7
/// gets the same profile.
public struct TypistProfile: Sendable, Hashable, Codable {
    /// The typist's index in the population; with the seed it determines the profile.
    public var index: Int
    /// Desktop (physical keyboard) or mobile (touch screen).
    public var device: DeviceClass
    /// The language the typist searches in, which picks the query list and the input method.
    public var language: TypingLanguage
    /// Copy-typing speed, drawn from the device's published distribution.
    public var wpm: Double
    /// The typist's mean inter-key interval when copying text: 12000 / WPM (× 1.03 on desktop).
    public var meanIKIMillis: Double
    /// Speed while composing a query relative to copying (intervals are divided by it).
    public var composingSpeedScale: Double
    /// How much longer the first key of a word takes.
    public var firstKeyFactor: Double
    /// Share of within-word keys pressed before the previous key is released (desktop).
    public var rolloverRate: Double
    /// Chance per key of hitting a neighbouring key instead (``DeviceParameters/slipRate``).
    public var slipRate: Double
    /// Chance that a slip is noticed and corrected (``DeviceParameters/noticeRate``).
    public var noticeRate: Double
    /// How the typist's intervals vary around the mean (log-normal unless the config says otherwise).
    public var intervalShape: IntervalShape

    /// The typist's mean interval while composing a query.
    public var composingMeanIKIMillis: Double { meanIKIMillis / composingSpeedScale }

    static func draw(index: Int, settings: PopulationSettings, rng: inout SeededGenerator) -> TypistProfile {
        let device = settings.drawDevice(&rng)
        let language = settings.drawLanguage(&rng)
        let parameters = device == .desktop ? settings.deviceDraws.desktop : settings.deviceDraws.mobile
        let wpm = parameters.wpm.sample(&rng)
        let composing = rng.nextUniform(settings.config.composingSpeedScale)
        let firstKey = min(max(parameters.firstKeyFactor + 0.15 * rng.nextStandardNormal(), 1.1), parameters.firstKeyFactorMax)
        // Rollover rises with speed: 25 % at the mean, 40–70 % for fast typists [D1].
        let meanWPM = parameters.wpm.mean
        let rollover = parameters.rolloverRate > 0
            ? min(max(parameters.rolloverRate * (1 + 0.024 * (wpm - meanWPM)), 0.02), 0.7)
            : 0
        return TypistProfile(
            index: index, device: device, language: language, wpm: wpm,
            meanIKIMillis: parameters.ikiNumeratorMillis / wpm,
            composingSpeedScale: composing, firstKeyFactor: firstKey, rolloverRate: rollover,
            slipRate: parameters.slipRate, noticeRate: parameters.noticeRate,
            intervalShape: parameters.intervalShape
        )
    }
}
