import Diagnostics
import TypestormMetrics
import Testing
@testable import TypestormCLI

@Suite("Argument parser", .timeLimit(.minutes(5)))
struct ArgumentParserTests {
    static let leaf = Command(
        name: "generate", abstract: "Make a catalog.",
        options: [
            .value("items", "N", help: "How many."),
            .value("token", "T", help: "A token.", repeatable: true),
            .value("offset", "X", help: "Signed."),
            .flag("json", help: "JSON."),
            .flag("verbose", short: "v", help: "More."),
        ],
        positionals: [Positional("file", help: "Out.", optional: true)],
        run: { _ in 0 }
    )
    static let root = Command(
        name: "typestorm", abstract: "Root.",
        subcommands: [Command(name: "catalog", abstract: "Catalogs.", subcommands: [leaf])],
        run: { _ in 0 }
    )
    let parser = ArgumentParser(root: Self.root)

    func parsed(_ argv: [String]) throws -> (path: [String], arguments: ParsedArguments) {
        guard case let .run(_, path, arguments) = try parser.parse(argv) else {
            Issue.record("expected a command to run for \(argv)")
            throw UsageError.invalid("not run")
        }
        return (path, arguments)
    }

    @Test func findsNestedSubcommandAndValues() throws {
        let (path, args) = try parsed(["catalog", "generate", "--items", "10k", "--token=a", "--token", "b", "-v", "out.tsv"])
        #expect(path == ["typestorm", "catalog", "generate"])
        #expect(try args.int("items", default: 0) == 10_000)
        #expect(args.values("token") == ["a", "b"])
        #expect(args.flag("verbose"))
        #expect(!args.flag("json"))
        #expect(args.positional(0) == "out.tsv")
    }

    @Test func negativeNumbersAreValues() throws {
        let (_, args) = try parsed(["catalog", "generate", "--offset", "-5"])
        #expect(try args.int("offset", default: 0) == -5)
    }

    @Test func unknownOptionSuggestsTheClosest() {
        #expect(throws: UsageError.unknownOption("--itmes", suggestion: "--items")) {
            try parser.parse(["catalog", "generate", "--itmes", "3"])
        }
    }

    @Test func unknownCommandSuggestsTheClosest() {
        #expect(throws: UsageError.unknownCommand("catalgo", suggestion: "catalog")) {
            try parser.parse(["catalgo"])
        }
    }

    @Test func missingValueAndRepeatedOption() {
        #expect(throws: UsageError.missingValue(option: "items", valueName: "N")) {
            try parser.parse(["catalog", "generate", "--items"])
        }
        #expect(throws: UsageError.repeatedOption("items")) {
            try parser.parse(["catalog", "generate", "--items", "1", "--items", "2"])
        }
        #expect(throws: UsageError.flagTakesNoValue("json")) {
            try parser.parse(["catalog", "generate", "--json=yes"])
        }
    }

    @Test func extraPositionalIsRejected() {
        #expect(throws: UsageError.unexpectedArgument("two")) {
            try parser.parse(["catalog", "generate", "one", "two"])
        }
    }

    @Test func helpAnywhere() throws {
        guard case let .help(command, path) = try parser.parse(["catalog", "generate", "--items", "3", "--help"]) else {
            Issue.record("expected help"); return
        }
        #expect(command.name == "generate")
        #expect(path == ["typestorm", "catalog", "generate"])
        guard case let .help(viaWord, _) = try parser.parse(["help", "catalog", "generate"]) else {
            Issue.record("expected help"); return
        }
        #expect(viaWord.name == "generate")
        let text = HelpFormatter.render(command, path: path)
        #expect(text.contains("USAGE: typestorm catalog generate [<options>] [<file>]"))
        #expect(text.contains("--items <N>"))
    }

    @Test func typedValuesNameTheFlag() throws {
        let (_, args) = try parsed(["catalog", "generate", "--items", "many"])
        #expect(throws: UsageError.invalidValue(option: "items", value: "many", expected: "an integer")) {
            try args.int("items", default: 1)
        }
        let (_, ranged) = try parsed(["catalog", "generate", "--items", "0"])
        #expect(throws: UsageError.invalidValue(option: "items", value: "0", expected: "an integer in 1...10")) {
            try ranged.int("items", default: 1, in: 1...10)
        }
    }

    @Test(arguments: [("300ms", Int64(300_000_000)), ("1.5s", 1_500_000_000), ("250us", 250_000), ("40", 40_000_000), ("2m", 120_000_000_000)])
    func durations(text: String, nanos: Int64) {
        #expect(ParsedArguments.parseDurationNanos(text) == nanos)
    }

    @Test func editDistanceIsLevenshtein() {
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("same", "same") == 0)
        #expect(Suggestion.editDistance("rnu", "run") == 1, "a swap of neighbours is one edit")
        #expect(Suggestion.editDistance("compare", "comapre") == 1)
    }
}

@Suite("Tool entry point", .timeLimit(.minutes(5)))
struct EntryPointTests {
    final class Captured: @unchecked Sendable {
        // Written only from the single task that runs `CommandLineTool.main` in these tests.
        var out = "", err = ""
    }

    func run(_ argv: [String]) async -> (Int32, Captured) {
        let captured = Captured()
        let console = Console(writeOut: { captured.out += $0 }, writeErr: { captured.err += $0 }, isInteractive: false)
        let code = await CommandLineTool.main(arguments: argv, console: console)
        return (code, captured)
    }

    @Test func usageErrorExits64ToStderr() async {
        let (code, captured) = await run(["--frobnicate"])
        #expect(code == 64)
        #expect(captured.err.contains("unknown option '--frobnicate'"))
        #expect(captured.out.isEmpty)
    }

    @Test func versionAsJSON() async {
        let (code, captured) = await run(["version", "--json"])
        #expect(code == 0)
        #expect(captured.out.hasPrefix("{\"version\":"))
    }
}
