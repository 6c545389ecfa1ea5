import Foundation
@testable import Typists

/// Paths and populations shared by the tests.
enum Support {
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let queriesDirectory = repositoryRoot + "/Datasets/queries"
    static let tracesDirectory = repositoryRoot + "/Datasets/traces"

    /// The shipped query lists, loaded once.
    static let shippedPool: QueryPool = {
        do {
            return try QueryPool.load(directory: queriesDirectory)
        } catch {
            fatalError("the shipped query lists must load: \(error)")
        }
    }()

    /// A config with only one device and language, and optionally every pause and error off.
    static func config(device: DeviceClass, language: TypingLanguage = .en, quiet: Bool = false) -> TypistConfig {
        var config = TypistConfig()
        config.deviceShares = [device: 1]
        config.languageShares = [language: 1]
        if quiet {
            config.hesitationRate = 0
            config.suggestionLookRate = 0
            config.scopeOrTokenChangeRate = 0
            config.clearAndRetypeRate = 0
            config.acceptSuggestionRate = 0
            config.composingSpeedScale = 1...1
            config.desktop.pasteRate = 0
            config.mobile.pasteRate = 0
            config.mobile.predictionRate = 0
        }
        return config
    }

    /// A config in which nothing goes wrong and nothing but typing happens: one query, typed.
    static func flawless(language: TypingLanguage) -> TypistConfig {
        var config = self.config(device: .desktop, language: language, quiet: true)
        config.desktop.slipRate = 0
        config.followUpRate = 0
        config.submitRate = 1
        return config
    }

    static func events(_ session: inout some TypistSession) -> [TypingEvent] {
        var events: [TypingEvent] = []
        while let event = session.next() { events.append(event) }
        return events
    }

    static func texts(_ events: [TypingEvent]) -> [String] {
        events.compactMap { if case let .edit(_, text) = $0.action { return text.string } else { return nil } }
    }
}
