/// A strategy to run: a preset, its knobs, and the name it is reported under.
public struct StrategySpec: Hashable, Sendable, CustomStringConvertible {
    /// The name the strategy is reported under (its group in the record).
    public var name: String
    /// The preset the strategy runs (docs/strategies.md).
    public var preset: Preset
    /// The knobs it runs with.
    public var configuration: SearchFieldConfiguration

    /// A strategy running `preset` with `configuration` (`nil`: the preset's default), reported as
    /// `name` (`nil`: the preset's name).
    public init(name: String? = nil, preset: Preset, configuration: SearchFieldConfiguration? = nil) {
        self.name = name ?? preset.rawValue
        self.preset = preset
        self.configuration = configuration ?? preset.defaultConfiguration
    }

    /// `split-state`, or a preset with variants: `+write-back` (seed 001), `+text-keyed` (seed
    /// 002's identity-blind restart), `+cache` (a 32-entry client LRU cache).
    public static func parse(_ text: String) -> StrategySpec? {
        let parts = text.split(separator: "+").map(String.init)
        guard let first = parts.first, let preset = Preset(rawValue: first) else { return nil }
        var configuration = preset.defaultConfiguration
        for variant in parts.dropFirst() {
            switch variant {
            case "write-back": configuration.writeBack = true
            case "text-keyed": configuration.restartKey = .text
            case "cache": configuration.cacheCapacity = 32
            default: return nil
            }
        }
        return StrategySpec(name: text, preset: preset, configuration: configuration)
    }

    /// The variants ``parse(_:)`` accepts after a `+`.
    public static let variants = ["write-back", "text-keyed", "cache"]

    public var description: String { name }
}
