/// What a population of generated typists actually typed, measured from their event streams.
///
/// The same measurements back the tests (against the published figures of docs/typing.md) and
/// `typestorm typists stats`, so a number in the docs is one a person can re-measure.
public struct PopulationStatistics: Sendable, Hashable, Codable {
    /// Typists measured.
    public var typists = 0
    /// Mean copy-typing speed of the measured typists, in words per minute.
    public var meanWPM = 0.0
    /// Standard deviation of the typists' copy-typing speed, in words per minute.
    public var sdWPM = 0.0
    /// Median over typists of their copy-typing mean IKI (12000/WPM × 1.03 on desktop).
    public var medianProfileIKIMillis = 0.0
    /// Mean over all typed keys of the interval since the previous key of the same query.
    public var measuredMeanIKIMillis = 0.0
    /// Mean over typists of (measured mean IKI / the typist's composing mean IKI).
    public var measuredToProfileIKIRatio = 0.0
    /// Characters left wrong when a query ends, per character typed (typed queries only).
    public var uncorrectedErrorRate = 0.0
    /// Backspaces among all key presses.
    public var backspaceShare = 0.0
    /// Key presses per character of the intended text (typed queries only).
    public var keystrokesPerCharacter = 0.0
    /// Words per new query (refinements excluded), mean and shares for 1…6+ words.
    public var meanWordsPerQuery = 0.0
    /// Shares of new queries with 1, 2, ... 5 and 6 or more words (sum 1; empty when no query was
    /// measured).
    public var wordsPerQueryShares: [Double] = []
    /// Chinese: key presses per Han character (pinyin letters, picks and corrections; the
    /// spaces between words left out), typed queries only. About 2.2 for pinyin [R1 in docs/typing.md].
    public var keysPerHanCharacter = 0.0
    /// Mean queries typed per session, refinements included.
    public var queriesPerSession = 0.0
    /// Mean typing events per session: every ``TypingEvent`` (keys, scope and token changes,
    /// submits, the end).
    public var eventsPerSession = 0.0
    /// Key presses measured in all, the denominator of ``backspaceShare``.
    public var keyPresses = 0

    /// All statistics zero, to be filled by ``measure(_:typists:)``.
    public init() {}

    /// Generate typists `range` of `population` and measure them.
    public static func measure(_ population: TypistPopulation, typists range: Range<Int>) -> PopulationStatistics {
        var stats = PopulationStatistics()
        var wpms: [Double] = []
        var profileIKIs: [Double] = []
        var ratioSum = 0.0, ratioCount = 0
        var intervalSum = 0.0, intervalCount = 0
        var errors = 0, typedCharacters = 0, typedQueryKeys = 0, typedQueryCharacters = 0
        var backspaces = 0, presses = 0
        var wordCounts = [Int](repeating: 0, count: 6)
        var queries = 0, events = 0
        var hanKeys = 0, hanCharacters = 0

        for index in range {
            var session = population.session(forTypist: index)
            let profile = session.profile
            wpms.append(profile.wpm)
            profileIKIs.append(profile.meanIKIMillis)
            var typistIntervalSum = 0.0, typistIntervals = 0

            var query = QueryTally()
            func finish(_ query: QueryTally) {
                guard query.number > 0 else { return }
                if !query.isRefinement {
                    wordCounts[min(query.words, 6) - 1] += 1
                }
                guard query.typedOnly else { return }
                let typed = Array(query.intendedTyped)
                let field = Array(query.lastText.string)
                let baseCount = Array(query.intendedText).count - typed.count
                let actual = field.count >= baseCount ? Array(field[baseCount...]) : []
                var wrong = abs(actual.count - typed.count)
                for (a, b) in zip(actual, typed) where a != b { wrong += 1 }
                errors += wrong
                typedCharacters += typed.count
                typedQueryKeys += query.presses
                typedQueryCharacters += typed.count
                let han = query.intendedTyped.unicodeScalars.filter { (0x4E00...0x9FFF).contains($0.value) }.count
                if han > 0 {
                    hanCharacters += han
                    hanKeys += query.presses - query.intendedTyped.unicodeScalars.filter { $0 == " " }.count
                }
            }

            var lastEditTime: Int64?
            while let event = session.next() {
                events += 1
                if session.queryNumber != query.number {
                    finish(query)
                    query = QueryTally(number: session.queryNumber, intendedText: session.intendedText,
                                       intendedTyped: session.intendedTyped, words: session.intendedWords,
                                       isRefinement: session.isRefinement)
                    queries += 1
                    lastEditTime = nil
                }
                guard case let .edit(key, text) = event.action else { continue }
                query.lastText = text
                switch key {
                case "⎋", "⌘V", "⇥":
                    query.typedOnly = false
                    lastEditTime = nil
                    continue
                default:
                    break
                }
                presses += 1
                query.presses += 1
                if key == "⌫" { backspaces += 1 }
                if let last = lastEditTime {
                    let interval = Double(event.at - last) / 1e6
                    intervalSum += interval
                    intervalCount += 1
                    typistIntervalSum += interval
                    typistIntervals += 1
                }
                lastEditTime = event.at
            }
            finish(query)
            if typistIntervals > 0 {
                ratioSum += (typistIntervalSum / Double(typistIntervals)) / profile.composingMeanIKIMillis
                ratioCount += 1
            }
        }

        stats.typists = range.count
        let n = Double(max(wpms.count, 1))
        stats.meanWPM = wpms.reduce(0, +) / n
        stats.sdWPM = (wpms.reduce(0) { $0 + ($1 - stats.meanWPM) * ($1 - stats.meanWPM) } / max(n - 1, 1)).squareRoot()
        profileIKIs.sort()
        stats.medianProfileIKIMillis = profileIKIs.isEmpty ? 0 : profileIKIs[profileIKIs.count / 2]
        stats.measuredMeanIKIMillis = intervalCount > 0 ? intervalSum / Double(intervalCount) : 0
        stats.measuredToProfileIKIRatio = ratioCount > 0 ? ratioSum / Double(ratioCount) : 0
        stats.uncorrectedErrorRate = typedCharacters > 0 ? Double(errors) / Double(typedCharacters) : 0
        stats.backspaceShare = presses > 0 ? Double(backspaces) / Double(presses) : 0
        stats.keystrokesPerCharacter = typedQueryCharacters > 0 ? Double(typedQueryKeys) / Double(typedQueryCharacters) : 0
        let newQueries = wordCounts.reduce(0, +)
        stats.wordsPerQueryShares = wordCounts.map { newQueries > 0 ? Double($0) / Double(newQueries) : 0 }
        stats.meanWordsPerQuery = newQueries > 0
            ? Double(wordCounts.enumerated().reduce(0) { $0 + ($1.offset + 1) * $1.element }) / Double(newQueries) : 0
        stats.keysPerHanCharacter = hanCharacters > 0 ? Double(hanKeys) / Double(hanCharacters) : 0
        stats.queriesPerSession = Double(queries) / n
        stats.eventsPerSession = Double(events) / n
        stats.keyPresses = presses
        return stats
    }

    private struct QueryTally {
        var number = 0
        var intendedText = ""
        var intendedTyped = ""
        var words = 0
        var isRefinement = false
        var lastText: FieldText = ""
        var presses = 0
        var typedOnly = true
    }
}
