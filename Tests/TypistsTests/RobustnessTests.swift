import Testing
@testable import Typists

/// Every behaviour switched to its extreme at once: streams must stay well formed (times never
/// decrease, one end) and the generator must never trap.
@Suite("Robustness under extreme settings", .timeLimit(.minutes(5)))
struct RobustnessTests {
    @Test("everything at once, every language and device, both pinyin variants", arguments: [true, false])
    func extremes(_ pinyinInField: Bool) throws {
        var config = TypistConfig()
        config.languageShares = [.en: 1, .ko: 1, .zh: 1]
        config.deviceShares = [.desktop: 1, .mobile: 1]
        for device in [\TypistConfig.desktop, \TypistConfig.mobile] {
            config[keyPath: device].slipRate = 0.5
            config[keyPath: device].noticeRate = 0.5
            config[keyPath: device].pasteRate = 0.2
            config[keyPath: device].predictionRate = 1
        }
        config.clearAndRetypeRate = 0.5
        config.acceptSuggestionRate = 0.3
        config.scopeOrTokenChangeRate = 1
        config.hesitationRate = 0.5
        config.followUpRate = 0.9
        config.maxQueriesPerSession = 10
        config.emitsUnchangedKeys = true
        config.pinyinInField = pinyinInField
        config.intervalShape = .logLogistic(shape: 1.2)
        let population = try TypistPopulation(config: config, queries: Support.shippedPool, seed: 404)
        for index in 0..<300 {
            var session = population.session(forTypist: index)
            let events = Support.events(&session)
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.at <= $1.at })
            #expect(events.last?.action == .end)
            #expect(events.filter { $0.action == .end }.count == 1)
        }
    }
}
