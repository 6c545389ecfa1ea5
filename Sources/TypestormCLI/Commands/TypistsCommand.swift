import Diagnostics
import Foundation
import Orchestration
import Typists

/// `typestorm typists`: look at synthetic typists — their keystroke streams and the statistics
/// of a population — so a person can judge whether they type like people.
enum TypistsCommand {
    static let command = Command(
        name: "typists",
        abstract: "Generate synthetic typists and show what they type.",
        subcommands: [sample, stats]
    )

    static let commonOptions: [Option] = [
        .value("seed", "S", help: "Scenario seed; typist i is derived from (seed, i) only.", default: "1"),
        .value("device", "CLASS", help: "Only this device class: desktop or mobile (default: half each)."),
        .value("language", "LANG", help: "Only this language: en, ko or zh (default: en)."),
        .value("queries", "DIR", help: "Directory with <lang>.txt query lists and zh-pinyin.txt (default: the shipped Datasets/queries)."),
        .value("zipf", "S", help: "Zipf exponent of query popularity.", default: "0.75"),
        .value("first", "I", help: "Index of the first typist.", default: "0"),
        .flag("pinyin-hidden", help: "Pinyin stays in the IME's window; the field changes only at a candidate pick."),
        .json,
    ]

    static let sample = Command(
        name: "sample",
        abstract: "Print the keystroke streams of a few typists (time, key, field text).",
        discussion: """
        Keys: the character typed, or ⌫ backspace, ⎋ clear, ⌘V paste, ⇥ accepted suggestion or
        word prediction, ␣ pinyin pick with space, 한/영 toggle. --json prints
        {"seed","typists":[{"typist","device","language","wpm","mean_iki_ms","composing_mean_iki_ms",
        "events":[trace lines]}]}; --trace-out writes the streams as a JSON Lines trace.
        """,
        options: [.value("count", "N", help: "Number of typists.", default: "3")] + commonOptions
            + [.value("trace-out", "FILE", help: "Also write the streams to FILE as a JSON Lines trace.")],
        run: runSample
    )

    static let stats = Command(
        name: "stats",
        abstract: "Measure a population's typing statistics against the published figures.",
        discussion: """
        --json keys: typists, mean_wpm, sd_wpm, median_profile_iki_ms, measured_mean_iki_ms,
        measured_to_profile_iki_ratio, uncorrected_error_rate, backspace_share,
        keystrokes_per_character, mean_words_per_query, words_per_query_shares (1..6+), keys_per_han_character,
        queries_per_session, events_per_session, key_presses, seconds, keystrokes_per_second.
        """,
        options: [.value("count", "N", help: "Number of typists.", default: "2000")] + commonOptions,
        run: runStats
    )

    /// The population the options describe.
    static func population(_ arguments: ParsedArguments) throws -> (TypistPopulation, UInt64) {
        let seed = try arguments.uint64("seed", default: 1)
        var config = TypistConfig()
        if let device = try arguments.choice("device", among: DeviceClass.allCases.map(\.rawValue)) {
            config.deviceShares = [DeviceClass(rawValue: device)!: 1]
        }
        let language = TypingLanguage(rawValue: try arguments.choice("language", among: TypingLanguage.allCases.map(\.rawValue), default: "en")!)!
        config.languageShares = [language: 1]
        config.pinyinInField = !arguments.flag("pinyin-hidden")
        let zipf = try arguments.double("zipf", default: 0.75, in: 0...10)
        let directory = try arguments.value("queries") ?? CatalogFiles.shipped(ShippedData.queries)
        do {
            let pool = try QueryPool.load(directory: directory, languages: [language], zipfExponent: zipf)
            return (try TypistPopulation(config: config, queries: pool, seed: seed), seed)
        } catch let error as QueryPoolError {
            switch error {
            case .missingFile:
                throw ToolError("\(error) (give --queries DIR)", exitCode: ExitCode.noInput)
            default:
                throw ToolError(error.description, exitCode: ExitCode.dataError)
            }
        }
    }

    static let runSample: Command.Run = { invocation in
        let arguments = invocation.arguments
        let count = try arguments.int("count", default: 3, in: 1...100_000)
        let first = try arguments.int("first", default: 0, in: 0...Int(Int32.max))
        let (population, seed) = try population(arguments)
        let json = arguments.flag("json")
        var trace = TraceWriter()
        var jsonTypists: [String] = []
        var human = ""
        for index in first..<(first + count) {
            var session = population.session(forTypist: index)
            let profile = session.profile
            trace.beginSession(TraceHeader(session: index - first, seed: seed, profile: profile))
            var events: [String] = []
            if !json {
                human += String(format: "typist %d · %@ · %@ · %.1f WPM · mean IKI %.0f ms copying, %.0f ms composing\n",
                                 index, profile.device.rawValue, profile.language.rawValue, profile.wpm,
                                 profile.meanIKIMillis, profile.composingMeanIKIMillis)
                human += "   t (ms)  key    field\n"
            }
            var query = 0
            while let event = session.next() {
                trace.write(event)
                if json {
                    events.append(TraceWriter.line(for: event))
                    continue
                }
                if session.queryNumber != query {
                    query = session.queryNumber
                    human += "  query \(query)\(session.isRefinement ? " (refine)" : ""): intends \"\(session.intendedText)\"\n"
                }
                human += format(event)
            }
            if json {
                let head = String(format: "{\"typist\":%d,\"device\":\"%@\",\"language\":\"%@\",\"wpm\":%.2f,\"mean_iki_ms\":%.2f,\"composing_mean_iki_ms\":%.2f,\"events\":[",
                                  index, profile.device.rawValue, profile.language.rawValue, profile.wpm,
                                  profile.meanIKIMillis, profile.composingMeanIKIMillis)
                jsonTypists.append(head + events.joined(separator: ",") + "]}")
            } else {
                human += "\n"
            }
        }
        if json {
            invocation.console.out("{\"seed\":\(seed),\"typists\":[" + jsonTypists.joined(separator: ",") + "]}\n")
        } else {
            invocation.console.out(human)
        }
        if let path = arguments.value("trace-out") {
            do {
                try trace.write(toFile: path)
            } catch {
                throw ToolError("\(error)", exitCode: ExitCode.cannotCreate)
            }
            invocation.console.err("wrote \(count) session(s) to \(path)\n")
        }
        return ExitCode.success
    }

    /// One event as a line of the readable listing.
    static func format(_ event: TypingEvent) -> String {
        let time = String(format: "%9.1f", Double(event.at) / 1e6)
        switch event.action {
        case let .edit(key, text):
            return time + "  " + pad(key == " " ? "space" : key, 5) + "  " + text.string + "|\n"
        case let .scope(scope):
            return time + "  " + pad("scope", 5) + "  → " + (scope ?? "(all)") + "\n"
        case let .tokens(tokens):
            return time + "  " + pad("token", 5) + "  → [" + tokens.joined(separator: ", ") + "]\n"
        case .submit:
            return time + "  " + pad("⏎", 5) + "  (submit)\n"
        case .end:
            return time + "  " + pad("end", 5) + "  (leaves the field)\n"
        }
    }

    /// Pads by display width (East Asian characters take two columns).
    static func pad(_ text: String, _ width: Int) -> String {
        let columns = text.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x1100 && $1.value != 0x2423 && !(0x2190...0x23FF).contains($1.value) ? 2 : 1) }
        return text + String(repeating: " ", count: max(0, width - columns))
    }

    static let runStats: Command.Run = { invocation in
        let arguments = invocation.arguments
        let count = try arguments.int("count", default: 2000, in: 1...10_000_000)
        let first = try arguments.int("first", default: 0, in: 0...Int(Int32.max))
        let (population, _) = try population(arguments)
        let clock = ContinuousClock()
        let start = clock.now
        let stats = PopulationStatistics.measure(population, typists: first..<(first + count))
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let keysPerSecond = seconds > 0 ? Double(stats.keyPresses) / seconds : 0
        if arguments.flag("json") {
            let shares = stats.wordsPerQueryShares.map { String(format: "%.4f", $0) }.joined(separator: ",")
            invocation.console.out(String(
                format: "{\"typists\":%d,\"mean_wpm\":%.3f,\"sd_wpm\":%.3f,\"median_profile_iki_ms\":%.2f,\"measured_mean_iki_ms\":%.2f,\"measured_to_profile_iki_ratio\":%.4f,\"uncorrected_error_rate\":%.5f,\"backspace_share\":%.5f,\"keystrokes_per_character\":%.4f,\"mean_words_per_query\":%.3f,\"words_per_query_shares\":[%@],\"keys_per_han_character\":%.4f,\"queries_per_session\":%.3f,\"events_per_session\":%.2f,\"key_presses\":%d,\"seconds\":%.3f,\"keystrokes_per_second\":%.0f}\n",
                stats.typists, stats.meanWPM, stats.sdWPM, stats.medianProfileIKIMillis, stats.measuredMeanIKIMillis,
                stats.measuredToProfileIKIRatio, stats.uncorrectedErrorRate, stats.backspaceShare,
                stats.keystrokesPerCharacter, stats.meanWordsPerQuery, shares, stats.keysPerHanCharacter, stats.queriesPerSession,
                stats.eventsPerSession, stats.keyPresses, seconds, keysPerSecond))
            return ExitCode.success
        }
        let rows: [(String, String)] = [
            ("typists", "\(stats.typists)"),
            ("WPM mean / SD", String(format: "%.2f / %.2f", stats.meanWPM, stats.sdWPM)),
            ("median copy-typing IKI", String(format: "%.1f ms", stats.medianProfileIKIMillis)),
            ("measured mean IKI (composing, pauses in)", String(format: "%.1f ms", stats.measuredMeanIKIMillis)),
            ("measured / profile IKI", String(format: "%.3f", stats.measuredToProfileIKIRatio)),
            ("uncorrected errors per character", String(format: "%.2f %%", stats.uncorrectedErrorRate * 100)),
            ("backspaces among key presses", String(format: "%.2f %%", stats.backspaceShare * 100)),
            ("key presses per character", String(format: "%.3f", stats.keystrokesPerCharacter)),
            ("words per new query", String(format: "%.2f  (1…6+: %@)", stats.meanWordsPerQuery,
                                           stats.wordsPerQueryShares.map { String(format: "%.0f%%", $0 * 100) }.joined(separator: " "))),
            ("key presses per Han character", stats.keysPerHanCharacter > 0 ? String(format: "%.2f", stats.keysPerHanCharacter) : "-"),
            ("queries per session", String(format: "%.2f", stats.queriesPerSession)),
            ("events per session", String(format: "%.1f", stats.eventsPerSession)),
            ("generation speed", String(format: "%.0f key presses/s (debug builds are slower)", keysPerSecond)),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows {
            invocation.console.out(name + String(repeating: " ", count: width - name.count) + "  " + value + "\n")
        }
        return ExitCode.success
    }
}
