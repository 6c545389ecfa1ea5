import JSONReading
import TypestormMetrics

extension Scenario {
    /// The scenario as JSON with every default written out: what workers read, what the run
    /// directory keeps, and what the hash covers.
    package var canonicalJSON: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("schema", .number("\(Scenario.schemaVersion)")),
            ("name", .string(name)),
            ("seed", .number("\(seed)")),
            ("duration", .string(DurationText.format(durationNanos))),
            ("processes", .number("\(processes)")),
            ("catalog", catalog.json),
            ("population", population.json),
            ("strategies", .array(strategies.map(\.json))),
            ("runners", .array(runners.map(\.json))),
            ("backend", backend.json),
            ("thresholds", .array(thresholds.map(\.json))),
            ("driver", driver.json),
        ]
        if let description { members.append(("description", .string(description))) }
        return .object(members)
    }

    /// First 16 hex digits of the SHA-256 of the canonical JSON. Equal scenarios (whatever their
    /// formatting, and whether defaults were written out) have equal hashes; records only merge
    /// when their hashes match.
    package var hash: String {
        String(SHA256.hex(canonicalJSON.canonical).prefix(16))
    }
}

private func number(_ value: Double) -> JSONValue {
    if value == value.rounded(), abs(value) < 1e15 { return .number("\(Int64(value))") }
    return .number("\(value)")
}

private func duration(_ nanos: Int64) -> JSONValue { .string(DurationText.format(nanos)) }

extension CatalogSource {
    var json: JSONValue {
        switch self {
        case let .file(path):
            return .object([("file", .string(path))])
        case let .generate(items, seed, languages):
            return .object([("generate", .object([
                ("items", .number("\(items)")),
                ("seed", .number("\(seed)")),
                ("languages", .object(languages.map { ($0.language.rawValue, number($0.share)) })),
            ]))])
        }
    }
}

extension Population {
    var json: JSONValue {
        let arrivalJSON: JSONValue
        switch arrival {
        case .allAtOnce: arrivalJSON = .object([("kind", .string("all-at-once"))])
        case let .ramp(over): arrivalJSON = .object([("kind", .string("ramp")), ("over", duration(over))])
        case let .rate(perSecond): arrivalJSON = .object([("kind", .string("rate")), ("perSecond", number(perSecond))])
        case let .stages(stages):
            arrivalJSON = .object([
                ("kind", .string("stages")),
                ("stages", .array(stages.map { .object([("to", .number("\($0.target)")), ("over", duration($0.overNanos))]) })),
            ])
        }
        var session: [(key: String, value: JSONValue)] = [("queries", .number("\(queriesPerSession)"))]
        if let maximumSessionNanos { session.append(("maxLength", duration(maximumSessionNanos))) }
        if repeatsSessions { session.append(("repeat", .bool(true))) }
        var members: [(key: String, value: JSONValue)] = [
            ("typists", .number("\(typists)")),
            ("mix", .array(mix.map { entry in
                var members: [(key: String, value: JSONValue)] = [
                    ("device", .string(entry.device.rawValue)), ("language", .string(entry.language.rawValue)), ("share", number(entry.share)),
                ]
                // Only when given, so scenarios without profiles keep their canonical JSON and hash.
                if let network = entry.network { members.append(("network", .string(network.name))) }
                return .object(members)
            })),
            ("arrival", arrivalJSON),
            ("session", .object(session)),
        ]
        if let queryLists { members.append(("queryLists", .string(queryLists))) }
        return .object(members)
    }
}

extension ScenarioStrategy {
    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("name", .string(name)), ("preset", .string(preset))]
        if let debounceNanos { members.append(("debounce", duration(debounceNanos))) }
        if let minimumLength { members.append(("minLength", .number("\(minimumLength)"))) }
        if let trim { members.append(("trim", .bool(trim))) }
        if let stalledDelayNanos { members.append(("stalledDelay", duration(stalledDelayNanos))) }
        if let cacheSize { members.append(("cacheSize", .number("\(cacheSize)"))) }
        if let writeBack { members.append(("writeBack", .bool(writeBack))) }
        if !parameters.isEmpty {
            members.append(("parameters", .object(parameters.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        return .object(members)
    }
}

extension RunnerSpec {
    var json: JSONValue {
        switch self {
        case .virtual: return .object([("kind", .string(kind))])
        case let .inProcess(backend): return .object([("kind", .string(kind)), ("backend", .string(backend.rawValue))])
        case let .httpEmbedded(threads, backend):
            return .object([("kind", .string(kind)), ("serverThreads", .number("\(threads)")), ("backend", .string(backend.rawValue))])
        case let .httpURL(template, request): return .object([("kind", .string(kind)), ("url", .string(template))] + request.jsonMembers)
        case let .probe(realTime): return .object([("kind", .string(kind)), ("pace", .string(realTime ? "realtime" : "fast"))])
        }
    }
}

extension ScenarioBackend {
    var json: JSONValue {
        .object([
            ("workers", .number("\(workers)")),
            ("typistsPerServer", .number("\(typistsPerServer)")),
            ("serviceTime", .object([("median", duration(serviceMedianNanos)), ("p99", duration(serviceP99Nanos))])),
            ("networkRTT", duration(networkRoundTripNanos)),
            ("cancellation", .string(cancellation.rawValue)),
            ("cancelDelay", duration(cancelDelayNanos)),
            ("errorRate", number(errorRate)),
            ("timeout", duration(timeoutNanos)),
            ("networkRTTSpread", number(networkRTTSpread)),
            ("slowTail", .object([("probability", number(slowTailProbability)), ("factor", number(slowTailFactor))])),
            ("transportErrorRate", number(transportErrorRate)),
            ("localFilter", .object([("items", .number("\(localItems)")), ("nsPerItem", number(localNanosPerItem))])),
            ("sharedAcrossStrategies", .bool(sharedAcrossStrategies)),
        ])
    }
}

extension Threshold {
    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("metric", .string(metric))]
        if let strategy { members.append(("strategy", .string(strategy))) }
        if let runner { members.append(("runner", .string(runner))) }
        if let maximum { members.append(("max", number(maximum))) }
        if let minimum { members.append(("min", number(minimum))) }
        if abort { members.append(("abort", .bool(true))) }
        return .object(members)
    }
}

extension DriverSettings {
    var json: JSONValue {
        .object([
            ("snapshotInterval", duration(snapshotIntervalNanos)),
            ("hangTimeout", duration(hangTimeoutNanos)),
            ("grace", duration(graceNanos)),
            ("drain", duration(drainNanos)),
        ])
    }
}
