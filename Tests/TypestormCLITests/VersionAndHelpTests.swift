import Testing
@testable import TypestormCLI

@Suite("Version and help", .timeLimit(.minutes(5)))
struct VersionAndHelpTests {
    func run(_ argv: [String]) async -> (code: Int32, out: String, err: String) {
        await CommandTests().run(argv)
    }

    @Test func versionFlagsPrintTheVersion() async {
        for argv in [["--version"], ["-V"], ["version"]] {
            let result = await run(argv)
            #expect(result.code == 0, "\(argv)")
            #expect(result.out == "typestorm \(VersionCommand.version)\n", "\(argv)")
        }
        #expect(await run(["--help"]).out.contains("--version"))
    }

    @Test func helpForAnUnknownCommandIsAUsageErrorWithASuggestion() async {
        let typo = await run(["help", "rnu"])
        #expect(typo.code == 64)
        #expect(typo.err.contains("unknown command 'rnu'") && typo.err.contains("did you mean 'run'?"), "\(typo.err)")
        #expect(typo.out.isEmpty)
        let nested = await run(["help", "catalog", "genrate"])
        #expect(nested.code == 64)
        #expect(nested.err.contains("did you mean 'generate'?"), "\(nested.err)")
        let known = await run(["help", "run"])
        #expect(known.code == 0)
        #expect(known.out.contains("USAGE: typestorm run"), "\(known.out)")
    }
}
