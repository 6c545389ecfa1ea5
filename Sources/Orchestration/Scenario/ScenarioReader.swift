import JSONReading
import Diagnostics
import FieldHarness
import FieldRuntime
import LiveLoad
import TypestormMetrics

/// Reads a scenario from JSON, checking every key, type and value, and naming the JSON path of
/// each mistake together with what was expected.
///
/// All problems are collected before failing, so a user fixes a file in one pass.
public enum ScenarioReader {
    /// Reads and checks the scenario JSON `text`; `file` names it in errors. Throws
    /// ``ScenarioError`` listing every problem with its JSON path.
    public static func read(json text: String, file: String? = nil) throws(ScenarioError) -> Scenario {
        try read(bytes: Array(text.utf8), file: file)
    }

    /// Reads and checks a scenario from UTF-8 JSON `bytes`; `file` names it in errors. Throws
    /// ``ScenarioError`` listing every problem with its JSON path.
    public static func read(bytes: [UInt8], file: String? = nil) throws(ScenarioError) -> Scenario {
        try read(try parse(bytes, file: file), file: file)
    }

    private static func parse(_ bytes: [UInt8], file: String?) throws(ScenarioError) -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw ScenarioError(file: file, issues: [.init(path: "$", message: "not valid JSON: \(error)")])
        }
    }

    package static func read(_ document: JSONValue, file: String? = nil) throws(ScenarioError) -> Scenario {
        let context = Context()
        let scenario = context.scenario(document)
        guard context.issues.isEmpty, let scenario else {
            throw ScenarioError(file: file, issues: context.issues)
        }
        return scenario
    }

    /// Reads a file holding exactly a scenario's `backend` object (the same keys, checked the
    /// same way, paths from `$`), e.g. a calibrated model of the user's own API.
    public static func readBackend(bytes: [UInt8], file: String? = nil) throws(ScenarioError) -> ScenarioBackend {
        let document = try parse(bytes, file: file)
        let context = Context()
        let backend = context.object(document, at: "$").map { context.backendModel($0) }
        guard context.issues.isEmpty, let backend else {
            throw ScenarioError(file: file, issues: context.issues)
        }
        return backend
    }
}

/// The validating decoder's state: the problems found so far.
private final class Context {
    var issues: [ScenarioError.Issue] = []

    func fail(_ path: String, _ message: String) {
        issues.append(.init(path: path, message: message))
    }

    func object(_ value: JSONValue, at path: String) -> Fields? {
        guard case let .object(members) = value else {
            fail(path, "expected an object, found \(value.brief)")
            return nil
        }
        return Fields(context: self, path: path, members: members)
    }

    func scenario(_ document: JSONValue) -> Scenario? {
        guard let fields = object(document, at: "$") else { return nil }
        defer { fields.finish() }
        if let version = fields.int("schema", in: 1...Int.max), version != Scenario.schemaVersion {
            fail(fields.path("schema"), "this build reads scenario schema \(Scenario.schemaVersion), found \(version)")
        }
        let name = fields.string("name", required: true) { text in
            text.isEmpty || !text.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) })
                ? "letters, digits, '-', '_' or '.' (it names the run directory)" : nil
        }
        let description = fields.string("description")
        let seed = fields.uint64("seed", required: true)
        let duration = fields.duration("duration", required: true, minimum: 1_000_000)
        let processes = fields.int("processes", in: 1...256) ?? 1
        let catalog: CatalogSource? = fields.nested("catalog", required: true) { self.catalogSource($0) } ?? nil
        let population: Population? = fields.nested("population", required: true) { self.population($0) } ?? nil
        let strategies = fields.array("strategies", required: true, nonEmpty: true) { item, path in strategy(item, at: path) }
        let runners = fields.array("runners", required: true, nonEmpty: true) { item, path in runner(item, at: path) }
        let backend = fields.nested("backend") { backendModel($0) } ?? ScenarioBackend()
        let thresholds = fields.array("thresholds") { item, path in threshold(item, at: path) } ?? []
        let driver = fields.nested("driver") { driverSettings($0) } ?? DriverSettings()

        if let strategies {
            var seen: [String: Int] = [:]
            for (index, strategy) in strategies.enumerated() {
                if let first = seen[strategy.name] {
                    fail("$.strategies[\(index)].name", "strategy name \"\(strategy.name)\" is already used by $.strategies[\(first)]; give each a unique \"name\"")
                } else {
                    seen[strategy.name] = index
                }
            }
            _ = strategies
        }
        if let runners {
            for (index, runner) in runners.enumerated() {
                if let first = runners.firstIndex(of: runner), first < index {
                    fail("$.runners[\(index)]", "the same runner as $.runners[\(first)]; each phase must differ (their measurements would be merged)")
                }
            }
        }
        if let strategies, let runners, let field = strategies.firstIndex(where: { !$0.isPreset }),
           let virtual = runners.firstIndex(of: .virtual), let live = runners.firstIndex(where: { $0 != .virtual }) {
            fail("$.runners[\(max(virtual, live))]", "$.strategies[\(field)] is \"\(strategies[field].preset)\", a field of yours: it runs in virtual time (on Typestorm's executors) or live (on Swift's own), not both in one run; put the virtual runner and the \(runners[live].kind) runner in two scenarios and compare their runs")
        }
        if let strategies {
            let seen = Set(strategies.map(\.name))
            for (index, threshold) in thresholds.enumerated() {
                if let name = threshold.strategy, !seen.contains(name) {
                    let hint = Suggestion.closest(to: name, among: seen.sorted(), ignoringCase: true).map { "; did you mean \"\($0)\"?" } ?? ""
                    fail("$.thresholds[\(index)].strategy", "no strategy is named \"\(name)\"\(hint)")
                }
            }
        }
        guard let name, let seed, let duration, let catalog, let population, let strategies, let runners else { return nil }
        return Scenario(
            name: name, description: description, seed: seed, durationNanos: duration, processes: processes,
            catalog: catalog, population: population, strategies: strategies, runners: runners,
            backend: backend, thresholds: thresholds, driver: driver)
    }

    func catalogSource(_ fields: Fields) -> CatalogSource? {
        let hasFile = fields.has("file"), hasGenerate = fields.has("generate")
        if hasFile == hasGenerate {
            fields.mark(["file", "generate"])
            fields.finish()
            fail(fields.path, hasFile ? "give either \"file\" or \"generate\", not both" : "expected \"file\" (a catalog path) or \"generate\" (generator settings)")
            return nil
        }
        fields.mark(["file", "generate"])
        defer { fields.finish() }
        if hasFile {
            return fields.string("file", required: true) { $0.isEmpty ? "a non-empty path" : nil }.map { .file($0) }
        }
        return fields.nestedObject("generate", required: true) { generator in
            let items = generator.int("items", required: true, in: 1...100_000_000)
            let seed = generator.uint64("seed") ?? 1
            var languages: [CatalogSource.LanguageShare] = ScenarioLanguage.allCases.map { .init(language: $0, share: $0 == .en ? 0.6 : 0.2) }
            if let given = generator.nested("languages", { shares in languageShares(shares) }), let given {
                languages = given
            }
            return items.map { CatalogSource.generate(items: $0, seed: seed, languages: languages) }
        } ?? nil
    }

    func languageShares(_ fields: Fields) -> [CatalogSource.LanguageShare]? {
        var result: [CatalogSource.LanguageShare] = []
        for language in ScenarioLanguage.allCases {
            if let share = fields.double("\(language.rawValue)", in: 0...1) { result.append(.init(language: language, share: share)) }
        }
        fields.finish()
        let total = result.reduce(0) { $0 + $1.share }
        if abs(total - 1) > 1e-6 {
            fail(fields.path, "language shares must add up to 1, they add up to \(total)")
            return nil
        }
        return result.filter { $0.share > 0 }
    }

    func population(_ fields: Fields) -> Population? {
        defer { fields.finish() }
        // With arrival stages, the stages say how many typists come; `typists` may be left out.
        let stagesGiven = fields.members.contains { member in
            guard member.key == "arrival", case let .object(arrival) = member.value else { return false }
            return arrival.contains { $0.key == "stages" }
        }
        var typists = fields.int("typists", required: !stagesGiven, in: 1...10_000_000)
        var mix = fields.array("mix", nonEmpty: true) { item, path -> Population.MixEntry? in
            guard let entry = object(item, at: path) else { return nil }
            defer { entry.finish() }
            let device = entry.choice("device", Device.self) ?? .desktop
            let language = entry.choice("language", ScenarioLanguage.self) ?? .en
            guard let share = entry.double("share", required: true, in: 0...1, exclusiveLower: true) else { return nil }
            var network: NetworkProfile?
            if entry.has("network") {
                guard let name = entry.choice("network", among: NetworkProfile.all.map(\.name)) else { return nil }
                network = NetworkProfile.named(name)
            }
            return .init(device: device, language: language, share: share, network: network)
        }
        if let entries = mix {
            let total = entries.reduce(0) { $0 + $1.share }
            if abs(total - 1) > 1e-6 {
                fail(fields.path("mix"), "shares must add up to 1, they add up to \(total)")
                mix = nil
            }
        } else if !fields.has("mix") {
            mix = [.init(device: .desktop, language: .en, share: 1)]
        }
        fields.mark(["arrival"])
        let arrival: Population.Arrival? = fields.has("arrival")
            ? (fields.nested("arrival") { self.arrival($0) } ?? nil)
            : .allAtOnce
        if case let .stages(stages)? = arrival {
            let needed = ArrivalSchedule.arrivalCount(stages)
            if let given = typists, given < needed {
                fail(fields.path("typists"), "the arrival stages bring \(needed) typists into the field; expected at least \(needed), or leave \"typists\" out")
                typists = nil
            } else if typists == nil, !fields.has("typists") {
                typists = needed
            }
        }
        var queries = 1
        var maximum: Int64?
        var repeats = false
        _ = fields.nestedObject("session") { session in
            queries = session.int("queries", in: 1...1_000) ?? 1
            maximum = session.duration("maxLength", minimum: 1_000_000)
            repeats = session.bool("repeat") ?? false
        }
        let queryLists = fields.string("queryLists")
        guard let typists, let mix, let arrival else { return nil }
        var population = Population(typists: typists, mix: mix, arrival: arrival, queriesPerSession: queries, maximumSessionNanos: maximum,
                                    queryLists: queryLists)
        population.repeatsSessions = repeats
        return population
    }

    func arrival(_ fields: Fields) -> Population.Arrival? {
        defer { fields.finish() }
        // `{"stages": [...]}` alone, as in k6, means kind "stages".
        let kind: String?
        if !fields.has("kind"), fields.has("stages") {
            fields.mark(["kind"])
            kind = "stages"
        } else {
            kind = fields.choice("kind", among: ["all-at-once", "ramp", "rate", "stages"], required: true)
        }
        guard let kind else { return nil }
        switch kind {
        case "ramp":
            return fields.duration("over", required: true, minimum: 1).map { .ramp(overNanos: $0) }
        case "rate":
            return fields.double("perSecond", required: true, in: 0...1_000_000, exclusiveLower: true).map { .rate(perSecond: $0) }
        case "stages":
            guard let stages = fields.array("stages", required: true, nonEmpty: true, { item, path in stage(item, at: path) }) else {
                return nil
            }
            guard stages.contains(where: { $0.target > 0 }) else {
                fail(fields.path("stages"), "every stage's \"to\" is 0, so no typist would ever come; expected a stage with \"to\" of at least 1")
                return nil
            }
            let arrivals = ArrivalSchedule.arrivalCount(stages)
            guard arrivals <= 10_000_000 else {
                fail(fields.path("stages"), "the stages bring \(arrivals) typists into the field; expected at most 10000000")
                return nil
            }
            return .stages(stages)
        default:
            return .allAtOnce
        }
    }

    /// One arrival stage: `{"to": 200, "over": "30s"}`.
    func stage(_ value: JSONValue, at path: String) -> Population.Stage? {
        guard let fields = object(value, at: path) else { return nil }
        defer { fields.finish() }
        let target = fields.int("to", required: true, in: 0...10_000_000)
        let over = fields.duration("over", required: true, minimum: 0)
        guard let target, let over else { return nil }
        return Population.Stage(target: target, overNanos: over)
    }

    func strategy(_ value: JSONValue, at path: String) -> ScenarioStrategy? {
        guard let fields = object(value, at: path) else { return nil }
        defer { fields.finish() }
        let preset = fields.choice("preset", among: ScenarioStrategy.presets + FieldRegistry.names, required: true)
        let name = fields.string("name") { $0.isEmpty || $0.contains(",") ? "a non-empty label without commas" : nil }
        let debounce = fields.duration("debounce", minimum: 0)
        let minimumLength = fields.int("minLength", in: 0...1_000)
        let trim = fields.bool("trim")
        let stalled = fields.duration("stalledDelay", minimum: 0)
        let cacheSize = fields.int("cacheSize", in: 0...10_000_000)
        let writeBack = fields.bool("writeBack")
        let parameters = fields.nested("parameters") { parameters -> [String: String] in
            var values: [String: String] = [:]
            for member in parameters.members {
                guard case let .string(text) = member.value else {
                    fail(parameters.path(member.key), "expected a string (a field parameter, e.g. \"150ms\"), found \(member.value.brief)")
                    continue
                }
                values[member.key] = text
            }
            return values
        }
        guard let preset else { return nil }
        var strategy = ScenarioStrategy(name: name, preset: preset, debounceNanos: debounce, minimumLength: minimumLength,
                                        trim: trim, stalledDelayNanos: stalled, cacheSize: cacheSize, writeBack: writeBack)
        if strategy.isPreset {
            if parameters != nil { fail(fields.path("parameters"), "parameters are for fields of yours; preset \"\(preset)\" takes debounce, minLength, trim, stalledDelay, cacheSize and writeBack") }
        } else {
            for (key, given) in [("trim", trim != nil), ("stalledDelay", stalled != nil), ("cacheSize", cacheSize != nil), ("writeBack", writeBack != nil)] where given {
                fail(fields.path(key), "\(key) is a preset's knob; \"\(preset)\" is a field of yours: give its knobs in \"parameters\"")
            }
            strategy.parameters = parameters ?? [:]
        }
        return strategy
    }

    func runner(_ value: JSONValue, at path: String) -> RunnerSpec? {
        guard let fields = object(value, at: path) else { return nil }
        defer { fields.finish() }
        guard let kind = fields.choice("kind", among: RunnerSpec.kinds, required: true) else { return nil }
        switch kind {
        case "virtual": return .virtual
        case "in-process": return .inProcess(fields.choice("backend", LiveBackendKind.self) ?? .engine)
        case "http-embedded":
            return .httpEmbedded(serverThreads: fields.int("serverThreads", in: 1...256) ?? 2,
                                 backend: fields.choice("backend", LiveBackendKind.self) ?? .engine)
        case "http-url":
            let request = httpRequest(fields)
            guard let url = fields.string("url", required: true) else { return nil }
            do { _ = try URLTemplate(url, requiresQuery: request.body == nil) } catch {
                fail(fields.path("url"), error.description)
                return nil
            }
            if request.client == .plain {
                if let refusal = HTTPClientChoice.plainRefusal(url: url) {
                    fail(fields.path("client"), refusal)
                } else if request.compressed {
                    fail(fields.path("client"), "the plain HTTP client decodes no compressed answers (\"compressed\": true); use \"curl\" or \"auto\"")
                }
            }
            return .httpURL(template: url, request: request)
        default:
            let pace = fields.choice("pace", among: ["fast", "realtime"]) ?? "fast"
            return .probe(realTime: pace == "realtime")
        }
    }

    func backendModel(_ fields: Fields) -> ScenarioBackend {
        defer { fields.finish() }
        var model = ScenarioBackend()
        model.workers = fields.int("workers", in: 1...100_000) ?? model.workers
        model.typistsPerServer = fields.int("typistsPerServer", in: 1...10_000_000) ?? model.typistsPerServer
        _ = fields.nestedObject("serviceTime") { service in
            model.serviceMedianNanos = service.duration("median", minimum: 0) ?? model.serviceMedianNanos
            model.serviceP99Nanos = service.duration("p99", minimum: 0) ?? model.serviceP99Nanos
            if model.serviceP99Nanos < model.serviceMedianNanos {
                fail(service.path("p99"), "expected a p99 at least the median (\(DurationText.format(model.serviceMedianNanos))), found \(DurationText.format(model.serviceP99Nanos))")
            }
        }
        model.networkRoundTripNanos = fields.duration("networkRTT", minimum: 0) ?? model.networkRoundTripNanos
        model.cancellation = fields.choice("cancellation", ScenarioBackend.Cancellation.self) ?? model.cancellation
        model.cancelDelayNanos = fields.duration("cancelDelay", minimum: 0) ?? model.cancelDelayNanos
        model.errorRate = fields.double("errorRate", in: 0...1) ?? model.errorRate
        model.timeoutNanos = fields.duration("timeout", minimum: 1_000_000) ?? model.timeoutNanos
        model.networkRTTSpread = fields.double("networkRTTSpread", in: 0...5) ?? model.networkRTTSpread
        _ = fields.nestedObject("slowTail") { tail in
            model.slowTailProbability = tail.double("probability", in: 0...1) ?? model.slowTailProbability
            model.slowTailFactor = tail.double("factor", in: 1...1_000_000) ?? model.slowTailFactor
        }
        model.transportErrorRate = fields.double("transportErrorRate", in: 0...1) ?? model.transportErrorRate
        _ = fields.nestedObject("localFilter") { local in
            model.localItems = Int64(local.int("items", in: 0...1_000_000_000) ?? Int(model.localItems))
            model.localNanosPerItem = local.double("nsPerItem", in: 0...1_000_000) ?? model.localNanosPerItem
        }
        model.sharedAcrossStrategies = fields.bool("sharedAcrossStrategies") ?? model.sharedAcrossStrategies
        return model
    }

    /// The `http-url` runner's request settings (`HTTPRequestSpec`).
    func httpRequest(_ fields: Fields) -> HTTPRequestSpec {
        var spec = HTTPRequestSpec()
        spec.preset = fields.choice("preset", SearchEnginePreset.self)
        spec.countPath = fields.string("count") { path in
            (try? JSONCountPath(path)) == nil ? "a JSON path such as total, hits.total.value or items.#" : nil
        }
        spec.caFile = fields.string("caFile") { $0.isEmpty ? "a PEM file path" : nil }
        spec.compressed = fields.bool("compressed") ?? false
        spec.client = fields.choice("client", HTTPClientChoice.self) ?? .auto
        spec.body = fields.string("body") { text in
            guard let template = try? BodyTemplate(text) else {
                return "a JSON body template with {query} and no unknown {placeholder}, e.g. {\"q\": \"{query}\"}"
            }
            // With the placeholders filled in, it must be JSON.
            return (try? JSONParser.parse(template.render(query: "q", scope: "s", tokens: ["t"]))) == nil
                ? "a body that is JSON once its placeholders are filled in (text placeholders go inside quotes)" : nil
        }
        spec.headers = fields.nested("headers") { headers -> [HTTPRequestSpec.Header] in
            return headers.members.compactMap { member -> HTTPRequestSpec.Header? in
                let path = headers.path(member.key)
                let tokenCharacters = "!#$%&'*+-.^_`|~"
                guard !member.key.isEmpty, member.key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || tokenCharacters.contains($0)) }) else {
                    fail(path, "not a header name (letters, digits and !#$%&'*+-.^_`|~)")
                    return nil
                }
                switch member.value {
                case let .string(text) where !text.contains("\r") && !text.contains("\n"):
                    return .init(name: member.key, value: .literal(text))
                case let .object(entries) where entries.count == 1 && entries[0].key == "env":
                    guard case let .string(variable) = entries[0].value, !variable.isEmpty,
                          variable.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                        fail(path + ".env", "expected the name of an environment variable (letters, digits, _)")
                        return nil
                    }
                    return .init(name: member.key, value: .environment(variable))
                default:
                    fail(path, "expected a string on one line, or {\"env\": \"VARIABLE\"} for a secret, found \(member.value.brief)")
                    return nil
                }
            }
        } ?? []
        return spec
    }

    func threshold(_ value: JSONValue, at path: String) -> Threshold? {
        guard let fields = object(value, at: path) else { return nil }
        defer { fields.finish() }
        let metric = fields.string("metric", required: true) { $0.isEmpty ? "a metric name such as ttfr.p99" : nil }
        let strategy = fields.string("strategy")
        let runner = fields.choice("runner", among: RunnerSpec.kinds)
        let maximum = fields.bound("max")
        let minimum = fields.bound("min")
        let abort = fields.bool("abort") ?? false
        if maximum == nil, minimum == nil, !fields.has("max"), !fields.has("min") {
            fail(path, "expected \"max\" or \"min\" (a number, or a duration such as \"800ms\")")
            return nil
        }
        if let maximum, let minimum, minimum > maximum {
            fail(fields.path("min"), "expected min ≤ max, found min \(minimum) > max \(maximum)")
        }
        guard let metric else { return nil }
        return Threshold(metric: metric, strategy: strategy, runner: runner, maximum: maximum, minimum: minimum, abort: abort)
    }

    func driverSettings(_ fields: Fields) -> DriverSettings {
        defer { fields.finish() }
        var settings = DriverSettings()
        settings.snapshotIntervalNanos = fields.duration("snapshotInterval", minimum: 10_000_000) ?? settings.snapshotIntervalNanos
        settings.hangTimeoutNanos = fields.duration("hangTimeout", minimum: 100_000_000) ?? settings.hangTimeoutNanos
        settings.graceNanos = fields.duration("grace", minimum: 0) ?? settings.graceNanos
        settings.drainNanos = fields.duration("drain", minimum: 0) ?? settings.drainNanos
        if settings.hangTimeoutNanos <= settings.snapshotIntervalNanos {
            fail(fields.path("hangTimeout"), "expected a hang timeout longer than the snapshot interval (\(DurationText.format(settings.snapshotIntervalNanos))), found \(DurationText.format(settings.hangTimeoutNanos))")
        }
        return settings
    }
}

/// The members of one JSON object being read: typed accessors that record problems under the
/// member's path, and `finish()` that reports members nobody asked for.
private final class Fields {
    let context: Context
    let path: String
    let members: [(key: String, value: JSONValue)]
    private var known: [String] = []

    init(context: Context, path: String, members: [(key: String, value: JSONValue)]) {
        self.context = context
        self.path = path
        self.members = members
    }

    func path(_ key: String) -> String { "\(path).\(key)" }
    func has(_ key: String) -> Bool { members.contains { $0.key == key } }
    func mark(_ keys: [String]) { known += keys }

    /// The member's value, recording `key` as known; a missing required member is a problem.
    private func value(_ key: String, required: Bool, expected: String) -> JSONValue? {
        known.append(key)
        guard let value = members.first(where: { $0.key == key })?.value else {
            if required { context.fail(path(key), "missing; expected \(expected)") }
            return nil
        }
        if case .null = value, !required { return nil }
        return value
    }

    private func wrongType(_ key: String, _ value: JSONValue, _ expected: String) {
        context.fail(path(key), "expected \(expected), found \(value.brief)")
    }

    /// Reports members that no accessor asked for, with the closest known name.
    func finish() {
        for member in members where !known.contains(member.key) {
            let hint = Suggestion.closest(to: member.key, among: known, ignoringCase: true).map { "; did you mean \"\($0)\"?" } ?? ""
            context.fail(path(member.key), "unknown key\(hint) (known here: \(known.joined(separator: ", ")))")
        }
    }

    func string(_ key: String, required: Bool = false, check: (String) -> String? = { _ in nil }) -> String? {
        guard let value = value(key, required: required, expected: "a string") else { return nil }
        guard case let .string(text) = value else { wrongType(key, value, "a string"); return nil }
        if let expected = check(text) { wrongType(key, value, expected); return nil }
        return text
    }

    func bool(_ key: String) -> Bool? {
        guard let value = value(key, required: false, expected: "true or false") else { return nil }
        guard case let .bool(flag) = value else { wrongType(key, value, "true or false"); return nil }
        return flag
    }

    func int(_ key: String, required: Bool = false, in range: ClosedRange<Int>) -> Int? {
        let expected = range.upperBound == Int.max ? "an integer ≥ \(range.lowerBound)" : "an integer in \(range.lowerBound)...\(range.upperBound)"
        guard let value = value(key, required: required, expected: expected) else { return nil }
        guard case let .number(text) = value, let number = Int(text) else { wrongType(key, value, expected); return nil }
        guard range.contains(number) else { wrongType(key, value, expected); return nil }
        return number
    }

    func uint64(_ key: String, required: Bool = false) -> UInt64? {
        let expected = "an integer in 0...\(UInt64.max)"
        guard let value = value(key, required: required, expected: expected) else { return nil }
        guard case let .number(text) = value, let number = UInt64(text) else { wrongType(key, value, expected); return nil }
        return number
    }

    func double(_ key: String, required: Bool = false, in range: ClosedRange<Double>, exclusiveLower: Bool = false) -> Double? {
        let lower = exclusiveLower ? "greater than \(range.lowerBound)" : "at least \(range.lowerBound)"
        let expected = "a number \(lower) and at most \(range.upperBound)"
        guard let value = value(key, required: required, expected: expected) else { return nil }
        guard case let .number(text) = value, let number = Double(text), number.isFinite else { wrongType(key, value, expected); return nil }
        guard range.contains(number), !(exclusiveLower && number == range.lowerBound) else { wrongType(key, value, expected); return nil }
        return number
    }

    func duration(_ key: String, required: Bool = false, minimum: Int64) -> Int64? {
        let expected = "a duration string such as \"300ms\", \"1.5s\" or \"2m\"" + (minimum > 0 ? " of at least \(DurationText.format(minimum))" : "")
        guard let value = value(key, required: required, expected: expected) else { return nil }
        guard case let .string(text) = value, let nanos = DurationText.nanos(text), nanos >= minimum else {
            wrongType(key, value, expected)
            return nil
        }
        return nanos
    }

    /// A threshold bound: a number, or a duration string (then in nanoseconds).
    func bound(_ key: String) -> Double? {
        let expected = "a number or a duration such as \"800ms\""
        guard let value = value(key, required: false, expected: expected) else { return nil }
        switch value {
        case let .number(text): if let number = Double(text), number.isFinite { return number }
        case let .string(text): if let nanos = DurationText.nanos(text) { return Double(nanos) }
        default: break
        }
        wrongType(key, value, expected)
        return nil
    }

    func choice(_ key: String, among choices: [String], required: Bool = false) -> String? {
        let expected = "one of " + choices.map { "\"\($0)\"" }.joined(separator: ", ")
        guard let value = value(key, required: required, expected: expected) else { return nil }
        guard case let .string(text) = value else { wrongType(key, value, expected); return nil }
        guard choices.contains(text) else {
            let hint = Suggestion.closest(to: text, among: choices, ignoringCase: true).map { " (did you mean \"\($0)\"?)" } ?? ""
            wrongType(key, value, expected + hint)
            return nil
        }
        return text
    }

    func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type, required: Bool = false) -> T? where T.RawValue == String {
        choice(key, among: T.allCases.map(\.rawValue), required: required).flatMap(T.init(rawValue:))
    }

    /// Reads a nested object with `body`; `nil` when missing or not an object.
    func nested<T>(_ key: String, required: Bool = false, _ body: (Fields) -> T) -> T? {
        guard let value = value(key, required: required, expected: "an object") else { return nil }
        guard let fields = context.object(value, at: path(key)) else { return nil }
        return body(fields)
    }

    /// Reads the object at `key` with `body`, then reports its unknown members (``finish()``).
    func nestedObject<T>(_ key: String, required: Bool = false, _ body: (Fields) -> T) -> T? {
        nested(key, required: required) { fields in
            defer { fields.finish() }
            return body(fields)
        }
    }

    /// Reads an array with `body` per item (called with the item's path); `nil` if any item failed.
    func array<T>(_ key: String, required: Bool = false, nonEmpty: Bool = false, _ body: (JSONValue, String) -> T?) -> [T]? {
        guard let value = value(key, required: required, expected: "an array") else { return nil }
        guard case let .array(items) = value else { wrongType(key, value, "an array"); return nil }
        if nonEmpty, items.isEmpty { context.fail(path(key), "expected at least one entry, found an empty array"); return nil }
        var result: [T] = []
        var failed = false
        for (index, item) in items.enumerated() {
            if let parsed = body(item, "\(path(key))[\(index)]") { result.append(parsed) } else { failed = true }
        }
        return failed ? nil : result
    }
}
