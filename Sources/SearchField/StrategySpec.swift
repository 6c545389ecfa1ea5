/// A strategy to run: a preset, its knobs, and the name it is reported under.
public struct StrategySpec: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var preset: Preset
    public var configuration: SearchFieldConfiguration

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

    public static let variants = ["write-back", "text-keyed", "cache"]

    public var description: String { name }
}
