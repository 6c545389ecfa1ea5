import Foundation
import Typists

/// The scenario's typists as the Typists module draws them: one population per (device,
/// language) entry of the mix, all from the scenario seed.
///
/// Typist `i` belongs to the mix entry that `Population.mixEntry(forTypist:)` names and is
/// drawn as typist `i` of that entry's population, so it depends only on (seed, i): any split
/// over processes or machines types the same keys.
public struct ScenarioTypists: Sendable {
    /// Why the scenario's typists cannot be drawn (a mix entry without a typing model, a query list
    /// that does not load), with the scenario's JSON path in the description.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let population: Population
    /// The population of each mix entry, by its index in `population.mix` (entries with the
    /// same device and language share one).
    private let populations: [TypistPopulation]
    private let mixStride: Int

    /// - Parameter baseDirectory: the scenario's directory; `population.queryLists` is resolved
    ///   against it.
    public init(scenario: Scenario, baseDirectory: String) throws {
        try self.init(population: scenario.population, seed: scenario.seed, baseDirectory: baseDirectory)
    }

    /// The typists of `population` under `seed` (a scenario's, or one `typestorm simulate`
    /// builds from its flags): the same keys for the same population and seed.
    public init(population: Population, seed: UInt64, baseDirectory: String) throws {
        self.population = population
        let directory = try Self.queriesDirectory(population.queryLists, baseDirectory: baseDirectory)
        var populations: [String: TypistPopulation] = [:]
        for entry in population.mix where populations[Self.key(entry)] == nil {
            guard let device = DeviceClass(rawValue: entry.device.rawValue),
                  let language = TypingLanguage(rawValue: entry.language.rawValue) else {
                throw Failure(description: "$.population.mix: \(entry.device.rawValue)/\(entry.language.rawValue) has no typing model")
            }
            var config = TypistConfig()
            config.deviceShares = [device: 1]
            config.languageShares = [language: 1]
            config.maxQueriesPerSession = max(1, population.queriesPerSession)
            do {
                let pool = try QueryPool.load(directory: directory, languages: [language])
                populations[Self.key(entry)] = try TypistPopulation(config: config, queries: pool, seed: seed)
            } catch {
                throw Failure(description: "$.population.queryLists (\(directory)): \(error)")
            }
        }
        self.populations = population.mix.map { populations[Self.key($0)]! }
        mixStride = Population.mixStride(typists: population.typists)
    }

    /// Typist `index`'s session, cut at the scenario's `session.maxLength` if it has one.
    public func session(forTypist index: Int) -> DeadlineSession<GeneratedSession> {
        let session = populations[population.mixIndex(forTypist: index, stride: mixStride)].session(forTypist: index)
        return DeadlineSession(base: session, limit: population.maximumSessionNanos ?? .max)
    }

    /// Typist `index`'s typing in a phase: its session, or with arrival `stages` (or
    /// `session.repeat`) session after session until the schedule or the phase's end sends it
    /// away (`ContinuingSession`).
    package func typing(forTypist index: Int) -> ContinuingSession {
        let continues = if case .stages = population.arrival { true } else { population.repeatsSessions }
        return ContinuingSession(typists: self, typist: index, stride: continues ? max(1, population.typists) : 0)
    }

    private static func key(_ entry: Population.MixEntry) -> String {
        "\(entry.device.rawValue)-\(entry.language.rawValue)"
    }

    /// The query lists: `queryLists` from the scenario (relative to its directory), else the
    /// shipped `Datasets/queries` (`ShippedData`: beside the scenario, `$TYPESTORM_HOME`, beside
    /// the executable).
    public static func queriesDirectory(_ configured: String?, baseDirectory: String) throws -> String {
        if let configured {
            let path = ScenarioCatalog.path(configured, baseDirectory: baseDirectory)
            guard FileManager.default.fileExists(atPath: path) else {
                throw Failure(description: "$.population.queryLists: no directory at \(path)")
            }
            return path
        }
        do {
            return try ShippedData.find(ShippedData.queries, scenarioDirectory: baseDirectory)
        } catch {
            throw Failure(description: "$.population.queryLists: not given, and \(error)")
        }
    }
}
