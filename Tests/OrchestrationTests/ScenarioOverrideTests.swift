import Testing
@testable import Orchestration

@Suite("Scenario overrides", .timeLimit(.minutes(5)))
struct ScenarioOverrideTests {
    let file = Array(virtualScenarioJSON(typists: 120).utf8)

    func read(_ overrides: [ScenarioOverride]) throws(ScenarioError) -> Scenario {
        try ScenarioReader.read(bytes: file, file: "v.json", overrides: overrides)
    }

    @Test func namedOverridesChangeTheScenarioAndItsHash() throws {
        let plain = try read([])
        let changed = try read([.typists(40), .duration("5s"), .seed("77"), .strategies(["split-state", "throttle"])])
        #expect(changed.population.typists == 40)
        #expect(changed.durationNanos == 5_000_000_000)
        #expect(changed.seed == 77)
        #expect(changed.strategies.map(\.name) == ["split-state", "throttle"])
        #expect(changed.strategies[0].debounceNanos == 250_000_000, "a strategy the scenario has keeps its knobs")
        #expect(changed.hash != plain.hash)
        #expect(changed.canonicalJSON.canonical.contains(#""typists":40"#))
        let url = try read([.url("http://127.0.0.1:7700/search?q={query}")])
        #expect(url.runners == [.httpURL(template: "http://127.0.0.1:7700/search?q={query}")])
    }

    @Test func setTakesPathsWithKeysAndIndices() throws {
        let scenario = try read([
            try .assignment("backend.workers=9"),
            try .assignment("strategies[1].debounce=120ms"),
            try .assignment("strategies.0.minLength=2"),
            try .assignment("population.arrival={\"kind\": \"ramp\", \"over\": \"2s\"}"),
            try .assignment("description=a changed run"),
        ])
        #expect(scenario.backend.workers == 9)
        #expect(scenario.strategies[1].debounceNanos == 120_000_000)
        #expect(scenario.strategies[0].minimumLength == 2)
        #expect(scenario.population.arrival == .ramp(overNanos: 2_000_000_000))
        #expect(scenario.description == "a changed run")
    }

    @Test func badOverridesFailLikeTheFileWithThePathAndTheFlag() throws {
        #expect(throws: ScenarioError.self) { try read([.typists(-1)]) }
        do {
            _ = try read([try .assignment("population.typists=ten")])
            Issue.record("expected an error")
        } catch {
            #expect(error.issues.map(\.path) == ["$.population.typists"])
            #expect(error.description.contains("with --set population.typists=ten"), "\(error.description)")
        }
        do {
            _ = try read([try .assignment("backend.wrokers=3")])
            Issue.record("expected an error")
        } catch {
            #expect(error.issues.first?.message.contains("did you mean \"workers\"") == true, "\(error.description)")
        }
        do {
            _ = try read([try .assignment("strategies[5].debounce=1s")])
            Issue.record("expected an error")
        } catch {
            #expect(error.issues.map(\.path) == ["$.strategies[5]"])
        }
        do {
            _ = try read([.url("http://127.0.0.1:99999/s?q={query}")])
            Issue.record("expected an error")
        } catch {
            #expect(error.issues.map(\.path) == ["$.runners[0].url"])
        }
        #expect(throws: ScenarioError.self) { try ScenarioOverride.assignment("no-equals-sign") }
        #expect(throws: ScenarioError.self) { try ScenarioOverride.assignment("a[x]=1") }
    }
}

@Suite("Abort thresholds in the scenario", .timeLimit(.minutes(5)))
struct AbortThresholdReaderTests {
    @Test func abortIsReadAndWrittenBack() throws {
        let json = httpURLScenarioJSON(url: "http://127.0.0.1:7700/s?q={query}", thresholds: #"[{"metric": "failed_share", "max": 0.2, "abort": true}]"#)
        let scenario = try ScenarioReader.read(json: json)
        #expect(scenario.thresholds == [Threshold(metric: "failed_share", maximum: 0.2, abort: true)])
        #expect(scenario.canonicalJSON.canonical.contains(#""abort":true"#))
        #expect(try ScenarioReader.read(json: scenario.canonicalJSON.canonical) == scenario)
    }
}
