import Diagnostics
import Testing

@Suite("Did you mean", .timeLimit(.minutes(5)))
struct SuggestionTests {
    @Test func editDistanceIsLevenshtein() {
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("abc", "") == 3)
        #expect(Suggestion.editDistance("same", "same") == 0)
        #expect(Suggestion.editDistance("한글", "한국") == 1)
    }

    @Test func closeEnoughWithinAThirdOfTheWord() {
        let commands = ["simulate", "sweep", "serve", "search"]
        #expect(Suggestion.closest(to: "simulte", among: commands) == "simulate")
        #expect(Suggestion.closest(to: "swep", among: commands) == "sweep")
        // Three edits in a seven-letter word: too far for a typo.
        #expect(Suggestion.closest(to: "xyzabcd", among: commands) == nil)
        #expect(Suggestion.closest(to: "anything", among: []) == nil)
    }

    @Test func aPrefixOfTwoOrMoreCharactersIsSuggested() {
        #expect(Suggestion.closest(to: "sim", among: ["simulate", "replay"]) == "simulate")
        #expect(Suggestion.closest(to: "s", among: ["simulate", "replay"]) == nil)
    }

    @Test func caseMattersUnlessIgnored() {
        let keys = ["typistsPerServer", "workers"]
        #expect(Suggestion.closest(to: "TYPISTSPERSERVER", among: keys) == nil)
        #expect(Suggestion.closest(to: "TYPISTSPERSERVER", among: keys, ignoringCase: true) == "typistsPerServer")
        #expect(Suggestion.closest(to: "WORK", among: keys, ignoringCase: true) == "workers")
    }

    @Test func nearestAlwaysAnswersWhenThereAreCandidates() {
        #expect(Suggestion.nearest(to: "ttfr.p96", among: ["latency.p99", "ttfr.p95"]) == "ttfr.p95")
        #expect(Suggestion.nearest(to: "zzzzzzzz", among: ["a", "bb"]) == "a")
        #expect(Suggestion.nearest(to: "x", among: []) == nil)
    }
}

@Suite("Exit codes", .timeLimit(.minutes(5)))
struct ExitCodeTests {
    @Test func followSysexitsAndTheShell() {
        #expect(ExitCode.usage == 64)
        #expect(ExitCode.dataError == 65)
        #expect(ExitCode.noInput == 66)
        #expect(ExitCode.software == 70)
        #expect(ExitCode.cannotCreate == 73)
        #expect(ExitCode.interrupted(by: 2) == 130)
        #expect(ExitCode.interrupted(by: 15) == 143)
    }
}
