import JSONReading

/// A change to a scenario made on the command line (`run --typists 50`, `--set backend.workers=8`).
///
/// Overrides edit the scenario's JSON document before `ScenarioReader` reads it, so an override
/// is checked exactly like the file (a bad value fails with its JSON path), and the run's
/// canonical scenario and hash are those of the scenario as overridden.
package struct ScenarioOverride: Sendable, Equatable {
    package enum Component: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    enum Change: Sendable, Equatable {
        /// Replace (or add) the value at `path`.
        case set(path: [Component], value: JSONValue)
        /// Keep, in this order, the strategies with these names or presets; a name the scenario
        /// does not have becomes `{"preset": name}`.
        case strategies([String])
        /// Set `client` on every `http-url` runner.
        case httpClient(String)
    }

    let change: Change
    /// How the user wrote it, for messages: `--set population.typists=ten`.
    package let origin: String

    /// A generic `PATH=VALUE`: PATH is keys and indices (`strategies[0].debounce` or
    /// `strategies.0.debounce`), VALUE is JSON when it parses as JSON, else a string
    /// (`duration=30s`, `runners=[{"kind":"virtual"}]`).
    package static func assignment(_ text: String) throws(ScenarioError) -> ScenarioOverride {
        let origin = "--set \(text)"
        guard let equals = text.firstIndex(of: "=") else {
            throw ScenarioError(file: nil, issues: [.init(path: "$", message: "\(origin): expected PATH=VALUE, e.g. population.typists=50")])
        }
        let path = try parsePath(String(text[..<equals]), origin: origin)
        let raw = String(text[text.index(after: equals)...])
        let value = (try? JSONParser.parse(raw)) ?? .string(raw)
        return ScenarioOverride(change: .set(path: path, value: value), origin: origin)
    }

    package static func typists(_ count: Int) -> ScenarioOverride {
        ScenarioOverride(change: .set(path: [.key("population"), .key("typists")], value: .number(String(count))), origin: "--typists \(count)")
    }

    package static func duration(_ text: String) -> ScenarioOverride {
        ScenarioOverride(change: .set(path: [.key("duration")], value: .string(text)), origin: "--duration \(text)")
    }

    package static func seed(_ text: String) -> ScenarioOverride {
        let value: JSONValue = UInt64(text) != nil ? .number(text) : .string(text)
        return ScenarioOverride(change: .set(path: [.key("seed")], value: value), origin: "--seed \(text)")
    }

    /// Replaces the runners by one `http-url` runner aimed at `template`.
    package static func url(_ template: String) -> ScenarioOverride {
        let runner: JSONValue = .object([(key: "kind", value: .string("http-url")), (key: "url", value: .string(template))])
        return ScenarioOverride(change: .set(path: [.key("runners")], value: .array([runner])), origin: "--url \(template)")
    }

    /// Replaces the scenario's `backend` by the object in `file` (`run --backend FILE`, e.g. what
    /// `typestorm calibrate` wrote); the reader then checks it as part of the scenario.
    package static func backend(_ value: JSONValue, file: String) -> ScenarioOverride {
        ScenarioOverride(change: .set(path: [.key("backend")], value: value), origin: "--backend \(file)")
    }

    /// Sends every `http-url` runner's requests through `client` (`auto`, `plain`, `curl`).
    package static func httpClient(_ client: String) -> ScenarioOverride {
        ScenarioOverride(change: .httpClient(client), origin: "--http-client \(client)")
    }

    package static func strategies(_ names: [String]) -> ScenarioOverride {
        ScenarioOverride(change: .strategies(names), origin: "--strategies \(names.joined(separator: ","))")
    }

    /// `a.b[0].c`, `a.b.0.c`; a leading `$.` is allowed.
    static func parsePath(_ text: String, origin: String) throws(ScenarioError) -> [Component] {
        var body = Substring(text)
        if body.hasPrefix("$.") { body = body.dropFirst(2) }
        var components: [Component] = []
        for segment in body.split(separator: ".", omittingEmptySubsequences: false) {
            var rest = segment
            let key = rest.prefix { $0 != "[" }
            rest = rest.dropFirst(key.count)
            if !key.isEmpty {
                components.append(key.allSatisfy(\.isNumber) ? .index(Int(key)!) : .key(String(key)))
            } else if rest.isEmpty {
                throw ScenarioError(file: nil, issues: [.init(path: "$", message: "\(origin): empty key in path '\(text)'")])
            }
            while rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]"), let index = Int(rest[rest.index(after: rest.startIndex)..<close]), index >= 0 else {
                    throw ScenarioError(file: nil, issues: [.init(path: "$", message: "\(origin): bad index in path '\(text)' (expected [0], [1], …)")])
                }
                components.append(.index(index))
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty {
                throw ScenarioError(file: nil, issues: [.init(path: "$", message: "\(origin): cannot read path '\(text)' at '\(rest)'")])
            }
        }
        return components
    }

    static func jsonPath(_ components: some Collection<Component>) -> String {
        "$" + components.map { component in
            switch component {
            case let .key(key): ".\(key)"
            case let .index(index): "[\(index)]"
            }
        }.joined()
    }

    /// Applies the change to a scenario document.
    func apply(to document: JSONValue) throws(ScenarioError) -> JSONValue {
        switch change {
        case let .set(path, value):
            return try Self.setting(value, at: path[...], in: document, origin: origin, done: [])
        case let .strategies(names):
            guard case let .object(members) = document else { return document }
            let existing: [JSONValue]
            if case let .array(items)? = members.first(where: { $0.key == "strategies" })?.value { existing = items } else { existing = [] }
            func label(_ item: JSONValue, _ key: String) -> String? {
                guard case let .object(fields) = item, case let .string(text)? = fields.first(where: { $0.key == key })?.value else { return nil }
                return text
            }
            let chosen = names.map { name -> JSONValue in
                existing.first { label($0, "name") == name } ?? existing.first { label($0, "name") == nil && label($0, "preset") == name }
                    ?? .object([(key: "preset", value: .string(name))])
            }
            return try Self.setting(.array(chosen), at: [.key("strategies")], in: document, origin: origin, done: [])
        case let .httpClient(client):
            guard case let .object(members) = document,
                  case let .array(runners)? = members.first(where: { $0.key == "runners" })?.value else { return document }
            var result = document
            var changed = false
            for (index, runner) in runners.enumerated() {
                guard case let .object(fields) = runner, case .string("http-url")? = fields.first(where: { $0.key == "kind" })?.value else { continue }
                result = try Self.setting(.string(client), at: [.key("runners"), .index(index), .key("client")], in: result, origin: origin, done: [])
                changed = true
            }
            guard changed else {
                throw ScenarioError(file: nil, issues: [.init(path: "$.runners", message: "\(origin): the scenario has no http-url runner")])
            }
            return result
        }
    }

    private static func setting(_ value: JSONValue, at path: ArraySlice<Component>, in document: JSONValue, origin: String,
                                done: [Component]) throws(ScenarioError) -> JSONValue {
        guard let first = path.first else { return value }
        let here = done + [first]
        switch (first, document) {
        case let (.key(key), .object(members)):
            var members = members
            if let index = members.firstIndex(where: { $0.key == key }) {
                members[index].value = try setting(value, at: path.dropFirst(), in: members[index].value, origin: origin, done: here)
            } else {
                members.append((key: key, value: try setting(value, at: path.dropFirst(), in: .object([]), origin: origin, done: here)))
            }
            return .object(members)
        case let (.index(index), .array(items)):
            guard index < items.count else {
                throw ScenarioError(file: nil, issues: [.init(path: jsonPath(here), message: "\(origin): the array \(jsonPath(done)) has \(items.count) item(s)")])
            }
            var items = items
            items[index] = try setting(value, at: path.dropFirst(), in: items[index], origin: origin, done: here)
            return .array(items)
        default:
            let expected = if case .key = first { "an object" } else { "an array" }
            throw ScenarioError(file: nil, issues: [.init(path: jsonPath(done), message: "\(origin): expected \(expected) here, found \(document.brief)")])
        }
    }
}

extension ScenarioReader {
    /// Reads a scenario file with command-line overrides applied (in order) before the checks;
    /// a problem an override caused names the override.
    package static func read(bytes: [UInt8], file: String?, overrides: [ScenarioOverride]) throws(ScenarioError) -> Scenario {
        guard !overrides.isEmpty else { return try read(bytes: bytes, file: file) }
        var document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw ScenarioError(file: file, issues: [.init(path: "$", message: "not valid JSON: \(error)")])
        }
        for override in overrides {
            do { document = try override.apply(to: document) } catch {
                throw ScenarioError(file: file, issues: error.issues)
            }
        }
        do {
            return try read(document, file: file)
        } catch {
            let origins = overrides.map(\.origin).joined(separator: " ")
            throw ScenarioError(file: file.map { "\($0) with \(origins)" } ?? "with \(origins)", issues: error.issues)
        }
    }
}
